"""``planeval import ruby-vcr``: a Ruby VCR cassette of a planner call as a suite and recording.

Ruby VCR (the agentic gem's ``spec/vcr_cassettes/``) stores ``http_interactions:``, each a
``request`` (method, uri, body, headers) and a ``response`` (status, headers, body). The
importer picks the interactions whose answer is a plan (an OpenAI chat completion whose message
content holds an object with ``tasks``, bare or in prose or fences: ``harness.plan.load_plan``
decides), and writes for each:

* a response file (source ``import:ruby-vcr``) holding the message content, with the model and
  sampling parameters of the recorded request body, the token usage, and ``recorded_at`` from
  the response's ``Date`` header;
* the suite's prompt template: the request's system and user messages, with the goal (the
  ``Goal:`` line of the user message) replaced by ``{goal}``.

Nothing else from the cassette is written: no header, no cookie, no organization id. As a
second line of defence every value of a credential-bearing header or query parameter is
redacted from the written text should it appear in it.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from harness import __version__
from harness._errors import InputError
from harness._json import loads
from harness._redaction import redact, secrets_of
from harness._yaml import SafeLoader, load_yaml_file
from harness.importers._common import (
    SHOWN_CASES,
    ImportResult,
    check_name,
    dump_yaml,
    slug,
    utc_now,
)
from harness.importers._staging import StagedFiles
from harness.recording import Provenance, ResponseFile, prompt_hash

__all__ = ["import_ruby_vcr"]

_SAMPLING = ("temperature", "top_p", "frequency_penalty", "presence_penalty", "max_tokens",
             "max_completion_tokens", "seed", "n", "stop")  # fmt: skip
_GOAL = re.compile(r"Goal:[ \t]*(?P<goal>.+?)[ \t]*(?:\n[ \t]*\n|\Z)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class _Answer:
    index: int
    model: str
    params: dict[str, Any]
    base_url: str | None
    template: str
    goal: str
    content: str
    recorded_at: str
    latency_ms: float | None
    tokens: dict[str, int] | None


class _Loader(SafeLoader):  # type: ignore[misc]
    """Safe YAML plus Ruby's ``!binary`` tag (base64 bodies of ASCII-8BIT strings)."""


def _binary(loader: Any, node: Any) -> str:
    raw = base64.b64decode(str(loader.construct_scalar(node)))
    return raw.decode("utf-8", errors="replace")


_Loader.add_constructor("!binary", _binary)


def import_ruby_vcr(
    path: Path,
    *,
    root: Path,
    suite: str | None = None,
    case: str | None = None,
    description: str | None = None,
    max_bytes: int | None = None,
) -> ImportResult:
    """Import the planner answers of a Ruby VCR cassette as a suite with recordings.

    Args:
        path: the cassette (``.yml``).
        root: the project root; ``evals/`` and ``plan_fixtures/`` are written under it.
        suite: the suite name (default: the cassette's file stem).
        case: the case id (default: the goal as a slug); only when the cassette has one goal.
        description: the suite's description (default: says where the answer came from).
        max_bytes: a larger cassette is refused (default: the limit in force).

    Raises:
        InputError: the cassette is unusable (no interactions, a body that is not JSON, no
            planner answer). Nothing is written then.
    """
    source = str(path)
    name = check_name(suite or path.stem, what="suite name", source=source)
    interactions = _read_interactions(path, max_bytes)
    secrets = secrets_of(interactions)
    answers = [a for i, x in enumerate(interactions) if (a := _answer(x, i, source)) is not None]
    if not answers:
        raise InputError(
            "no interaction in the cassette answered with a plan "
            "(a chat completion whose message content holds an object with 'tasks')",
            source=source,
        )
    templates = {a.template for a in answers}
    if len(templates) > 1:
        raise InputError(
            "the planner requests use different prompts, a suite has one template",
            source=source,
        )
    template = redact(templates.pop(), secrets)
    goals = list(dict.fromkeys(a.goal for a in answers))
    if case is not None and len(goals) > 1:
        raise InputError(
            f"--case names one case, but the cassette has {len(goals)} goals", source=source
        )
    case_ids = {g: check_name(case or slug(g), what="case id", source=source) for g in goals}
    if len(set(case_ids.values())) < len(goals):
        raise InputError("two goals give the same case id", source=source)
    models: dict[str, _Answer] = {}
    for answer in answers:
        models.setdefault(answer.model, answer)
    for model in models:
        check_name(model, what="model name", source=source)

    digest = prompt_hash(template)
    with StagedFiles(root) as staged:
        samples: dict[tuple[str, str], int] = {}
        for answer in answers:
            case_id = case_ids[answer.goal]
            sample = samples.get((answer.model, case_id), 0)
            samples[(answer.model, case_id)] = sample + 1
            folder = f"plan_fixtures/{name}/{answer.model}/{case_id}"
            if sample == 0:
                staged.replace_tree(folder)
            record = ResponseFile(
                provenance=Provenance(
                    source="import:ruby-vcr",
                    model=answer.model,
                    prompt_hash=digest,
                    recorded_at=answer.recorded_at,
                    harness_version=__version__,
                    params=answer.params,
                    origin=f"{path.name}#http_interactions/{answer.index}",
                ),
                response=answer.content,
                latency_ms=answer.latency_ms,
                tokens=answer.tokens,
            )
            text = json.dumps(record.to_dict(), indent=2, ensure_ascii=False) + "\n"
            staged.add(f"{folder}/sample-{sample}.json", redact(text, secrets))
        license_text = _license_note(path, name)
        if license_text:
            staged.add(f"plan_fixtures/{name}/LICENSE", license_text)
        staged.add(f"evals/prompts/{name}.md", template)
        doc = _suite_doc(name, path, description, list(models.values()), case_ids, samples)
        staged.add(f"evals/{name}.yaml", redact(doc, secrets))
        files = staged.commit()
    return ImportResult(
        suite=name,
        suite_path=root / "evals" / f"{name}.yaml",
        model=next(iter(models)),
        case_count=len(case_ids),
        first_cases=tuple(case_ids.values())[:SHOWN_CASES],
        recording_count=len(answers),
        files=tuple(files),
    )


