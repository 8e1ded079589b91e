"""``planeval import worfbench``: a WorfBench gold-workflow file as a suite with recordings.

A WorfBench data file is a JSON list of items ``{"id", "source", "conversations": [system,
user, assistant]}``. Each item becomes a case: the user turn's task text is the goal, and the
assistant turn (the gold ``Node:`` / ``Edge:`` workflow) is recorded as the answer of the
pseudo-model ``worfbench-gold`` (provider ``dataset``). The planner system prompt, which is the
same for every item of a domain, becomes the suite's prompt template.

Each item carries its own tool list after the task. Each case keeps it: verbatim as the context
variable ``{tool_list}`` of the prompt (so a live re-recording sends each goal with the list the
benchmark sent), and as ``context.tools`` (checked by ``known_capabilities``). The gold workflow
is also the case's ``reference``, so its metric columns score recorded answers against it. The
suite registry is the union of the items' lists:

* ``api_list:`` / ``The api list ...`` / ``The tool list ...`` (toolbench, toolalpaca,
  seal_tools): one capability per tool name;
* ``The database tables ...`` (intercodesql): one capability per table, its fields in the
  description;
* ``The action list ...`` (wikihow): no registry. The actions are free-text steps, thousands of
  them and different for every task, not named capabilities a plan could refer to.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from harness._errors import InputError
from harness._scratch import scratch_file
from harness.importers._common import (
    SHOWN_CASES,
    GoldAnswers,
    ImportResult,
    check_name,
    stage_suite,
)
from harness.importers._source import DataFile
from harness.importers._staging import StagedFiles
from harness.recording import prompt_hash

__all__ = ["GOLD_MODEL", "WORFBENCH_ATTRIBUTION", "import_worfbench"]

GOLD_MODEL = "worfbench-gold"
"""The pseudo-model whose recordings are WorfBench's gold workflows."""

WORFBENCH_ATTRIBUTION = (
    "WorfBench (zjunlp/WorfBench, https://github.com/zjunlp/WorfBench), MIT License, "
    "Copyright (c) 2024 ZJUNLP"
)

_ROLES = {"system": "system", "user": "user", "human": "user", "assistant": "assistant",
          "gpt": "assistant"}  # fmt: skip
_LEAD = re.compile(
    r"^(?:api_list:|The (?:api|tool|action) list you can [^:\n]*:"
    r"|The database tables and corresponding fields you can operate are:)[ \t]*",
    re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class _Item:
    id: str
    system: str
    goal: str
    lead: str | None
    tools: Any
    tool_text: str
    answer: str


def import_worfbench(
    path: Path, *, root: Path, suite: str | None = None, limit: int | None = None
) -> ImportResult:
    """Import a WorfBench data file as ``evals/<suite>.yaml`` with gold recordings.

    Args:
        path: the WorfBench JSON file (e.g. ``gold_traj/toolbench.json``).
        root: the project root; ``evals/`` and ``plan_fixtures/`` are written under it.
        suite: the suite name (default ``worfbench-<file stem>``).
        limit: import only the first ``limit`` items.

    Raises:
        InputError: the file is not a WorfBench list, or an item cannot be imported. Nothing is
            written then.
    """
    source = str(path)
    name = check_name(suite or f"worfbench-{path.stem}", what="suite name", source=source)
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}", source=source)
    data = _open_list(path)
    with scratch_file("the tool names of each item") as names:
        return _import(data, path, root, name, limit, names)


