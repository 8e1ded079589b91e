"""A live run's calls through the vendors' batch APIs, recorded as ordinary recordings.

``collect_batches`` sends every call a run needs for its HTTP models (one batch per model),
saves the batch ids in ``<run>/batch.json`` at once, waits for the batches with a progress line,
then writes each answer as a normal cassette and sidecar: replay cannot tell a batch recording
from a direct one except by its provenance (``origin: openai-batch:<id>/<request>``). A run
killed while waiting is resumed by running it again with the same ``--out`` folder: the saved
batches are picked up, never sent twice.
"""

from __future__ import annotations

import functools
import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import __version__
from harness._atomic import atomic_write_text
from harness._errors import InputError
from harness._redaction import scrub
from harness.batch._vendors import Outcome, find, poll, results, submit
from harness.providers import HttpProvider, ProviderError, http_provider
from harness.recording import Provenance, open_cassette, sample_paths, write_meta
from harness.suite import Case, ModelSpec, Suite

__all__ = ["BATCH_FILE", "BatchFailure", "batch_state", "collect_batches"]

BATCH_FILE = "batch.json"
BATCH_FORMAT = "planeval-batch/1"
LIMITS: dict[str, tuple[int, int]] = {
    "openai": (50_000, 200 * 1024 * 1024),
    "anthropic": (100_000, 256 * 1024 * 1024),
}
"""Each vendor's documented cap on one batch: requests, and bytes of the input (OpenAI's
file, Anthropic's request body). A run's requests are split into batches that stay under
both, with a 5% margin on bytes."""
POLL_RETRIES = 8
"""Status checks and result reads retried on a 5xx, 429 or network error (backoff doubling
from the poll interval, at most 5 minutes) before the run gives up."""

Item = tuple[ModelSpec, Case, int]
Key = tuple[str, str, int]


@dataclass(frozen=True, slots=True)
class BatchFailure:
    """A sample the batch did not answer: its row's status and detail."""

    status: str
    """``error`` (the request failed) or ``missing`` (the batch expired first)."""
    detail: str


def batch_state(run_dir: Path) -> dict[str, Any] | None:
    """The run folder's ``batch.json``, or None."""
    path = run_dir / BATCH_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"unreadable batch state: {exc}", source=str(path)) from None
    if not isinstance(data, dict) or data.get("format") != BATCH_FORMAT:
        raise InputError(f"not a planeval batch state ({BATCH_FORMAT})", source=str(path))
    return data


