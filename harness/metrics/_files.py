"""A whole TaskBench predictions file against its gold file, as ``taskbench/evaluate.py`` scores
it (behind ``planeval score PRED --reference GOLD`` when both are JSON Lines with ids).

The script keeps the predictions whose ``id`` is a gold id (the intersection: the ``exclude``
convention), drops a prediction it cannot read ("Parsing Error": counted in ``all_samples``, in
no figure), and writes every group of ``--splits all --n_tools all --mode add``. Under ``zero``
every gold id counts: one without a prediction line, or whose prediction cannot be read, is
scored as an empty plan against its gold.

A record whose scoring fails for any other reason (a defect, never a property of the data) is
an ``error`` record naming its id, and every other record is kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from harness._errors import InputError
from harness.metrics._corpus import taskbench_breakdown
from harness.metrics._taskbench import (
    DependencyType,
    TaskbenchGold,
    TaskbenchSample,
    ToolCatalogue,
    UnscorableError,
    read_taskbench_gold,
    taskbench_sample,
)
from harness.metrics._views import infer_dependency

__all__ = [
    "FileScore",
    "RecordScore",
    "is_record_lines",
    "read_record_lines",
    "score_taskbench_file",
]

RecordStatus = Literal["scored", "dropped", "missing", "error"]
_EMPTY: dict[str, Any] = {"task_nodes": [], "task_links": []}


@dataclass(frozen=True, slots=True)
class RecordScore:
    """One gold id of a predictions file."""

    id: Any
    status: RecordStatus
    """``scored``; ``dropped`` (the script's "Parsing Error": the prediction or the gold
    cannot be read); ``missing`` (no prediction line: counted under ``zero`` only); ``error``
    (scoring failed; ``detail`` says how)."""
    sample: TaskbenchSample | None = None
    """What it adds to the figures (under ``zero`` an unreadable or missing prediction is an
    empty plan); None when it adds nothing."""
    detail: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileScore:
    """A predictions file scored against its gold file."""

    convention: str
    dependency: DependencyType
    prediction_ids: int
    """Distinct ids among the prediction lines."""
    gold_ids: int
    """Distinct ids among the gold lines."""
    matched: int
    """Prediction ids that are gold ids."""
    records: list[RecordScore]
    """One per gold id counted: the matched ones (``exclude``), every gold id (``zero``)."""
    groups: dict[str, dict[str, Any]]
    """The script's output: group (``overall_overall``, ``single_overall``, ``overall_3``,
    ...) -> figures, with the script's keys."""
    notes: list[str] = field(default_factory=list)
    """File-level notes (a repeated id, a catalogue taken from the files, ...)."""

    def counts(self) -> dict[str, int]:
        """Records per status."""
        out = {status: 0 for status in ("scored", "dropped", "missing", "error")}
        for record in self.records:
            out[record.status] += 1
        return out


def is_record_lines(text: str) -> bool:
    """Whether ``text`` reads as JSON Lines of records with an ``id`` (a predictions or gold
    file), judged by its first non-blank line."""
    for line in text.splitlines():
        if line.strip():
            try:
                value = json.loads(line)
            except ValueError:
                return False
            return isinstance(value, dict) and "id" in value
    return False


