"""Crash-and-resume scenarios: does a plan survive a crash at every task?

For one plan: run it uninterrupted (the reference), then for each task position and each
crash mode, run it again with a crash at that task, resume, and check the invariants of
durable execution:

1. no task the journal records as completed before the resume is executed again;
2. the resumed execution completes, and its outputs equal the uninterrupted run's;
3. the journal replays in strict mode.

``planeval resume-eval SUITE`` reports these as pass rates over recorded plans.
"""

from __future__ import annotations

import tempfile
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from harness.execute._agents import demo_agent
from harness.execute._attempts import StopSignal
from harness.execute._context import Agent, TaskContext, TaskError
from harness.execute._executor import execute
from harness.execute._graph import TaskGraph
from harness.journal import JournalDamagedError, replay
from harness.plan import Plan

__all__ = ["CRASH_MODES", "CrashMode", "ResumeScenario", "resume_scenarios"]

CrashMode = Literal["raise", "interrupt", "torn_write"]
CRASH_MODES: Final[tuple[CrashMode, ...]] = ("raise", "interrupt", "torn_write")
"""``raise``: the agent raises (not retryable) on the task. ``interrupt``: the execution is
interrupted (as by Ctrl+C) while the task runs. ``torn_write``: interrupted there, and the
process died mid-write, leaving a torn last line."""


@dataclass(frozen=True, slots=True)
class ResumeScenario:
    """One crash point of one plan: what happened and which invariants broke."""

    plan_id: str
    """The plan identity."""
    crash_at: str
    """The task the crash hit."""
    position: int
    """0-based position of that task in the execution (topological) order."""
    mode: CrashMode
    """How the crash happened."""
    violations: tuple[str, ...]
    """Broken invariants, one sentence each; empty when the scenario passed."""
    completed_before_resume: tuple[str, ...] = ()
    """Tasks the journal recorded as completed after the crash."""
    executed_on_resume: tuple[str, ...] = ()
    """Tasks the resume executed."""

    @property
    def passed(self) -> bool:
        """True when every invariant held."""
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        """The scenario as JSON."""
        return {
            "plan_id": self.plan_id,
            "crash_at": self.crash_at,
            "position": self.position,
            "mode": self.mode,
            "passed": self.passed,
            "violations": list(self.violations),
            "completed_before_resume": list(self.completed_before_resume),
            "executed_on_resume": list(self.executed_on_resume),
        }


def resume_scenarios(
    plan: Plan,
    *,
    agent: Agent | None = None,
    modes: Sequence[CrashMode] = CRASH_MODES,
    max_concurrency: int = 1,
    workdir: str | Path | None = None,
    fsync_every: int = 1,
) -> list[ResumeScenario]:
    """Crash a plan at every task, resume it, and check the invariants.

    Args:
        plan: the plan (ids, dependencies and needs are what matter).
        agent: a deterministic agent (the same task and inputs give the same output);
            defaults to ``demo_agent``.
        modes: the crash modes to try at every task (see ``CRASH_MODES``).
        max_concurrency: 1 (default) makes "crash at position i" mean exactly "after the
            first i tasks"; more lets independent tasks be cut mid-flight too.
        workdir: where the journals go (kept); a temporary directory when None.
        fsync_every: the journals' fsync interval (the simulated crashes keep the process
            alive, so a large value only saves time).

    Returns:
        One ``ResumeScenario`` per task and mode, in execution order.

    Raises:
        PlanLoadError: the plan cannot be executed (unknown dependency, cycle, duplicates).
    """
    for mode in modes:
        if mode not in CRASH_MODES:
            raise ValueError(f"unknown crash mode {mode!r}; known: {', '.join(CRASH_MODES)}")
    base_agent = agent or demo_agent
    order = TaskGraph(plan).topological
    with _directory(workdir) as root:
        reference = execute(
            plan,
            root / "uninterrupted.jsonl",
            agent=base_agent,
            max_concurrency=max_concurrency,
            backoff=0.0,
            fsync_every=fsync_every,
        )
        results = []
        for position, task_id in enumerate(order):
            for mode in modes:
                journal = root / f"crash-{position:03d}-{mode}.jsonl"
                results.append(
                    _scenario(
                        plan,
                        journal,
                        base_agent,
                        task_id,
                        position,
                        mode,
                        reference.outputs if reference.ok else None,
                        max_concurrency,
                        fsync_every,
                    )
                )
    return results


def _scenario(
    plan: Plan,
    journal: Path,
    agent: Agent,
    crash_at: str,
    position: int,
    mode: CrashMode,
    reference: Any,
    max_concurrency: int,
    fsync_every: int,
) -> ResumeScenario:
    stop = StopSignal()

    def crashing(context: TaskContext) -> Any:
        if context.task.id != crash_at:
            return agent(context)
        if mode == "raise":
            raise TaskError("simulated crash", retryable=False, error_type="SimulatedCrash")
        stop.set()
        context.cancelled.wait(30)
        raise TaskError("simulated interruption")

    execute(
        plan,
        journal,
        agent=crashing,
        stop=stop,
        max_attempts=1,
        backoff=0.0,
        max_concurrency=max_concurrency,
        fsync_every=fsync_every,
    )
    if mode == "torn_write":
        with open(journal, "ab") as handle:
            handle.write(b'{"event":"task_succeeded","task_id":"' + crash_at.encode() + b'","out')
    completed_before = replay(journal).completed

    calls: Counter[str] = Counter()
    lock = threading.Lock()

    def counting(context: TaskContext) -> Any:
        with lock:
            calls[context.task.id] += 1
        return agent(context)

    resumed = execute(
        plan,
        journal,
        agent=counting,
        resume=True,
        backoff=0.0,
        max_concurrency=max_concurrency,
        fsync_every=fsync_every,
    )
    violations = []
    again = [t for t in completed_before if calls[t]]
    if again:
        violations.append("completed task(s) executed again on resume: " + ", ".join(again))
    if reference is None:
        violations.append("the uninterrupted run did not complete, so there is no reference")
    elif resumed.status != "completed":
        violations.append(f"the resume did not complete (status {resumed.status})")
    else:
        differ = [t for t in reference if resumed.outputs.get(t) != reference[t]]
        if differ:
            violations.append("outputs differ from the uninterrupted run for: " + ", ".join(differ))
    try:
        replay(journal, "strict")
    except JournalDamagedError as exc:
        violations.append(f"the journal does not replay strictly: {exc.one_line()}")
    return ResumeScenario(
        plan_id=plan.identity,
        crash_at=crash_at,
        position=position,
        mode=mode,
        violations=tuple(violations),
        completed_before_resume=completed_before,
        executed_on_resume=tuple(t for t in resumed.executed),
    )


@contextmanager
def _directory(workdir: str | Path | None) -> Iterator[Path]:
    if workdir is not None:
        path = Path(workdir)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="planeval-resume-eval-") as tmp:
        yield Path(tmp)
