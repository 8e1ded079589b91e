"""The structural checks of a plain TaskBench record, computed on its graph of node positions.

``check_plan`` on a ``Plan`` is the general path. A plain TaskBench record line
(``harness.plan._taskbench_record``) is a graph of node positions whose tasks are
``node-0..node-n``, with every citation also a dependency; without a registry, most checks then
hold by construction (ids are unique, every dependency and need names a node, every need is a
direct dependency, no argument schema applies) and what is left is computed here in one pass
over integer indices: cycles (Kahn), isolated tasks, redundant dependencies and the task-count
band. The report equals ``check_plan``'s on the record's plan, message for message (a test
compares the two on real and generated records); its plan is built only when it is read.

A record this lane does not answer for (a registry to consult, no tasks or more than 64, a
cycle to name, a node that cites itself, an empty tool name or id) is given back as None: the
caller checks the built plan with ``check_plan``.

The report depends on nothing but the graph (task names and pointers are positions), and the
records of a big file repeat a few thousand graphs: ``RecordChecker`` computes each graph's
``CheckVerdict`` once and gives the same verdict for every record of that graph.
"""

from __future__ import annotations

from typing import Any

from harness.checks._report import CHECKS, CheckReport, CheckVerdict, Expectations, Violation
from harness.plan import Plan
from harness.plan._taskbench_record import TaskBenchRecord

__all__ = ["RecordChecker", "RecordReport", "check_taskbench_record"]

_ISOLATED = CHECKS["isolated_task"]
_REDUNDANT = CHECKS["redundant_dependency"]
_BAND = CHECKS["task_count_band"]
_SKIPPED = ("known_capabilities", "required_capabilities", "arguments_valid", "dataflow_types")
_MOST_TASKS = 64
"""Larger plans go to check_plan (the rounds of ``_ancestors`` are quadratic at worst)."""
_MEMO = 1 << 14
"""Graphs whose verdicts a ``RecordChecker`` keeps (forgotten all at once past this; a few
MiB at most)."""
_PLAN_SLOT: Any = CheckReport.__dict__["plan"]  # the slot behind CheckReport.plan


class RecordReport(CheckReport):
    """A ``CheckReport`` whose plan is built from the record's line when it is first read."""

    __slots__ = ("_count", "_ok", "_record")
    _count: int
    _ok: bool
    _record: TaskBenchRecord

    def __init__(
        self,
        record: TaskBenchRecord,
        violations: tuple[Violation, ...],
        outcomes: dict[str, str],
        ok: bool,
    ) -> None:
        object.__setattr__(self, "violations", violations)
        object.__setattr__(self, "outcomes", outcomes)
        object.__setattr__(self, "_record", record)
        object.__setattr__(self, "_count", len(record.tools))
        object.__setattr__(self, "_ok", ok)

    @property
    def plan(self) -> Plan:
        """The plan that was checked (built on first read)."""
        try:
            plan: Plan = _PLAN_SLOT.__get__(self)
            return plan
        except AttributeError:
            plan = self._record.plan()
            _PLAN_SLOT.__set__(self, plan)
            return plan

    @property
    def task_count(self) -> int:
        """Number of tasks in the plan."""
        return self._count

    @property
    def ok(self) -> bool:
        """True when no error-severity check failed (warnings allowed)."""
        return self._ok

    def __reduce__(
        self,
    ) -> tuple[type[CheckReport], tuple[Plan, tuple[Violation, ...], dict[str, str]]]:
        """Pickled (or copied) as the plain ``CheckReport`` it stands for, its plan built."""
        return CheckReport, (self.plan, self.violations, self.outcomes)


def base_outcomes(expect: Expectations) -> dict[str, str]:
    """Each check's outcome for a record with no violation, under ``expect`` (no registry)."""
    outcomes = dict.fromkeys(CHECKS, "pass")
    for check in _SKIPPED:
        outcomes[check] = "skip"
    outcomes["reaches_end"] = "skip"
    if expect.min_tasks is None and expect.max_tasks is None:
        outcomes["task_count_band"] = "skip"
    return outcomes


class RecordChecker:
    """``check_taskbench_record`` for one run's expectations, each graph's verdict computed
    once (records are keyed by their dependency lists, all the checks read)."""

    def __init__(self, expect: Expectations) -> None:
        self._expect = expect
        self._outcomes = base_outcomes(expect)
        self._known: dict[tuple[tuple[int, ...], ...], CheckVerdict | None] = {}

    def verdict(self, record: TaskBenchRecord) -> CheckVerdict | None:
        """The verdict ``check_plan`` gives the record's plan without a registry, or None when
        this lane does not answer for the record."""
        if not _answers(record):
            return None
        key = tuple(map(tuple, record.deps))
        known = self._known
        try:
            return known[key]
        except KeyError:
            verdict = _verdict(record.deps, self._expect, self._outcomes)
        if len(known) >= _MEMO:
            known.clear()
        known[key] = verdict
        return verdict

    def report(self, record: TaskBenchRecord) -> RecordReport | None:
        """``verdict`` as the record's report (its plan built when read), or None."""
        verdict = self.verdict(record)
        if verdict is None:
            return None
        return RecordReport(record, verdict.violations, dict(verdict.outcomes), verdict.ok)