def collect_batches(
    suite: Suite,
    todo: Sequence[Item],
    *,
    run_dir: Path,
    fixtures: Path,
    env: Mapping[str, str] | None,
    poll_interval: float,
    say: Callable[[str], None],
    resume_hint: str,
    sleep: Callable[[float], None] = time.sleep,
    budget: Any = None,
) -> dict[Key, BatchFailure]:
    """Send ``todo`` (or pick up the saved batches), wait, record; return the failures.

    ``budget`` (the run's ``LiveControls``) cuts each batch to what it admits before the batch
    is sent, each request at its worst case; the refused samples are ``missing`` with the
    reason, and each answered request is settled at its reported usage.

    Raises:
        InputError: a missing SDK or key (before anything is sent).
        ProviderError: a batch could not be created, polled or read.
    """
    state = batch_state(run_dir)
    tickets: dict[tuple[str, str], Any] = {}
    if state is None:
        state = {"format": BATCH_FORMAT, "batches": [], "refused": [], "tag": _new_tag()}
        by_model: dict[str, list[Item]] = {}
        for item in todo:
            by_model.setdefault(item[0].id, []).append(item)
        for every in by_model.values():
            model = every[0][0]
            provider = _provider(model)
            provider.preflight(model, env)
            admitted_items: list[tuple[Item, dict[str, Any], Any]] = []
            for m, case, k in every:
                prompt = suite.render_prompt(case)
                body = provider.request_body(model, prompt)
                admitted = budget.admit(m, prompt, body, wait=False) if budget else None
                if isinstance(admitted, str):
                    state["refused"].append([m.id, case.id, k, admitted])
                    continue
                admitted_items.append(((m, case, k), body, admitted))
            for chunk in _split(model.provider, provider.path, admitted_items):
                tag = f"{state['tag']}-{len(state['batches'])}"
                cids = [f"{tag}-r{i}" for i in range(len(chunk))]
                for cid, (_item, _body, ticket) in zip(cids, chunk, strict=True):
                    tickets[(model.id, cid)] = ticket
                state["batches"].append(
                    {  # the intent, saved before the batch is created
                        "provider": model.provider,
                        "model": model.id,
                        "tag": tag,
                        "intent_at": time.time(),
                        "batch_id": None,
                        "requests": {
                            cid: [item[1].id, item[2]]
                            for cid, (item, _b, _t) in zip(cids, chunk, strict=True)
                        },
                        "recorded": False,
                        "failures": {},
                    }
                )
        _save(run_dir, state)
        step("intent")
        fresh = {entry["tag"] for entry in state["batches"]}
    else:
        fresh = set()  # intents of a killed run: their batch may exist already
        if budget is not None:
            tickets = _hold_resumed(suite, state, budget)
    taken = {e["batch_id"] for e in state["batches"] if e.get("batch_id")}
    for entry in state["batches"]:
        if entry.get("batch_id") is None:
            look = entry["tag"] not in fresh
            entry["batch_id"] = _create_or_find(suite, entry, env, taken, look, sleep)
            taken.add(entry["batch_id"])
            _save(run_dir, state)
            step("saved")
            say(
                f"batch {entry['batch_id']} sent: {len(entry['requests'])} request(s) for "
                f"model {entry['model']!r}; if this run stops, resume it with: {resume_hint}"
            )
    failures: dict[Key, BatchFailure] = {
        (model_id, case_id, int(sample)): BatchFailure("missing", reason)
        for model_id, case_id, sample, reason in state.get("refused", [])
    }
    for entry in state["batches"]:
        if not entry["recorded"]:
            answered = _finish(suite, entry, fixtures, env, poll_interval, say, sleep)
            entry["recorded"] = True
            entry["usage"] = answered  # what a resume charges its budget for this batch
            _save(run_dir, state)
            for cid in entry["requests"]:
                ticket = tickets.get((entry["model"], cid))
                if ticket is not None:
                    tokens = answered.get(cid)
                    budget.settle(ticket, tokens, ok=cid in answered)
        for cid, failure in entry["failures"].items():
            case_id, sample = entry["requests"][cid]
            failures[(entry["model"], case_id, int(sample))] = BatchFailure(**failure)
    sent = {
        (entry["model"], case_id, int(sample))
        for entry in state["batches"]
        for case_id, sample in entry["requests"].values()
    }
    for model, case, sample in todo:  # never answered from an older recording instead
        key = (model.id, case.id, sample)
        if key not in sent and key not in failures:
            failures[key] = BatchFailure(
                "missing",
                "not in this run's batches (batch.json was written for other samples); "
                "send the gaps with --batch --record-mode new_episodes",
            )
    return failures


def _hold_resumed(suite: Suite, state: dict[str, Any], budget: Any) -> dict[tuple[str, str], Any]:
    """Charge the budget of a resuming process for the batches it picks up (they were sent,
    and paid, under the same command): a recorded batch at the usage its answers reported (at
    its worst case when an older batch.json did not keep it), every other request held at its
    worst case until its answer settles it. Return the held requests' tickets."""
    tickets: dict[tuple[str, str], Any] = {}
    for entry in state["batches"]:
        model = suite.model(entry["model"])
        if model is None:
            continue  # _finish names the model
        provider = _provider(model)
        usage = entry.get("usage")
        for cid, (case_id, _sample) in entry["requests"].items():
            case = suite.case(case_id)
            if case is None:
                continue
            prompt = suite.render_prompt(case)
            ticket = budget.hold(model, prompt, provider.request_body(model, prompt))
            if not entry["recorded"]:
                tickets[(model.id, cid)] = ticket
            elif usage is None:  # recorded by an older planeval: its worst case
                budget.settle(ticket, None, ok=True)
            else:
                budget.settle(ticket, usage.get(cid), ok=cid in usage)
    return tickets