def _import(
    data: DataFile, path: Path, root: Path, name: str, limit: int | None, names: IO[str]
) -> ImportResult:
    """``import_worfbench`` with ``names``, a scratch file for each item's tool names: the
    first pass parses each tool list (``ast.literal_eval``, most of an import's time) and
    writes its names there, one JSON line per chosen item; the second pass reads them back."""
    source = str(path)
    survey = _Survey(source)  # the first pass: every item checked, nothing kept per item
    for index, obj in enumerate(data.list_items()):
        item = _parse_item(obj, index, source)
        survey.add(item, obj)
        if limit is None or index < limit:
            names.write(json.dumps(_tool_names(item.tools), ensure_ascii=False) + "\n")
    names.seek(0)
    system, total = survey.finish(), survey.count
    if not total:
        raise InputError("the WorfBench file holds no items", source=source)
    chosen = min(limit, total) if limit is not None else total
    domain = survey.domain or path.stem
    kind, capabilities = survey.registry.result()  # the union over the whole file
    template = f"{system.rstrip()}\n\nTask: {{goal}}\n"
    if survey.tool_lists:
        template += "{tool_list}\n"
    digest = prompt_hash(template)

    with StagedFiles(root) as staged:
        gold = GoldAnswers(
            staged,
            root,
            suite=name,
            model=GOLD_MODEL,
            source="import:worfbench",
            origin=f"worfbench/{path.name}",
            digest=digest,
        )
        staged.add(f"plan_fixtures/{name}/LICENSE", _license_note(path, name))
        staged.add(f"evals/prompts/{name}.md", template)
        if capabilities:
            staged.add(f"evals/registries/{name}.json", _registry_text(capabilities))
            staged.remove(f"evals/registries/{name}.yaml")  # what imports wrote before
        doc, header = _suite_doc(name, domain, path, chosen, total, bool(capabilities), kind)
        first: list[str] = []

        def cases() -> Iterator[dict[str, Any]]:
            """The second pass: each chosen item's recording is staged and its case made."""
            for index, obj in enumerate(data.list_items()):
                if index == chosen:
                    break
                item = _parse_item(obj, index, source, tools=False)
                gold.add(item.id, item.answer)
                if len(first) < SHOWN_CASES:
                    first.append(item.id)
                yield _case_doc(item, json.loads(names.readline()), ["worfbench", domain])

        stage_suite(staged, name, doc, cases(), header)
        files = staged.commit()
    return ImportResult(
        suite=name,
        suite_path=root / "evals" / f"{name}.yaml",
        model=GOLD_MODEL,
        case_count=chosen,
        first_cases=tuple(first),
        recording_count=gold.count,
        files=tuple(files),
        skipped=total - chosen,
    )


def _open_list(path: Path) -> DataFile:
    """The WorfBench file, checked to be a JSON list (its items are read later, in passes)."""
    data = DataFile(path, what="the WorfBench file")
    if data.first_byte() != b"[":
        value = data.whole()  # not a list: small or broken, and refused either way
        raise InputError(
            f"not a WorfBench file: expected a JSON list of items, got a {_kind(value)}",
            source=str(path),
            hint="pass a file of WorfBench's gold_traj/ (a list of {id, source, conversations})",
        )
    return data