def check_taskbench_record(
    record: TaskBenchRecord, expect: Expectations, outcomes: dict[str, str]
) -> RecordReport | None:
    """The report ``check_plan`` gives the record's plan without a registry, or None when this
    lane does not answer for the record.

    Args:
        record: the record line's graph.
        expect: the expectations (``needs`` changes nothing here: every need is a dependency).
        outcomes: ``base_outcomes(expect)``, computed once per run; copied, never changed.
    """
    verdict = _verdict(record.deps, expect, outcomes) if _answers(record) else None
    if verdict is None:
        return None
    return RecordReport(record, verdict.violations, dict(verdict.outcomes), verdict.ok)


def _answers(record: TaskBenchRecord) -> bool:
    """False for a record the lane leaves to ``check_plan`` whatever its graph."""
    tools = record.tools
    return (
        0 < len(tools) <= _MOST_TASKS
        and not record.on_itself
        and "" not in tools
        and record.plan_id != ""
    )


def _verdict(
    deps: list[list[int]], expect: Expectations, outcomes: dict[str, str]
) -> CheckVerdict | None:
    """The verdict on a graph of ``len(deps)`` tasks, or None when it has a cycle."""
    n = len(deps)
    ancestors = _ancestors(deps)
    if ancestors is None:
        return None  # acyclic names the cycle: the general path words it
    fed = 0  # bit d: some task depends on task d
    multi = False
    for ds in deps:
        for d in ds:
            fed |= 1 << d
        if len(ds) > 1:
            multi = True
    edges = fed != 0
    found: list[Violation] = []
    checks: list[str] = []
    low, high = expect.min_tasks, expect.max_tasks
    if (low is not None and n < low) or (high is not None and n > high):
        band = f"[{low if low is not None else 0}, {high if high is not None else 'inf'}]"
        found.append(
            Violation(
                "task_count_band",
                _BAND,
                None,
                "/tasks",
                f"the plan has {n} tasks, outside the expected band {band}",
            )
        )
        checks.append("task_count_band")
    if n > 1:
        if not edges:
            found.append(
                Violation(
                    "isolated_task",
                    _ISOLATED,
                    None,
                    "/tasks",
                    f"none of the {n} tasks depends on another: the plan has no dependency "
                    "graph (a flat list?); add depends_on where order matters",
                )
            )
            checks.append("isolated_task")
        else:
            for i in range(n):
                if not deps[i] and not fed >> i & 1:
                    found.append(
                        Violation(
                            "isolated_task",
                            _ISOLATED,
                            f"node-{i}",
                            f"/tasks/{i}",
                            f"task 'node-{i}' neither depends on nor feeds any other task; "
                            "connect it or drop it",
                        )
                    )
                    if checks[-1:] != ["isolated_task"]:
                        checks.append("isolated_task")
    if multi:
        _redundant(deps, ancestors, found, checks)
    if not found:
        return CheckVerdict(n, (), outcomes, True)
    mine = dict(outcomes)
    for check in checks:
        mine[check] = "fail" if CHECKS[check] == "error" else "warn"
    return CheckVerdict(n, tuple(found), mine, "task_count_band" not in checks)


def _ancestors(deps: list[list[int]]) -> list[int] | None:
    """Each task's strict ancestors as a bitset (bit d: task d), or None when a cycle leaves
    some task without them. Tasks are taken in rounds, each one once all its dependencies
    have theirs (Kahn's order, without the lists of dependents a round-free version needs)."""
    ancestors = [-1] * len(deps)
    waiting = list(range(len(deps)))
    while waiting:
        later = []
        for x in waiting:
            bits = 0
            for d in deps[x]:
                above = ancestors[d]
                if above < 0:
                    later.append(x)
                    break
                bits |= above | 1 << d
            else:
                ancestors[x] = bits
        if len(later) == len(waiting):
            return None
        waiting = later
    return ancestors


def _redundant(
    deps: list[list[int]], ancestors: list[int], found: list[Violation], checks: list[str]
) -> None:
    """``redundant_dependency``: each dependency another dependency already implies, with the
    first dependency (in ``depends_on`` order) it is reached through."""
    before = len(found)
    for c, ds in enumerate(deps):
        if len(ds) < 2:
            continue
        reach = 0
        for o in ds:
            reach |= ancestors[o]
        if not any(reach >> d & 1 for d in ds):
            continue
        for j, d in enumerate(ds):
            if not reach >> d & 1:
                continue
            via = next(o for o in ds if ancestors[o] >> d & 1)
            found.append(
                Violation(
                    "redundant_dependency",
                    _REDUNDANT,
                    f"node-{c}",
                    f"/tasks/{c}/depends_on/{j}",
                    f"task 'node-{c}' depends on 'node-{d}' directly and also through "
                    f"'node-{via}'; the direct edge can go",
                )
            )
    if len(found) > before:
        checks.append("redundant_dependency")