def step(name: str) -> None:
    """A point where a batch run may be killed (``intent``, ``uploaded``, ``created``,
    ``saved``): nothing happens here; the kill-point tests stop the process at each."""


def _new_tag() -> str:
    return "pe" + secrets.token_hex(8)


def _split(
    provider: str, path: str, admitted: list[tuple[Item, dict[str, Any], Any]]
) -> list[list[tuple[Item, dict[str, Any], Any]]]:
    """The admitted requests in batches under the vendor's request-count and byte limits."""
    most, size = LIMITS.get(provider, LIMITS["openai"])
    budget = int(size * 0.95)
    chunks: list[list[tuple[Item, dict[str, Any], Any]]] = []
    used = budget + 1
    for entry in admitted:
        line = len(json.dumps(entry[1]).encode("utf-8")) + len(path) + 128  # id, url, framing
        if used + line > budget or len(chunks[-1]) >= most:
            chunks.append([])
            used = 0
        chunks[-1].append(entry)
        used += line
    return chunks


def _create_or_find(
    suite: Suite,
    entry: dict[str, Any],
    env: Mapping[str, str] | None,
    taken: set[str],
    look: bool,
    sleep: Callable[[float], None],
) -> str:
    """Create the entry's batch, unless (``look``: a killed run's intent) the vendor already
    has the batch with its tag: then that one, never a second."""
    model = suite.model(entry["model"])
    if model is None:
        raise InputError(f"the saved batch is for model {entry['model']!r}, not in the suite")
    provider = _provider(model)
    key = provider.preflight(model, env)
    client = provider.batch_client(model, key)
    try:
        if look:
            count = len(entry["requests"])
            found = _retrying(
                lambda: find(
                    model.provider,
                    client,
                    entry["tag"],
                    requests=count,
                    since=float(entry["intent_at"]),
                    taken=taken,
                ),
                sleep,
                1.0,
            )
            if found is not None:
                return str(found)
        requests = []
        cases = _cases_named(suite, entry)
        for cid, (case_id, _sample) in entry["requests"].items():
            case = cases.get(case_id)
            if case is None:
                raise InputError(f"the saved batch names case {case_id!r}, not in the suite")
            requests.append((cid, provider.request_body(model, suite.render_prompt(case))))
        created: str = _call(
            functools.partial(
                submit,
                model.provider,
                client,
                provider.path,
                requests,
                tag=entry["tag"],
                step=lambda name: step(name),
            )
        )
        return created
    finally:
        client.close()


def _cases_named(suite: Suite, entry: dict[str, Any]) -> dict[str, Case]:
    """The suite's cases that a saved batch's requests name, found in one pass over the
    cases (a suite with a cases file finds a case by reading the file)."""
    wanted = {case_id for case_id, _sample in entry["requests"].values()}
    return {case.id: case for case in suite.cases if case.id in wanted}


def _finish(
    suite: Suite,
    entry: dict[str, Any],
    fixtures: Path,
    env: Mapping[str, str] | None,
    poll_interval: float,
    say: Callable[[str], None],
    sleep: Callable[[float], None],
) -> dict[str, dict[str, int] | None]:
    """Wait for the entry's batch and record its answers; the answered requests' usage."""
    from harness.cost import usage_from_body

    model = suite.model(entry["model"])
    if model is None:
        raise InputError(f"the saved batch is for model {entry['model']!r}, not in the suite")
    provider = _provider(model)
    key = provider.preflight(model, env)
    client = provider.batch_client(model, key)
    try:
        outcomes = _wait(model, client, entry["batch_id"], poll_interval, say, sleep)
    finally:
        client.close()
    batch_id = entry["batch_id"]
    answered: dict[str, dict[str, int] | None] = {}
    cases = _cases_named(suite, entry)
    for cid, (case_id, sample) in entry["requests"].items():
        outcome = outcomes.get(cid) or Outcome(None, "no result for this request", expired=True)
        case = cases.get(case_id)
        if outcome.body is None or case is None:
            entry["failures"][cid] = _failure(batch_id, outcome)
            continue
        origin = f"{model.provider}-batch:{batch_id}/{cid}"
        _record(suite, provider, model, case, int(sample), outcome.body, key, fixtures, origin)
        answered[cid] = usage_from_body(outcome.body)
    return answered


