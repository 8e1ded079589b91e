"""Scoring one answer against one reference plan: ``score_plan`` (behind ``planeval score``).

The metric families that apply follow the reference: a WorfBench workflow gives the WorfBench
metrics, a TaskBench record the TaskBench ones, a canonical plan both. An answer the family's
reader cannot read is ``unparseable``: under the ``zero`` convention (WorfBench's) it scores 0
(TaskBench metrics: as an empty plan against the gold), under ``exclude`` (TaskBench's) it has
no values and is left out of every mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.metrics._matchers import Matcher
from harness.metrics._taskbench import (
    DependencyType,
    TaskbenchSample,
    ToolCatalogue,
    UnscorableError,
    taskbench_sample,
)
from harness.metrics._views import (
    Source,
    infer_dependency,
    reference_family,
    taskbench_record,
    worfgraph,
)
from harness.metrics._worfbench import score_worfbench
from harness.plan import Plan

__all__ = [
    "CONVENTIONS",
    "FAMILIES",
    "Convention",
    "PlanScore",
    "ScoreStatus",
    "score_plan",
]

Convention = Literal["zero", "exclude"]
CONVENTIONS: tuple[Convention, ...] = ("zero", "exclude")
"""How an unparseable answer counts: 0 (WorfBench's ``node_eval.py``) or left out of every
denominator (TaskBench's ``evaluate.py``)."""
FAMILIES: tuple[str, ...] = ("taskbench", "worfbench")
ScoreStatus = Literal["scored", "unparseable", "unusable_reference"]
_WORF_ZERO = {
    f"worfbench.{kind}_{part}": 0.0
    for part in ("chain", "graph")
    for kind in ("f1", "precision", "recall")
}


@dataclass(frozen=True, slots=True)
class PlanScore:
    """The metrics of one answer against one reference."""

    status: ScoreStatus
    """``scored``; ``unparseable`` (no plan for a family's reader); ``unusable_reference``."""
    metrics: dict[str, float] = field(default_factory=dict)
    """Per-answer values by name (``worfbench.f1_chain``, ``taskbench.node_f1``, ...). For an
    unparseable answer: the zero-convention values (empty under ``exclude``)."""
    families: tuple[str, ...] = ()
    """The metric families that were applied."""
    detail: str | None = None
    """Why the answer is unparseable or the reference unusable."""
    notes: tuple[str, ...] = ()
    """Where planeval scored something the official script would crash on or drop."""
    taskbench: TaskbenchSample | None = None
    """What the answer adds to TaskBench's corpus figures (micro / macro F1, ...)."""

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON form (``planeval score --format json``, results rows)."""
        out: dict[str, Any] = {
            "status": self.status,
            "families": list(self.families),
            "metrics": dict(self.metrics),
        }
        if self.detail:
            out["detail"] = self.detail
        if self.notes:
            out["notes"] = list(self.notes)
        if self.taskbench is not None:
            out["taskbench"] = self.taskbench.to_dict()
        return out


def score_plan(
    answer: Source,
    reference: Source,
    *,
    families: Sequence[str] | None = None,
    matcher: Matcher | None = None,
    catalogue: ToolCatalogue | None = None,
    dependency: DependencyType | None = None,
    unparseable: Convention = "zero",
) -> PlanScore:
    """Score ``answer`` against ``reference`` with every metric family the reference supports.

    Args:
        answer: model text, a JSON object or a ``Plan``.
        reference: the gold plan, in the same forms.
        families: restrict to these families (``taskbench``, ``worfbench``).
        matcher: WorfBench node matcher (default: normalized text equality).
        catalogue: TaskBench tool catalogue (default: the names seen in the two plans).
        dependency: TaskBench ``resource`` or ``temporal`` (default: inferred from the gold).
        unparseable: ``zero`` or ``exclude``.

    Returns:
        The score; never raises for a bad answer or reference (see ``PlanScore.status``).
    """
    supported = reference_family(reference)
    chosen = tuple(f for f in supported if families is None or f in families)
    if not chosen:
        what = "no metric family applies" if supported else "not a plan any metric reads"
        return PlanScore("unusable_reference", detail=f"the reference is {what}")
    metrics: dict[str, float] = {}
    notes: list[str] = []
    problems: list[str] = []
    sample = None
    for family in chosen:
        if family == "worfbench":
            problem = _worfbench(answer, reference, matcher, metrics, notes)
        else:
            problem, sample = _taskbench(answer, reference, catalogue, dependency, metrics, notes)
        if problem is not None:
            problems.append(problem)
    gold_problems = [p for p in problems if p.startswith("reference")]
    if gold_problems:
        return PlanScore("unusable_reference", families=chosen, detail=gold_problems[0])
    if problems:
        kept = metrics if unparseable == "zero" else {}
        return PlanScore("unparseable", kept, chosen, "; ".join(problems), tuple(notes), sample)
    return PlanScore("scored", metrics, chosen, None, tuple(notes), sample)


def _worfbench(
    answer: Source,
    reference: Source,
    matcher: Matcher | None,
    metrics: dict[str, float],
    notes: list[str],
) -> str | None:
    gold = worfgraph(reference)
    if gold is None:
        return "reference: not a WorfBench workflow"
    pred = worfgraph(answer)
    if pred is None:
        metrics.update(_WORF_ZERO)
        return "no WorfBench workflow in the answer (no 'Node' or no edge)"
    scores = score_worfbench(pred, gold, matcher)
    metrics.update(scores.as_metrics())
    notes += scores.notes
    return None


def _taskbench(
    answer: Source,
    reference: Source,
    catalogue: ToolCatalogue | None,
    dependency: DependencyType | None,
    metrics: dict[str, float],
    notes: list[str],
) -> tuple[str | None, TaskbenchSample | None]:
    raw = _as_dict(reference)
    native = "task_nodes" in raw
    mode: DependencyType = dependency or (infer_dependency(raw) if native else "temporal")
    gold = taskbench_record(reference, mode)
    if gold is None:
        return "reference: not a TaskBench record", None
    pred = taskbench_record(answer, mode)
    problem = None
    if pred is None:
        problem = "no TaskBench plan in the answer (no JSON object with task_nodes)"
    else:
        try:  # the gold is read first: an unusable gold raises before the prediction is read
            sample = taskbench_sample(pred, gold, dependency=mode, catalogue=catalogue)
        except UnscorableError as exc:
            if exc.side == "gold":
                return f"reference: {exc}", None
            problem = f"TaskBench drops this answer: {exc}"
        else:
            metrics.update(sample.as_metrics())
            notes += sample.notes
            return None, sample
    empty: dict[str, Any] = {"task_nodes": [], "task_links": []}
    try:
        zero = taskbench_sample(empty, gold, dependency=mode, catalogue=catalogue)
    except UnscorableError as exc:
        return f"reference: {exc}", None
    metrics.update(zero.as_metrics())
    return problem, zero


def _as_dict(source: Source) -> dict[str, Any]:
    if isinstance(source, Plan):
        return {}
    if isinstance(source, dict):
        return source
    if isinstance(source, str):
        from harness.metrics._views import find_json

        return find_json(source) or {}
    return {}
