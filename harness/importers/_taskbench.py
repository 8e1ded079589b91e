"""``planeval import taskbench``: TaskBench-format data as a suite with gold recordings.

TaskBench (microsoft/JARVIS, ``taskbench/data_<domain>/data.json``) holds one record a line:
``{"id", "user_request", "task_nodes", "task_links", ...}``. Each record becomes a case whose
goal is the user request; its gold plan (``task_steps`` when present, ``task_nodes``,
``task_links``) is recorded as the answer of the ``dataset`` model ``gold``. The prompt
template is TaskBench's own zero-shot planning prompt (``inference.py``: the tool list, then
the resource or the temporal instructions) with the request as ``{goal}``; the tool registry
(``tool_desc.json``) is kept as it is. Every case offers the whole tool list, as TaskBench does,
so the registry is each case's tool list. The gold plan is also the case's ``reference``
(``task_nodes``, ``task_links``, ``type``), scored with the TaskBench metrics under the domain's
dependency type (``metrics.taskbench_dependency``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._errors import InputError, PlanLoadError
from harness.importers._common import (
    MAX_DATA_BYTES,
    SHOWN_CASES,
    GoldAnswers,
    ImportResult,
    check_name,
    read_data_text,
    stage_suite,
)
from harness.importers._source import DataFile
from harness.importers._staging import StagedFiles
from harness.importers._taskbench_prompt import dependency_type, taskbench_template
from harness.plan._json import parse_json
from harness.recording import prompt_hash
from harness.registry import load_registry

__all__ = ["TASKBENCH_ATTRIBUTION", "TASKBENCH_GOLD_MODEL", "import_taskbench"]

TASKBENCH_GOLD_MODEL = "gold"
"""The ``dataset`` model whose recordings are the records' gold plans."""

TASKBENCH_ATTRIBUTION = (
    "TaskBench (microsoft/JARVIS, https://github.com/microsoft/JARVIS/tree/main/taskbench), "
    "MIT License, Copyright (c) Microsoft Corporation"
)
_PLAN_KEYS = ("task_steps", "task_nodes", "task_links")


@dataclass(frozen=True, slots=True)
class _Record:
    id: str
    goal: str
    kind: str | None
    answer: str
    reference: dict[str, Any]


def import_taskbench(
    path: Path,
    *,
    tools: Path,
    root: Path,
    suite: str | None = None,
    limit: int | None = None,
    requests: Path | None = None,
    max_bytes: int | None = None,
) -> ImportResult:
    """Import a TaskBench data file as ``evals/<suite>.yaml`` with gold recordings.

    Args:
        path: the data file: JSON Lines (``data.json``) or a JSON array of records.
        tools: the domain's ``tool_desc.json`` (``{"nodes": [...]}``), the suite's registry.
        root: the project root; ``evals/`` and ``plan_fixtures/`` are written under it.
        suite: the suite name (default ``taskbench-<domain>``).
        limit: import only the first ``limit`` records.
        requests: ``user_requests.json`` lines ``{"id", "user_request"}`` giving the goal of
            records that carry no ``user_request`` of their own.
        max_bytes: a larger tool list is refused (default: the limit in force, 8 MiB).

    Raises:
        InputError: a file is unusable, or a record cannot be imported. Nothing is written.
    """
    source = str(path)
    domain = _domain(path)
    name = check_name(suite or f"taskbench-{domain}", what="suite name", source=source)
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}", source=source)
    # refuses a malformed (or too large) tool list before anything is read
    load_registry(tools, max_bytes=max_bytes)
    tool_desc = _read_json(tools)
    goals = _requests(requests) if requests is not None else {}
    data = DataFile(path, what="the TaskBench file")
    seen: set[str] = set()  # the first pass: every record checked, only the ids kept
    for index, obj in _read_records(data):
        record_id = _record(obj, index, source, goals).id
        if record_id in seen:
            raise InputError(f"record ids must be unique; repeated: {record_id}", source=source)
        seen.add(record_id)
    total = len(seen)
    del seen
    chosen = min(limit, total) if limit is not None else total

    template = taskbench_template(tool_desc)
    digest = prompt_hash(template)
    with StagedFiles(root) as staged:
        gold = GoldAnswers(
            staged,
            root,
            suite=name,
            model=TASKBENCH_GOLD_MODEL,
            source="import:taskbench",
            origin=f"taskbench/{path.name}",
            digest=digest,
        )
        staged.add(f"plan_fixtures/{name}/LICENSE", _license_note(path, tools, name))
        staged.add(f"evals/prompts/{name}.md", template)
        staged.add(f"evals/registries/{name}.json", tools.read_text(encoding="utf-8-sig"))
        dependency = dependency_type(tool_desc)
        doc, header = _suite_doc(name, domain, path, chosen, total, dependency)
        first: list[str] = []

        def cases() -> Iterator[dict[str, Any]]:
            """The second pass: each chosen record's recording is staged and its case made."""
            for index, obj in _read_records(data):
                if index > chosen:
                    break
                r = _record(obj, index, source, goals)
                gold.add(r.id, r.answer)
                if len(first) < SHOWN_CASES:
                    first.append(r.id)
                yield {
                    "id": r.id,
                    "goal": r.goal,
                    "tags": ["taskbench", domain, *([r.kind] if r.kind else [])],
                    "reference": r.reference,
                }

        stage_suite(staged, name, doc, cases(), header)
        files = staged.commit()
    return ImportResult(
        suite=name,
        suite_path=root / "evals" / f"{name}.yaml",
        model=TASKBENCH_GOLD_MODEL,
        case_count=chosen,
        first_cases=tuple(first),
        recording_count=gold.count,
        files=tuple(files),
        skipped=total - chosen,
    )