def read_record_lines(text: str, source: str) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` of each non-blank line.

    Raises:
        InputError: a line that is not a JSON object with an ``id`` (naming the line).
    """
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise InputError(
                f"not JSON ({exc})",
                source=source,
                location=f"line {number}",
                hint="give one JSON object a line",
            ) from None
        if not isinstance(value, dict) or "id" not in value:
            raise InputError(
                "not a JSON object with an 'id'",
                source=source,
                location=f"line {number}",
                hint='each line is one record: {"id": ..., "task_nodes": ...}',
            )
        out.append((number, value))
    return out


def _prediction_plan(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The plan of a prediction line: ``result`` as TaskBench's ``inference.py`` writes it, or
    the line itself (GNN4TaskPlan writes ``task_nodes`` at the top)."""
    result = record.get("result")
    if isinstance(result, dict) and "task_nodes" in result:
        return result
    if "task_nodes" in record:
        return record
    return None


def _hashable_id(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool) or value is None else repr(value)


def score_taskbench_file(
    predictions: Sequence[tuple[int, dict[str, Any]]],
    gold: Sequence[tuple[int, dict[str, Any]]],
    *,
    catalogue: ToolCatalogue | None = None,
    dependency: DependencyType | None = None,
    convention: str = "exclude",
    source: str = "<predictions>",
) -> FileScore:
    """Score prediction records against gold records, matched by ``id``.

    Args:
        predictions, gold: ``read_record_lines`` of each file. A repeated id keeps its last
            line, as the script's dict does.
        catalogue: ``tool_desc.json``; without it, the tool names of the gold and then of the
            predictions in order of first appearance (macro F1 then averages over those).
        dependency: ``resource`` or ``temporal``; default: inferred from the gold.
        convention: ``exclude`` (the script's) or ``zero``.

    Raises:
        InputError: no prediction id is a gold id (the message gives the counts).
    """
    notes: list[str] = []
    golds = _by_id(gold, "gold", notes)
    preds = _by_id(predictions, "prediction", notes)
    shared = [key for key in golds if key in preds]
    if not shared:
        raise InputError(
            f"no prediction id is a gold id ({len(preds)} prediction ids, {len(golds)} gold "
            "ids, 0 shared)",
            source=source,
            hint="score the predictions against the gold file of the same domain",
        )
    mode = dependency or _infer(golds.values())
    if catalogue is None:
        catalogue = _seen_catalogue(golds.values(), preds.values(), mode)
        notes.append(
            f"no --tools: the catalogue is the {len(catalogue.names)} tool names seen in the "
            "files (macro F1 averages over them, resource arguments citing a node get the "
            "output type 'other'); give tool_desc.json for the official figures"
        )
    keys = list(golds) if convention == "zero" else shared
    records = [
        _score_one(key, golds[key], preds.get(key), catalogue, mode, convention) for key in keys
    ]
    scored = [r.sample for r in records if r.sample is not None]
    unscored = [_group_of(golds[r.id]) for r in records if r.sample is None]
    groups = taskbench_breakdown(scored, unscored=unscored, tools=catalogue.names)
    return FileScore(
        convention=convention,
        dependency=mode,
        prediction_ids=len(preds),
        gold_ids=len(golds),
        matched=len(shared),
        records=records,
        groups=groups,
        notes=notes,
    )


def _by_id(
    lines: Sequence[tuple[int, dict[str, Any]]], what: str, notes: list[str]
) -> dict[Any, dict[str, Any]]:
    out: dict[Any, dict[str, Any]] = {}
    repeated = 0
    for _, record in lines:
        key = _hashable_id(record["id"])
        repeated += key in out
        out[key] = record
    if repeated:
        notes.append(f"{repeated} repeated {what} id(s): the last line of each counts")
    return out


def _infer(golds: Any) -> DependencyType:
    for record in golds:
        nodes = record.get("task_nodes")
        if isinstance(nodes, list) and any(
            isinstance(n, dict) and n.get("arguments") for n in nodes
        ):
            return infer_dependency(record)
    return "resource"


def _seen_catalogue(golds: Any, preds: Any, mode: DependencyType) -> ToolCatalogue:
    names: dict[str, None] = {}
    for record in [*golds, *(_prediction_plan(p) or {} for p in preds)]:
        for node in record.get("task_nodes") or ():
            task = node.get("task") if isinstance(node, dict) else None
            if isinstance(task, str):
                names.setdefault(task.replace("_", " ") if mode == "resource" else task)
    return ToolCatalogue(tuple(names))


def _group_of(gold: Mapping[str, Any]) -> tuple[str, int]:
    nodes = gold.get("task_nodes")
    split = gold.get("type")
    return (split if isinstance(split, str) else "", len(nodes) if isinstance(nodes, list) else 0)


def _score_one(
    key: Any,
    gold_record: dict[str, Any],
    prediction: dict[str, Any] | None,
    catalogue: ToolCatalogue,
    mode: DependencyType,
    convention: str,
) -> RecordScore:
    try:
        gold = read_taskbench_gold(gold_record, mode)
    except UnscorableError as exc:
        return RecordScore(key, "dropped", detail=f"the gold cannot be read: {exc}")
    except Exception as exc:  # one record's failure must never lose the file
        return _error(key, exc)
    try:
        if prediction is None:
            return _empty(key, gold, catalogue, "missing", "no prediction line", convention)
        plan = _prediction_plan(prediction)
        if plan is None:
            detail = "the prediction has no 'task_nodes' (nor 'result.task_nodes')"
            return _empty(key, gold, catalogue, "dropped", detail, convention)
        try:
            sample = taskbench_sample(plan, gold, dependency=mode, catalogue=catalogue)
        except UnscorableError as exc:
            return _empty(key, gold, catalogue, "dropped", str(exc), convention)
        return RecordScore(key, "scored", sample, notes=sample.notes)
    except Exception as exc:  # one record's failure must never lose the file
        return _error(key, exc)


def _empty(
    key: Any,
    gold: TaskbenchGold,
    catalogue: ToolCatalogue,
    status: RecordStatus,
    detail: str,
    convention: str,
) -> RecordScore:
    """An unreadable or missing prediction: nothing under ``exclude``, an empty plan under
    ``zero``."""
    if convention != "zero":
        return RecordScore(key, status, detail=detail)
    sample = taskbench_sample(_EMPTY, gold, dependency=gold.dependency, catalogue=catalogue)
    return RecordScore(key, status, sample, detail=detail + " (scored as an empty plan)")


def _error(key: Any, exc: Exception) -> RecordScore:
    return RecordScore(
        key, "error", detail=f"id {key!r}: scoring failed ({type(exc).__name__}: {exc})"
    )