def _read_interactions(path: Path, max_bytes: int | None) -> list[dict[str, Any]]:
    source = str(path)
    data = load_yaml_file(path, max_bytes=max_bytes, loader=_Loader, what="cassette")
    found = data.get("http_interactions") if isinstance(data, dict) else None
    if not isinstance(found, list) or not found:
        raise InputError(
            "the cassette has no http_interactions",
            source=source,
            hint="expected a Ruby VCR cassette (http_interactions: - request: ... response: ...)",
        )
    for index, item in enumerate(found):
        where = f"http_interactions[{index}]"
        if not isinstance(item, dict):
            raise InputError(
                f"an http_interactions entry is a {type(item).__name__}, not a mapping",
                source=source,
                location=where,
            )
        for part in ("request", "response"):
            value = item.get(part)
            if value is not None and not isinstance(value, dict):
                raise InputError(f"the {part} is not a mapping", source=source, location=where)
            headers = (value or {}).get("headers")
            if headers is not None and not isinstance(headers, dict):
                raise InputError(
                    f"the {part} headers are not a mapping",
                    source=source,
                    location=f"{where}.{part}.headers",
                )
    return found


def _answer(interaction: dict[str, Any], index: int, source: str) -> _Answer | None:
    """The planner answer of one interaction, or None when it is some other call."""
    where = f"http_interactions[{index}]"
    request = interaction.get("request") or {}
    response = interaction.get("response") or {}
    body_text = _body(response, source)
    body = None
    if body_text is not None:
        body = loads(
            body_text, source=source, location=f"{where}.response.body", what="the response body"
        )
    content = _content(body)
    if content is None or not _is_plan(content):  # e.g. the gem's report-format call
        return None
    sent = loads(
        _body(request, source) or "",
        source=source,
        location=f"{where}.request.body",
        what="the planner request body",
    )
    messages = sent.get("messages") if isinstance(sent, dict) else None
    if not isinstance(messages, list) or not isinstance(sent.get("model"), str):
        raise InputError(
            "the planner request has no 'model' and 'messages'",
            source=source,
            location=f"{where}.request.body",
        )
    template, goal = _template(messages, source, where)
    headers = _headers(response)
    uri = str(request.get("uri", ""))
    usage = body.get("usage") if isinstance(body, dict) else None
    return _Answer(
        index=index,
        model=sent["model"],
        params={k: sent[k] for k in _SAMPLING if k in sent},
        base_url=_base_url(uri),
        template=template,
        goal=goal,
        content=content,
        recorded_at=_recorded_at(headers.get("date"), interaction.get("recorded_at")),
        latency_ms=_float(headers.get("openai-processing-ms")),
        tokens=_tokens(usage),
    )