def _domain(path: Path) -> str:
    """``huggingface`` for ``data_huggingface/data.json`` or ``huggingface.jsonl``."""
    stem = path.stem if path.stem not in ("data", "gold") else path.parent.name
    return stem.removeprefix("data_") or "data"


def _read_json(path: Path) -> Any:
    try:
        return parse_json(read_data_text(path), source=str(path))
    except PlanLoadError as exc:
        raise InputError(exc.what, source=str(path), location=exc.location) from None


def _read_records(data: DataFile) -> Iterator[tuple[int, Any]]:
    """``(number from 1, record)`` of a JSON Lines file (one a line), of a JSON array, or the
    one record of a file holding a single JSON object, read a record at a time."""
    first = data.first_byte()
    if not first:
        raise InputError("the TaskBench file is empty", source=data.source)
    try:
        if first == b"[":  # a list (lines of lists are not records either way)
            yield from enumerate(data.list_items(), 1)
        elif _is_json_lines(data):
            for index, (number, line) in enumerate(data.lines(max_bytes=MAX_DATA_BYTES), 1):
                yield index, parse_json(_text(line, data), source=data.source, first_line=number)
        else:
            value = data.whole()
            yield from enumerate(value if isinstance(value, list) else [value], 1)
    except PlanLoadError as exc:
        raise InputError(
            f"not a TaskBench file: {exc.what}",
            source=data.source,
            location=exc.location,
            hint="a TaskBench data file holds one JSON record a line",
        ) from None


def _is_json_lines(data: DataFile) -> bool:
    """The rule of ``jsonl_lines``, on the first two non-empty lines: the first is a whole
    JSON value and the second starts like JSON (``{`` or ``[``)."""
    head = []
    for _number, line in data.lines(max_bytes=MAX_DATA_BYTES):
        head.append(line.strip())
        if len(head) == 2:
            break
    if len(head) < 2 or head[1][:1] not in (b"{", b"["):
        return False
    try:
        text = head[0].decode("utf-8")
        _, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):  # not UTF-8 or JSON, an int past 4,300 digits
        return False
    return end == len(text)


def _text(line: bytes, data: DataFile) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", source=data.source) from None


def _requests(path: Path) -> dict[str, str]:
    goals: dict[str, str] = {}
    for index, obj in _read_records(DataFile(path, what="the requests file")):
        if isinstance(obj, dict) and isinstance(obj.get("user_request"), str):
            goals[str(obj.get("id"))] = obj["user_request"]
        else:
            raise InputError(
                "expected {'id', 'user_request'}", source=str(path), location=f"record {index}"
            )
    return goals


def _record(obj: Any, index: int, source: str, goals: dict[str, str]) -> _Record:
    where = f"record {index}"
    if not isinstance(obj, dict) or not isinstance(obj.get("task_nodes"), list):
        raise InputError(
            "not a TaskBench record: expected an object with a 'task_nodes' list",
            source=source,
            location=where,
        )
    raw_id = obj.get("id")
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool):
        raise InputError("the record has no 'id'", source=source, location=where)
    record_id = check_name(str(raw_id), what="record id", source=f"{source}: {where}")
    where = f"record {index} ({record_id})"
    goal = obj.get("user_request", goals.get(record_id))
    if not isinstance(goal, str) or not goal.strip():
        raise InputError(
            "the record has no 'user_request'",
            source=source,
            location=where,
            hint="pass --requests user_requests.json to take the goals from there",
        )
    plan = {key: obj[key] for key in _PLAN_KEYS if key in obj}
    kind = obj.get("type") if isinstance(obj.get("type"), str) else None
    reference = {key: obj[key] for key in ("task_nodes", "task_links", "type") if key in obj}
    answer = json.dumps(plan, ensure_ascii=False)
    return _Record(record_id, goal.strip(), kind, answer, reference)


def _suite_doc(
    name: str, domain: str, path: Path, chosen: int, total: int, dependency: str
) -> tuple[dict[str, Any], str]:
    """The suite document without its cases, and the header comment of the suite file."""
    count = f"all {total} records" if chosen == total else f"the first {chosen} of {total}"
    description = (
        f"TaskBench {domain} gold plans ({count} of {path.name}), recorded as the dataset "
        f"model {TASKBENCH_GOLD_MODEL}. Source: {TASKBENCH_ATTRIBUTION}."
    )
    doc: dict[str, Any] = {
        "suite": name,
        "description": description,
        "prompt": f"prompts/{name}.md",
        "registry": f"registries/{name}.json",
        "plan_format": "taskbench",
        "samples": 1,
        "metrics": {"families": ["taskbench"], "taskbench_dependency": dependency},
        "models": [
            {"id": TASKBENCH_GOLD_MODEL, "provider": "dataset", "model": TASKBENCH_GOLD_MODEL}
        ],
    }
    limit = f" --limit {chosen}" if chosen < total else ""
    header = (
        f"# Generated by `planeval import taskbench {path.name} --suite {name}{limit}`. "
        "Re-import rather than edit.\n"
    )
    return doc, header


def _license_note(path: Path, tools: Path, name: str) -> str:
    text = (
        f"The recordings under plan_fixtures/{name}/ are the gold plans of\n"
        f"{TASKBENCH_ATTRIBUTION}, imported from {path.name}.\n"
    )
    for folder in (path.parent, tools.parent, path.parent.parent):
        license_file = folder / "LICENSE"
        if license_file.is_file():
            return text + "\n" + license_file.read_text(encoding="utf-8")
    return text
