"""Scoring one answer against one reference plan: ``score_plan`` (behind ``planeval score``).

The metric families that apply follow the reference: a WorfBench workflow gives the WorfBench
metrics, a TaskBench record the TaskBench ones, a canonical plan both. An answer the family's
reader cannot read is ``unparseable``: under the ``zero`` convention (WorfBench's) it scores 0
(TaskBench metrics: as an empty plan against the gold), under ``exclude`` (TaskBench's) it has
no values and is left out of every mean.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from harness.metrics._matchers import EmbeddingMatcher, Matcher, TextMatcher
from harness.metrics._taskbench import (
    DependencyType,
    TaskbenchGold,
    TaskbenchSample,
    ToolCatalogue,
    UnscorableError,
    read_taskbench_gold,
    taskbench_sample,
)
from harness.metrics._views import (
    Source,
    infer_dependency,
    reference_family,
    taskbench_record,
    worfgraph,
)
from harness.metrics._worfbench import WorfGraph, worfbench_metrics
from harness.plan import Plan

__all__ = [
    "CONVENTIONS",
    "FAMILIES",
    "Convention",
    "PlanScore",
    "Reference",
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


@dataclass(frozen=True, slots=True, eq=False)
class Reference:
    """A reference plan read once, to score any number of answers against it: what each
    metric family needs of the gold (its WorfBench workflow, its TaskBench gold per dependency
    type) is computed on first use and kept. ``score_plan`` takes it in place of the source.
    Treat it, and the source it was read from, as immutable.

    It also remembers the scores of the last ``remember`` distinct answer texts (64 by
    default, a case's models x samples in most runs; about 0.5 KB each; forgotten all at once
    when full; 0 turns it off): a run scores every model and sample of a case against one
    reference, and an answer seen before (a replayed sample, another model giving the same
    text) is not scored again. A score depends only on the answer text, the reference and the
    options, so a remembered score is the score. Answers given as JSON objects or plans, and
    matchers other than planeval's own, are always scored."""

    source: Source
    families: tuple[str, ...]
    """The metric families the reference supports (``reference_family``)."""
    worfbench_gold: WorfGraph | None
    """The WorfBench workflow of the reference, or None."""
    remember: int = 64
    """How many distinct answer texts' scores are kept."""
    _taskbench: dict[DependencyType | None, TaskbenchGold | str] = field(
        default_factory=dict, init=False, repr=False
    )
    _scored: dict[str, tuple[Any, ...]] = field(default_factory=dict, init=False, repr=False)
    _scored_under: list[tuple[tuple[Any, ...] | None, int]] = field(
        default_factory=lambda: [(None, 0)], init=False, repr=False
    )
    """The options the kept scores are for, and their generation (one list item, replaced
    whole)."""
    _keeping: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @classmethod
    def read(cls, source: Source, *, remember: int = 64) -> Reference:
        """Read ``source`` (model text, a JSON object or a ``Plan``); never raises (a reference
        no metric reads has no families). ``remember``: see the class."""
        families = reference_family(source)
        gold = worfgraph(source) if "worfbench" in families else None
        return cls(source, families, gold, remember)

    def _remembered(self, answer: str, options: tuple[Any, ...]) -> PlanScore | None:
        """The score of ``answer`` under ``options``, when it is remembered (a new object:
        each caller gets its own ``metrics`` dict)."""
        kept = self._scored.get(answer)
        if kept is None:
            return None
        kept_options, generation = self._scored_under[0]
        if kept[0] != generation or kept_options != options:
            return None
        _, status, names, values, families, detail, notes, packed = kept
        metrics = dict(zip(names, values, strict=True))
        sample = None if packed is None else _unpack_sample(packed)
        return PlanScore(status, metrics, families, detail, notes, sample)

    def _keep(self, answer: str, options: tuple[Any, ...], score: PlanScore) -> None:
        """Remember ``score`` for ``answer`` under ``options``.

        Scores are kept for one set of options at a time (a run scores with one); all are
        forgotten when the options change or ``remember`` answers are kept. Each entry holds
        the generation of the options it was scored under, so a thread scoring with other
        options never reads it. Entries are tuples of strings and numbers as far as they can
        be: the garbage collector stops walking such a tuple after its next pass, and every
        full collection walks every object it still follows."""
        if self.remember <= 0:
            return
        sample = score.taskbench
        with self._keeping:
            kept_options, generation = self._scored_under[0]
            if kept_options != options or len(self._scored) >= self.remember:
                self._scored.clear()
                generation += 1
                self._scored_under[0] = (options, generation)
            self._scored[answer] = (
                generation,
                score.status,
                # names and values apart: the collector follows a dict for good
                _shared_names(tuple(score.metrics)),
                tuple(score.metrics.values()),
                score.families,
                score.detail,
                score.notes,
                None if sample is None else _pack_sample(sample),
            )

    def taskbench_gold(self, dependency: DependencyType | None) -> TaskbenchGold | str:
        """The reference read as TaskBench's gold (``dependency`` None: inferred from it), or
        why it cannot be (``reference: ...``)."""
        kept = self._taskbench.get(dependency)
        if kept is None:
            kept = self._taskbench[dependency] = self._read_taskbench(dependency)
        return kept

    def _read_taskbench(self, dependency: DependencyType | None) -> TaskbenchGold | str:
        raw = _as_dict(self.source)
        native = "task_nodes" in raw
        mode: DependencyType = dependency or (infer_dependency(raw) if native else "temporal")
        record = taskbench_record(self.source, mode)
        if record is None:
            return "reference: not a TaskBench record"
        try:
            return read_taskbench_gold(record, mode)
        except UnscorableError as exc:
            return f"reference: {exc}"


