"""Deciding what a resume restores: plan identity and structure, task matching, ``from``,
and the attempts budget carried over from earlier executions."""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness._errors import JournalError
from harness.execute._context import READS
from harness.execute._graph import TaskGraph
from harness.execute._structure import (
    PlanChanges,
    compare_structure,
    inputs_digest,
    plan_structure,
    what_it_sees,
)
from harness.journal import ReplayState
from harness.plan import Plan, Task

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
    """Journalled successes not restored because what the task's agent would see changed:
    the task, the goal it reads, its inputs, or a task upstream (which runs again)."""
    reasons: dict[str, str] = field(default_factory=dict)
    """Why each invalidated task runs again, in words."""
    accepted: dict[str, dict[str, str]] = field(default_factory=dict)
    """With ``keep_outputs``: tasks restored although their definition or the goal changed,
    with what their agent would see now (journalled, so later resumes keep them)."""
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
    reads: frozenset[str] = READS,
    keep_outputs: bool = False,
) -> ResumeDecision:
    """Match the journal to the plan and apply ``from``.

    A task's journalled success is restored only when everything its agent saw is unchanged
    (the Make/Bazel rule): its structure fingerprint and that of everything upstream, every
    task upstream restored too, and, when the success recorded it (``sees``), the whole task,
    the goal (when the agent ``reads`` it) and its inputs. ``keep_outputs`` accepts a changed
    task or goal (not changed inputs).

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
    tasks = {t.id: t for t in plan.tasks}
    reasons: dict[str, str] = {}
    accepted: dict[str, dict[str, str]] = {}
    for task_id in graph.topological:  # upstream first: its decision is known
        task = tasks[task_id]
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
            reasons[task.id] = "the plan's structure changed it or a task upstream of it"
            continue
        upstream = next((p for p in graph.prerequisites[task.id] if p not in outputs), None)
        if upstream is not None:  # built from an output that is not the one kept
            invalidated.append(task.id)
            reasons[task.id] = f"{upstream}, upstream of it, runs again"
            continue
        why, edited = _what_changed(record.sees, task, plan.goal, reads, outputs)
        if why is not None:
            if not (edited and keep_outputs):
                invalidated.append(task.id)
                reasons[task.id] = why
                continue
            assert record.sees is not None
            accepted[task.id] = what_it_sees(task, plan.goal, reads, record.sees["inputs"])
        restored.append(task.id)
        outputs[task.id] = record.output
    order = {tid: i for i, tid in enumerate(plan.task_ids)}
    restored.sort(key=order.__getitem__)
    invalidated.sort(key=order.__getitem__)
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
        reasons={t: reasons[t] for t in invalidated},
        accepted=accepted,
        in_doubt=tuple(t for t in graph.topological if t in doubt),
    )


def _what_changed(
    sees: Any, task: Task, goal: str | None, reads: frozenset[str], outputs: dict[str, Any]
) -> tuple[str | None, bool]:
    """Why a success no longer matches what its agent would see, and whether that is an edit
    of the plan (``keep_outputs`` may accept it) rather than other inputs; (None, False) when
    it matches or the success recorded nothing (journals written before, the gem's)."""
    if not isinstance(sees, dict):
        return None, False
    inputs = inputs_digest({n.name: outputs.get(n.task) for n in task.needs})
    if sees.get("inputs") != inputs:
        return "its inputs are not the outputs it was built from", False
    now = what_it_sees(task, goal, reads, inputs)
    if sees.get("task") != now["task"]:
        return (
            "the task changed (its description, input, agent, capabilities or another field)",
            True,
        )
    if "goal" in sees and "goal" in now and sees["goal"] != now["goal"]:
        return "the plan's goal changed, and its agent reads the goal", True
    return None, False


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