def _body(part: dict[str, Any], source: str) -> str | None:
    body = part.get("body")
    if isinstance(body, str):
        return body
    if not isinstance(body, dict):
        return None
    if isinstance(body.get("base64_string"), str):
        try:
            raw = base64.b64decode(body["base64_string"])
        except ValueError:  # binascii.Error
            raise InputError("a body's base64_string is not base64", source=source) from None
        return raw.decode("utf-8", errors="replace")
    value = body.get("string")
    return value if isinstance(value, str) else None


def _content(body: Any) -> str | None:
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return content if isinstance(content, str) else None


def _is_plan(content: str) -> bool:
    """True when the answer holds a plan (JSON, JSON in prose or fences, a WorfBench workflow),
    even a malformed one: those are exactly what the checks should report."""
    from harness._errors import NoPlanFoundError, PlanLoadError
    from harness.plan import load_plan

    try:
        load_plan(content)
    except NoPlanFoundError:
        return False
    except PlanLoadError:
        return True
    return True


def _template(messages: list[Any], source: str, where: str) -> tuple[str, str]:
    texts: list[tuple[str, str]] = [
        (str(m.get("role")), m["content"])
        for m in messages
        if isinstance(m, dict) and isinstance(m.get("content"), str)
    ]
    users = [t for r, t in texts if r == "user"]
    match = _GOAL.search(users[-1]) if users else None
    if match is None:
        raise InputError(
            "cannot find the goal in the planner request (no 'Goal: ...' line in the user message)",
            source=source,
            location=f"{where}.request.body",
        )
    goal = match.group("goal")
    user = users[-1][: match.start("goal")] + "{goal}" + users[-1][match.end("goal") :]
    system = [t for r, t in texts if r == "system"]
    return "\n\n".join([*system, user]) + "\n", goal


def _headers(part: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in (part.get("headers") or {}).items():
        first = value[0] if isinstance(value, list) and value else value
        out[str(key).lower()] = str(first)
    return out


def _base_url(uri: str) -> str | None:
    head, sep, _ = uri.partition("/chat/completions")
    if not sep or urlsplit(uri).hostname == "api.openai.com":
        return None
    return head


def _recorded_at(date: str | None, fallback: Any) -> str:
    for value in (date, fallback):
        if not isinstance(value, str):
            continue
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            continue
        return when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return utc_now()


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _tokens(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    pairs = (("input", "prompt_tokens"), ("output", "completion_tokens"))
    out = {k: usage[v] for k, v in pairs if isinstance(usage.get(v), int)}
    return out or None


def _suite_doc(
    name: str,
    path: Path,
    description: str | None,
    models: list[_Answer],
    case_ids: dict[str, str],
    samples: dict[tuple[str, str], int],
) -> str:
    first = models[0]
    default = (
        f"Planner answers imported from the Ruby VCR cassette {path.name} "
        f"({first.model}, recorded {first.recorded_at[:10]})."
    )
    doc: dict[str, Any] = {
        "suite": name,
        "description": description or default,
        "prompt": f"prompts/{name}.md",
        "plan_format": "auto",
        "expect": {"needs": "imply_deps"},
        "samples": max(samples.values()),
        "models": [_model_entry(m) for m in models],
        "cases": [{"id": c, "goal": g, "tags": ["ruby-vcr"]} for g, c in case_ids.items()],
    }
    argv = ["planeval", "import", "ruby-vcr", path.name, "--suite", name]
    if any(case_id != slug(goal) for goal, case_id in case_ids.items()):
        argv += ["--case", next(iter(case_ids.values()))]
    given = " --description <the description below>" if description else ""
    header = f"# Generated by `{shlex.join(argv)}{given}`.\n"
    return header + dump_yaml(doc)


def _model_entry(answer: _Answer) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": answer.model, "provider": "openai", "model": answer.model}
    if answer.base_url:
        entry["base_url"] = answer.base_url
    if answer.params:
        entry["params"] = answer.params
    return entry


def _license_note(path: Path, name: str) -> str | None:
    for candidate in ("LICENSE", "LICENSE.txt", "LICENSE.md"):
        license_file = path.parent / candidate
        if license_file.is_file():
            return (
                f"The recordings under plan_fixtures/{name}/ were imported from the Ruby VCR\n"
                f"cassette {path.name}, which is distributed under this license:\n\n"
                + license_file.read_text(encoding="utf-8")
            )
    return None