_METRIC_NAMES: dict[tuple[str, ...], tuple[str, ...]] = {}


def _shared_names(names: tuple[str, ...]) -> tuple[str, ...]:
    """One tuple for each distinct sequence of metric names (a handful), shared by every
    remembered score that has it."""
    return _METRIC_NAMES.setdefault(names, names)


def _pack_sample(sample: TaskbenchSample) -> tuple[Any, ...]:
    """A TaskBench sample with the prediction's sets as tuples (the gold's sets are the gold's
    own, shared)."""
    return (
        sample.gold_nodes,
        tuple(sample.pred_nodes),
        sample.gold_links,
        tuple(sample.pred_links),
        sample.gold_arg_names,
        tuple(sample.pred_arg_names),
        sample.gold_arg_values,
        tuple(sample.pred_arg_values),
        sample.ed_ratio,
        sample.split,
        sample.n_tools,
        sample.notes,
    )


def _unpack_sample(packed: tuple[Any, ...]) -> TaskbenchSample:
    (gn, pn, gl, pl, gan, pan, gav, pav, ed_ratio, split, n_tools, notes) = packed
    return TaskbenchSample(
        gn,
        frozenset(pn),
        gl,
        frozenset(pl),
        gan,
        frozenset(pan),
        gav,
        frozenset(pav),
        ed_ratio,
        split,
        n_tools,
        notes,
    )


@lru_cache(maxsize=1024)
def _text_reference(text: str) -> Reference:
    return Reference.read(text)


def _read_reference(source: Source) -> Reference:
    """A reference given as text is read once (text is immutable); any other is read anew."""
    return _text_reference(source) if isinstance(source, str) else Reference.read(source)


def score_plan(
    answer: Source,
    reference: Source | Reference,
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
        reference: the gold plan, in the same forms, or read beforehand (``Reference.read``)
            to score many answers against it; a reference given as text is read once and
            kept (the last 1,024).
        families: restrict to these families (``taskbench``, ``worfbench``).
        matcher: WorfBench node matcher (default: normalized text equality).
        catalogue: TaskBench tool catalogue (default: the names seen in the two plans).
        dependency: TaskBench ``resource`` or ``temporal`` (default: inferred from the gold).
        unparseable: ``zero`` or ``exclude``.

    Returns:
        The score; never raises for a bad answer or reference (see ``PlanScore.status``).
    """
    gold = reference if isinstance(reference, Reference) else _read_reference(reference)
    pure = matcher is None or type(matcher) in _PURE_MATCHERS
    if not (isinstance(answer, str) and pure and gold.remember > 0):
        return _score(answer, gold, families, matcher, catalogue, dependency, unparseable)
    matcher_key = matcher if type(matcher) is EmbeddingMatcher else "text"
    chosen = None if families is None else tuple(families)
    options = (chosen, matcher_key, catalogue, dependency, unparseable)
    score = gold._remembered(answer, options)
    if score is None:
        score = _score(answer, gold, families, matcher, catalogue, dependency, unparseable)
        gold._keep(answer, options, score)
    return score


_PURE_MATCHERS = (TextMatcher, EmbeddingMatcher)
"""Matchers whose similarities depend only on the texts (so a score can be remembered)."""


def _score(
    answer: Source,
    gold: Reference,
    families: Sequence[str] | None,
    matcher: Matcher | None,
    catalogue: ToolCatalogue | None,
    dependency: DependencyType | None,
    unparseable: Convention,
) -> PlanScore:
    supported = gold.families
    chosen = supported if families is None else tuple(f for f in supported if f in families)
    if not chosen:
        what = "no metric family applies" if supported else "not a plan any metric reads"
        return PlanScore("unusable_reference", detail=f"the reference is {what}")
    metrics: dict[str, float] = {}
    notes: list[str] = []
    problems: list[str] = []
    sample = None
    for family in chosen:
        if family == "worfbench":
            problem = _worfbench(answer, gold, matcher, metrics, notes)
        else:
            problem, sample = _taskbench(answer, gold, catalogue, dependency, metrics, notes)
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
    reference: Reference,
    matcher: Matcher | None,
    metrics: dict[str, float],
    notes: list[str],
) -> str | None:
    gold = reference.worfbench_gold
    if gold is None:
        return "reference: not a WorfBench workflow"
    pred = worfgraph(answer)
    if pred is None:
        metrics.update(_WORF_ZERO)
        return "no WorfBench workflow in the answer (no 'Node' or no edge)"
    metrics.update(worfbench_metrics(pred, gold, matcher, notes))
    return None


def _taskbench(
    answer: Source,
    reference: Reference,
    catalogue: ToolCatalogue | None,
    dependency: DependencyType | None,
    metrics: dict[str, float],
    notes: list[str],
) -> tuple[str | None, TaskbenchSample | None]:
    gold = reference.taskbench_gold(dependency)
    if isinstance(gold, str):
        return gold, None
    pred = taskbench_record(answer, gold.dependency)
    if pred is None:
        problem = "no TaskBench plan in the answer (no JSON object with task_nodes)"
    else:
        try:
            sample = taskbench_sample(pred, gold, dependency=gold.dependency, catalogue=catalogue)
        except UnscorableError as exc:
            problem = f"TaskBench drops this answer: {exc}"
        else:
            metrics.update(sample.as_metrics())
            notes += sample.notes
            return None, sample
    empty: dict[str, Any] = {"task_nodes": [], "task_links": []}
    zero = taskbench_sample(empty, gold, dependency=gold.dependency, catalogue=catalogue)
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
