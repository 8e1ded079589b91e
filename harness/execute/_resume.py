"""Deciding what a resume restores: plan identity and structure, task matching, ``from``,
and the attempts budget carried over from earlier executions."""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness._errors import JournalError
from harness.execute._graph import TaskGraph
from harness.execute._structure import PlanChanges, compare_structure, plan_structure
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
    spent: dict[str, int] = field(default_factory=dict)
    """Attempts counted against the total budget (since the last reset), by plan task id."""
    reset_attempts: tuple[str, ...] = ()
    """Tasks whose total budget this resume resets (``from`` closure, ``reset_attempts``)."""
    structure: dict[str, Any] = field(default_factory=dict)
    """The plan's structure (digest and task fingerprints) as the journal records it."""
    changed: dict[str, list[str]] = field(default_factory=dict)
    """With ``force`` on a changed structure: tasks added, removed and changed."""
    invalidated: tuple[str, ...] = ()
    """Journalled successes not restored because the task or something upstream changed."""
    in_doubt: tuple[str, ...] = ()
    """Tasks run again because damage hides their state (``state.suspect``) or that of a
    task upstream; their total budget is not reset (only ``from`` and ``reset_attempts``
    reset it)."""


def decide_resume(
    plan: Plan,
    graph: TaskGraph,
    state: ReplayState | None,
    *,
    from_task: str | None,
    force: bool,
    source: str,
    reset_attempts: bool = False,
) -> ResumeDecision:
    """Match the journal to the plan and apply ``from``.

    A task's journalled success is restored only when the task and everything upstream of
    it are unchanged (by fingerprint) since the journal recorded them.

    Raises:
        JournalError: the journal belongs to another plan or another structure (and not
            ``force``), or ``from`` names no task or several.
    """
    structure = plan_structure(plan)
    changes = PlanChanges()
    forced = False
    if state is not None and state.task_fingerprints is not None:
        changes = compare_structure(state.task_fingerprints, plan, structure["tasks"])
    other_id = state is not None and state.plan_id is not None and state.plan_id != plan.identity
    if other_id or changes:
        if not force:
            raise _refusal(plan, state, changes, source)
        forced = True
    start = resolve_task(plan, from_task, source=source) if from_task is not None else None
    rerun = frozenset(graph.downstream([start])) if start is not None else frozenset()
    if state is None:
        return ResumeDecision(
            (), {}, {}, from_task=start, rerun=rerun, forced=forced, structure=structure
        )
    # Damage hides these tasks' state: they and everything fed by them run again.
    doubt = frozenset(graph.downstream([t for t in state.suspect if t in graph.dependents]))
    touched = frozenset(graph.downstream([*changes.added, *changes.changed]))

    plan_ids = set(plan.task_ids)
    by_description = _unique_journal_descriptions(state, plan_ids)
    plan_descriptions = Counter(t.description for t in plan.tasks)
    restored: list[str] = []
    outputs: dict[str, Any] = {}
    attempts: dict[str, int] = {}
    spent: dict[str, int] = {}
    reset: list[str] = []
    invalidated: list[str] = []
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
        used = record.attempts_since_reset
        if used and (reset_attempts or task.id in rerun):
            reset.append(task.id)
            used = 0
        spent[task.id] = used
        if record.status != "succeeded" or task.id in rerun:
            continue
        if task.id in doubt:
            continue
        if task.id in touched:
            invalidated.append(task.id)
            continue
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
        spent=spent,
        reset_attempts=tuple(reset),
        structure=structure
        if (changes or state.task_fingerprints is None)
        else {"digest": structure["digest"]},
        changed=changes.to_dict() if changes else {},
        invalidated=tuple(invalidated),
        in_doubt=tuple(t for t in graph.topological if t in doubt),
    )


def _refusal(
    plan: Plan, state: ReplayState | None, changes: PlanChanges, source: str
) -> JournalError:
    assert state is not None
    if changes:
        what = f"the plan's structure changed since the journal was written: {changes.describe()}"
    else:
        what = f"the journal belongs to plan {state.plan_id!r}, not to {plan.identity!r}"
    return JournalError(
        what,
        source=source,
        hint="resume with the plan that wrote it, start a new journal, or pass --force to "
        "reuse the successes of tasks that, with everything upstream, are unchanged",
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