def _wait(
    model: ModelSpec,
    client: Any,
    batch_id: str,
    poll_interval: float,
    say: Callable[[str], None],
    sleep: Callable[[float], None],
) -> dict[str, Outcome]:
    """Poll until the batch has ended (a line whenever its progress changes); its results."""
    last = ""
    while True:
        status = _retrying(lambda: poll(model.provider, client, batch_id), sleep, poll_interval)
        line = f"batch {batch_id}: {status.done}/{status.total} done ({status.state})"
        if line != last:
            say(line)
            last = line
        if status.ended:
            break
        sleep(poll_interval)
    found: dict[str, Outcome] = _retrying(
        lambda: results(model.provider, client, batch_id), sleep, poll_interval
    )
    return found


def _record(
    suite: Suite,
    provider: HttpProvider,
    model: ModelSpec,
    case: Case,
    sample: int,
    body: dict[str, Any],
    key: str,
    fixtures: Path,
    origin: str,
) -> None:
    """Write the answer exactly as a direct call's recording (request matched on replay)."""
    from vcr.request import Request

    paths = sample_paths(fixtures, suite.name, model.id, case.id, sample)
    request_body = provider.request_body(model, suite.render_prompt(case))
    request = Request(
        "POST",
        provider.url(model),
        json.dumps(request_body).encode("utf-8"),
        {"content-type": "application/json"},
    )
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"content-type": ["application/json"]},
        "body": {"string": json.dumps(body).encode("utf-8")},
    }
    cassette = open_cassette(paths.cassette, record_mode="all", secrets=(key,))
    cassette.append(request, response)
    cassette._save()
    provenance = Provenance(
        source="live",
        model=model.model or model.id,
        prompt_hash=suite.prompt_hash,
        recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
        harness_version=__version__,
        params=dict(model.params),
        origin=origin,
    )
    write_meta(paths.meta, provenance)
    paths.remove_other_form(paths.cassette)


def _failure(batch_id: str, outcome: Outcome) -> dict[str, str]:
    """The row a failed request becomes (a vendor's error file may quote the key: scrubbed)."""
    outcome = Outcome(None, scrub(outcome.error or ""), outcome.expired)
    if outcome.expired:
        return {
            "status": "missing",
            "detail": f"batch {batch_id} ended before this request ran ({outcome.error}); "
            "send the gaps with --batch --record-mode new_episodes",
        }
    return {"status": "error", "detail": f"batch {batch_id}: {outcome.error}"}


def _provider(model: ModelSpec) -> HttpProvider:
    provider = http_provider(model.provider)
    if provider is None:
        raise InputError(f"model {model.id!r} ({model.provider}) has no batch API")
    return provider


def _call(action: Callable[[], Any]) -> Any:
    """Run an SDK call; its errors become ``ProviderError`` with one line."""
    try:
        return action()
    except ProviderError:
        raise
    except Exception as exc:  # the SDKs' APIError tree, connection errors
        message = " ".join(scrub(str(exc)).split())[:200]
        raise ProviderError(
            f"batch API call failed: {exc.__class__.__name__}: {message}", retryable=False
        ) from None


def _retrying(action: Callable[[], Any], sleep: Callable[[float], None], base: float) -> Any:
    """``_call`` retried on transient errors (5xx, 429, timeouts, dropped connections) with a
    doubling backoff from ``base`` seconds (at most 300), ``POLL_RETRIES`` times."""
    for attempt in range(POLL_RETRIES + 1):
        try:
            return action()
        except Exception as exc:
            status = getattr(exc, "status_code", None)
            transient = (isinstance(status, int) and (status >= 500 or status == 429)) or (
                type(exc).__name__ in ("APIConnectionError", "APITimeoutError")
            )
            if not transient or attempt == POLL_RETRIES:
                return _call(functools.partial(_raise, exc))
            sleep(min(max(base, 0.01) * 2**attempt, 300.0))
    raise AssertionError("unreachable")


def _raise(exc: BaseException) -> Any:
    raise exc


def _save(run_dir: Path, state: dict[str, Any]) -> None:
    atomic_write_text(run_dir / BATCH_FILE, json.dumps(state, indent=2) + "\n")