class _Survey:
    """What the whole file decides, gathered item by item: the ids are unique, one system
    prompt, the domain (the items' common ``source``), the registry union."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.count = 0
        self.tool_lists = False
        self.registry = _Registry()
        self._ids: set[str] = set()
        self._repeated: set[str] = set()
        self._system: str | None = None
        self._other_systems: set[bytes] = set()  # digests: the prompts can be long
        self._domains: set[Any] = set()

    def add(self, item: _Item, obj: dict[str, Any]) -> None:
        self.count += 1
        if item.id in self._ids:
            self._repeated.add(item.id)
        self._ids.add(item.id)
        if self._system is None:
            self._system = item.system
        elif item.system != self._system:
            self._other_systems.add(hashlib.blake2b(item.system.encode()).digest())
        if len(self._domains) < 2:
            source = obj.get("source")
            self._domains.add(source if isinstance(source, str) else None)
        self.tool_lists = self.tool_lists or bool(item.tool_text)
        self.registry.add(item.tools)

    @property
    def domain(self) -> str | None:
        only = next(iter(self._domains)) if len(self._domains) == 1 else None
        return only if isinstance(only, str) and only else None

    def finish(self) -> str:
        """The common system prompt.

        Raises:
            InputError: an id is repeated, or the items use more than one system prompt.
        """
        if self._repeated:
            repeated = ", ".join(sorted(self._repeated)[:5])
            raise InputError(f"item ids must be unique; repeated: {repeated}", source=self.source)
        if self._other_systems:
            raise InputError(
                f"the items use {len(self._other_systems) + 1} different system prompts, "
                "a suite has one template",
                source=self.source,
                hint="split the file by its 'source' field and import each part as its own suite",
            )
        return self._system or ""


def _parse_item(obj: Any, index: int, source: str, *, tools: bool = True) -> _Item:
    """The item's parts, checked; ``tools=False`` leaves its tool list unparsed (``None``)."""
    where = f"item {index}"
    if not isinstance(obj, dict) or not isinstance(obj.get("conversations"), list):
        raise InputError(
            f"not a WorfBench item: expected an object with 'conversations', got a {_kind(obj)}"
            if not isinstance(obj, dict)
            else "not a WorfBench item: it has no 'conversations' list",
            source=source,
            location=where,
        )
    item_id = obj.get("id")
    if not isinstance(item_id, str | int) or isinstance(item_id, bool):
        raise InputError("the item has no 'id'", source=source, location=where)
    item_id = check_name(str(item_id), what="item id", source=f"{source}: {where}")
    where = f"item {index} ({item_id})"
    turns: dict[str, str] = {}
    for turn in obj["conversations"]:
        if not isinstance(turn, dict):
            continue
        role = _ROLES.get(str(turn.get("role", turn.get("from", ""))).lower())
        content = turn.get("content", turn.get("value"))
        if role and isinstance(content, str) and role not in turns:
            turns[role] = content
    if "assistant" not in turns or not turns["assistant"].strip():
        raise InputError(
            "the item has no assistant turn (the gold workflow)", source=source, location=where
        )
    if "user" not in turns:
        raise InputError("the item has no user turn (the task)", source=source, location=where)
    goal, lead, parsed, tool_text = _split_user_turn(turns["user"], tools=tools)
    if not goal:
        raise InputError("the item's user turn has no task text", source=source, location=where)
    answer = turns["assistant"]
    return _Item(item_id, turns.get("system", ""), goal, lead, parsed, tool_text, answer)


