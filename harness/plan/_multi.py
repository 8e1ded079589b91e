"""Files that hold several plans: JSON Lines and JSON arrays of plan records.

Each plan of such a file is reported as ``FILE#<label>``: the record's ``id`` (else its
``plan_id``), else its 1-based line number (JSON Lines) or position (arrays). When two records
share an id, the later ones are labelled ``<id>@<position>`` so that every label is unique.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from harness._errors import PlanLoadError
from harness.plan._model import Plan
from harness.plan._taskbench_record import TaskBenchRecord

__all__ = ["Document", "is_record_list", "jsonl_lines", "label_of", "labelled"]

Document = tuple[str | None, dict[str, Any] | Plan | PlanLoadError]
"""A plan document found in an input: (item label or None, canonical dict, a plan an adapter
built directly, or the error)."""

_RECORD_KEYS = ("tasks", "task_nodes", "conversations")


def jsonl_lines(text: str) -> list[tuple[int, str]] | None:
    """The non-empty ``(line number, line)`` pairs when ``text`` is JSON Lines, else None.

    JSON Lines: the first non-empty line is a complete JSON value on its own and another
    non-empty line starts like JSON (``{`` or ``[``). Every non-empty line is then a record,
    including the damaged ones (each becomes its own unusable entry).
    """
    lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    if len(lines) < 2 or not any(line.lstrip()[:1] in ("{", "[") for _, line in lines[1:]):
        return None
    first = lines[0][1].strip()
    try:
        _, end = json.JSONDecoder().raw_decode(first)
    except (ValueError, RecursionError):  # not JSON, an int past 4,300 digits, too deep
        return None
    return lines if end == len(first) else None


def is_record_list(value: Any) -> bool:
    """True for a JSON array whose items are plan records (canonical, TaskBench, WorfBench)."""
    return isinstance(value, list) and any(_is_record(item) for item in value)


def _is_record(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    if any(key in item for key in _RECORD_KEYS):
        return True
    result = item.get("result")
    return isinstance(result, dict) and "task_nodes" in result


def labelled(
    values: Iterable[tuple[int, Any]], seen: set[str] | None = None
) -> Iterator[tuple[str, Any]]:
    """``(label, value)`` for ``(position, value)`` pairs: id, else plan_id, else position.

    Lazy, so that a streamed file is labelled as it is read (only the labels seen are kept;
    ``seen`` holds them when the file's values are labelled in more than one call).
    """
    seen = set() if seen is None else seen
    for position, value in values:
        yield label_of(position, value, seen), value


def label_of(position: int, value: Any, seen: set[str]) -> str:
    """The label of the value at ``position`` (see ``labelled``), added to ``seen``."""
    label = _own_label(value) or str(position)
    if label in seen:
        label = f"{label}@{position}"
    seen.add(label)
    return label


def _own_label(value: Any) -> str | None:
    if isinstance(value, Plan | TaskBenchRecord):
        return value.plan_id.strip() or None if value.plan_id else None
    if not isinstance(value, dict):
        return None
    for key in ("id", "plan_id"):
        raw = value.get(key)
        if isinstance(raw, str | int) and not isinstance(raw, bool) and str(raw).strip():
            return str(raw).strip()
    return None
