"""Deciding what a resume restores: plan identity, task matching and ``from``."""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness._errors import JournalError
from harness.execute._graph import TaskGraph
from harness.journal import ReplayState
from harness.plan import Plan

__all__ = ["ResumeDecision", "decide_resume", "resolve_task"]


@dataclass(frozen=True, slots=True)
class ResumeDecision:
    """What a resume keeps from the journal and what it runs again."""

    restored: tuple[str, ...]
    """Plan task ids whose journalled success is reused (never executed again)."""
    outputs: dict[str, Any]
    """Outputs of the restored tasks, by plan task id."""
    attempts: dict[str, int]
    """Attempts already journalled, by plan task id (attempt numbers continue from here)."""
    matched_by_description: dict[str, str] = field(default_factory=dict)
    """Plan task id -> journal task id, for tasks matched by their unique description."""
    from_task: str | None = None
    """The plan task id ``from`` resolved to."""
    rerun: frozenset[str] = frozenset()
    """Tasks dropped from the restored set by ``from`` (that task and its downstream)."""
    forced: bool = False
    """True when the journal belonged to another plan and ``force`` accepted it."""


def decide_resume(
    plan: Plan,
    graph: TaskGraph,
    state: ReplayState | None,
    *,
    from_task: str | None,
    force: bool,
    source: str,
) -> ResumeDecision:
    """Match the journal to the plan and apply ``from``.

    Raises:
        JournalError: the journal belongs to another plan (and not ``force``), or ``from``
            names no task or several.
    """
    forced = False
    if state is not None and state.plan_id is not None and state.plan_id != plan.identity:
        if not force:
            raise JournalError(
                f"the journal belongs to plan {state.plan_id!r}, not to {plan.identity!r}",
                source=source,
                hint="resume with the plan that wrote it, start a new journal, or pass "
                "--force to reuse its completed tasks anyway",
            )
        forced = True
    start = resolve_task(plan, from_task, source=source) if from_task is not None else None
    rerun = frozenset(graph.downstream([start])) if start is not None else frozenset()
    if state is None:
        return ResumeDecision((), {}, {}, from_task=start, rerun=rerun, forced=forced)
    doubtful = [t for t in state.suspect if t in graph.dependents]
    if doubtful:  # damage left two outputs: the task and everything fed by it run again
        rerun = rerun | frozenset(graph.downstream(doubtful))

    plan_ids = set(plan.task_ids)
    by_description = _unique_journal_descriptions(state, plan_ids)
    plan_descriptions = Counter(t.description for t in plan.tasks)
    restored: list[str] = []
    outputs: dict[str, Any] = {}
    attempts: dict[str, int] = {}
    renamed: dict[str, str] = {}
    for task in plan.tasks:
        journal_id: str | None = task.id if task.id in state.tasks else None
        if journal_id is None and task.description and plan_descriptions[task.description] == 1:
            journal_id = by_description.get(task.description)
            if journal_id is not None:
                renamed[task.id] = journal_id
        if journal_id is None:
            continue
        record = state.tasks[journal_id]
        attempts[task.id] = record.attempts
        if record.status == "succeeded" and task.id not in rerun:
            restored.append(task.id)
            outputs[task.id] = record.output
    return ResumeDecision(
        restored=tuple(restored),
        outputs=outputs,
        attempts=attempts,
        matched_by_description={k: v for k, v in renamed.items() if k in outputs},
        from_task=start,
        rerun=rerun,
        forced=forced,
    )


def _unique_journal_descriptions(state: ReplayState, plan_ids: set[str]) -> dict[str, str]:
    """Description -> journal task id, for descriptions only one unmatched task has."""
    counts: Counter[str] = Counter()
    owner: dict[str, str] = {}
    for record in state.tasks.values():
        if record.task_id in plan_ids or not record.description:
            continue
        counts[record.description] += 1
        owner[record.description] = record.task_id
    return {d: owner[d] for d, n in counts.items() if n == 1}


def resolve_task(plan: Plan, ref: str, *, source: str) -> str:
    """The plan task id a reference names: an id, or a description only one task has.

    Raises:
        JournalError: no task matches (the closest ids and descriptions are listed), or the
            description is shared by several tasks (their ids are listed).
    """
    if ref in plan.task_ids:
        return ref
    matches = [t.id for t in plan.tasks if t.description == ref]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise JournalError(
            f"--from {ref!r} is ambiguous: {len(matches)} tasks have that description",
            source=source,
            hint="name one by id: " + ", ".join(matches),
        )
    folded = [t.id for t in plan.tasks if t.description.casefold() == ref.casefold()]
    names = [*plan.task_ids, *(t.description for t in plan.tasks if t.description)]
    close = folded or difflib.get_close_matches(ref, names, n=5, cutoff=0.4)
    candidates = close or list(plan.task_ids[:10])
    raise JournalError(
        f"--from {ref!r} names no task of the plan",
        source=source,
        hint=("did you mean: " if close else "tasks: ") + ", ".join(repr(c) for c in candidates),
    )