def _split_user_turn(text: str, *, tools: bool = True) -> tuple[str, str | None, Any, str]:
    """The task text, the tool-list lead-in (``api_list:``), the parsed tool list (None when
    ``tools`` is false) and the tool-list text as the item has it (lead-in included)."""
    match = _LEAD.search(text)
    head = text[: match.start()] if match else text
    task = head.split("Task:", 1)[1] if "Task:" in head else head
    task = re.sub(r"\n\s*Output:\s*$", "", task.strip()).strip()
    if task.count('"') % 2 == 1 and task.endswith('"'):  # seal_tools: a stray closing quote
        task = task[:-1].rstrip()
    if not match:
        return task, None, None, ""
    parsed = None
    if tools:
        try:
            parsed = ast.literal_eval(text[match.end() :].strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            parsed = None
    return task, match.group(0), parsed, text[match.start() :].strip()


class _Registry:
    """``(kind, {name: capability})``: the union of the items' tool lists, item by item."""

    def __init__(self) -> None:
        self.kind = "none"
        self._caps: dict[str, dict[str, Any]] = {}
        self._tables: dict[str, list[str]] = {}

    def add(self, tools: Any) -> None:
        caps = self._caps
        if isinstance(tools, list) and tools and all(isinstance(t, dict) for t in tools):
            self.kind = "tools"
            for tool in tools:
                name = tool.get("name") or tool.get("api_name")
                if isinstance(name, str) and name.strip() and name not in caps:
                    text = tool.get("description") or tool.get("api_description") or ""
                    caps[name] = {"name": name, "description": " ".join(str(text).split())}
                    for key, value in (("inputs", _inputs(tool)), ("outputs", _outputs(tool))):
                        if value:
                            caps[name][key] = value
        elif isinstance(tools, dict) and tools:
            self.kind = "tables"
            for table, fields in tools.items():
                known = self._tables.setdefault(str(table), [])
                known += [str(f) for f in fields or () if str(f) not in known]

    def result(self) -> tuple[str, dict[str, dict[str, Any]]]:
        caps = dict(self._caps)
        for table, fields in self._tables.items():
            caps[table] = {
                "name": table,
                "description": "Database table; fields: " + ", ".join(fields),
            }
        return self.kind, caps


def _inputs(tool: dict[str, Any]) -> list[str]:
    """Parameter names: JSON-Schema ``properties`` (toolbench) or a name -> spec mapping."""
    params = tool.get("parameters")
    if isinstance(params, dict) and isinstance(params.get("properties"), dict):
        params = params["properties"]
    return [str(k) for k in params] if isinstance(params, dict) else []


def _outputs(tool: dict[str, Any]) -> list[str]:
    """Named results (seal_tools ``responses``), when the tool lists them."""
    responses = tool.get("responses")
    return [str(k) for k in responses] if isinstance(responses, dict) else []


def _registry_text(caps: dict[str, dict[str, Any]]) -> str:
    """The suite's registry as JSON (read with ``json.loads``; YAML's constructor took about
    0.18 s of CPU for the four WorfBench registries). The attribution is in the suite's
    description and the LICENSE note beside the recordings."""
    return json.dumps({"capabilities": list(caps.values())}, indent=2, ensure_ascii=False) + "\n"


def _suite_doc(
    name: str,
    domain: str,
    path: Path,
    chosen: int,
    total: int,
    has_registry: bool,
    kind: str,
) -> tuple[dict[str, Any], str]:
    """The suite document without its cases, and the header comment of the suite file."""
    count = f"all {total} items" if chosen == total else f"the first {chosen} of {total}"
    description = (
        f"WorfBench {domain} gold workflows ({count} of {path.name}), recorded as the "
        f"pseudo-model {GOLD_MODEL}. Source: {WORFBENCH_ATTRIBUTION}."
    )
    if chosen < total:
        description += f" Capped with --limit {chosen}."
    doc: dict[str, Any] = {
        "suite": name,
        "description": description,
        "prompt": f"prompts/{name}.md",
    }
    if has_registry:
        doc["registry"] = f"registries/{name}.json"
    doc["plan_format"] = "worfbench"
    doc["samples"] = 1
    doc["models"] = [{"id": GOLD_MODEL, "provider": "dataset", "model": GOLD_MODEL}]
    header = (
        f"# Generated by `planeval import worfbench {path.name} --suite {name}`"
        + (f" --limit {chosen}" if chosen < total else "")
        + ". Re-import rather than edit.\n"
    )
    if kind == "none":
        header += "# No registry: the items' action lists are free-text steps, not capabilities.\n"
    return doc, header


def _case_doc(item: _Item, names: list[str], tags: list[str]) -> dict[str, Any]:
    """A case: goal, tags, its own tool list (verbatim and as ``names``) and its gold
    workflow."""
    case: dict[str, Any] = {"id": item.id, "goal": item.goal, "tags": tags}
    if item.tool_text:
        context: dict[str, Any] = {"tool_list": item.tool_text}
        if names:
            context["tools"] = names
        case["context"] = context
    case["reference"] = item.answer
    return case


def _tool_names(tools: Any) -> list[str]:
    """The capability names an item offers: tool names, or table names (none for actions)."""
    if isinstance(tools, list) and tools and all(isinstance(t, dict) for t in tools):
        names = [t.get("name") or t.get("api_name") for t in tools]
        return list(dict.fromkeys(n for n in names if isinstance(n, str) and n.strip()))
    if isinstance(tools, dict):
        return [str(table) for table in tools]
    return []


def _license_note(path: Path, name: str) -> str:
    text = (
        f"The recordings under plan_fixtures/{name}/ are the gold workflows of\n"
        f"{WORFBENCH_ATTRIBUTION}, imported from {path.name}.\n"
    )
    license_file = path.parent / "LICENSE"
    if license_file.is_file():
        text += "\n" + license_file.read_text(encoding="utf-8")
    return text


def _kind(value: Any) -> str:
    kinds: dict[type, str] = {dict: "JSON object", list: "JSON list", str: "string"}
    return kinds.get(type(value), "value")
