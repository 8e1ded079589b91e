"""Crash-and-resume scenarios: does a plan survive a crash at every task?

For one plan: run it uninterrupted (the reference), then for each task position and each
crash mode, run it again with a crash at that task, resume, and check the properties of
durable execution, each on its own (``PROPERTIES``):

- ``no_rerun``: no task the journal records as succeeded before the resume runs again
  (unless a task upstream of it had not succeeded: its success was built on a failed input);
- ``outputs_equal``: the resumed execution completes with the uninterrupted run's outputs;
- ``exact_rerun``: the resume executes exactly the tasks that had not succeeded and their
  downstream;
- ``from_closure``: a further resume ``--from`` the crash task re-executes exactly that task
  and its downstream closure;
- ``torn_tail``: after a torn last line, every event journalled whole is still restored;
- ``strict_replay``: the journal replays in strict mode afterwards.

Crashes are simulated in-process (``raise``, ``interrupt``, ``torn_write``); ``kill`` runs the
crashed execution in a real child process (forked from the fork server that resume-eval's
workers come from, so without a Python start-up) that SIGKILLs itself at the task; the
``torn_write`` crash starts from a copy of the ``interrupt`` crash's journal (the same
execution), with the torn line appended.
``planeval resume-eval SUITE`` reports modes and properties as checks over recorded plans.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from harness.execute._agents import demo_agent
from harness.execute._attempts import StopSignal
from harness.execute._context import Agent, TaskContext, TaskError
from harness.execute._executor import execute
from harness.execute._graph import TaskGraph
from harness.execute._processes import worker_context
from harness.journal import JournalDamagedError, replay
from harness.plan import Plan

__all__ = ["CRASH_MODES", "PROPERTIES", "CrashMode", "ResumeScenario", "resume_scenarios"]

CrashMode = Literal["raise", "interrupt", "torn_write", "kill"]
CRASH_MODES: Final[tuple[CrashMode, ...]] = ("raise", "interrupt", "torn_write")
"""The in-process modes (the default). ``raise``: the agent raises (not retryable) on the
task. ``interrupt``: the execution is interrupted (as by Ctrl+C) while the task runs.
``torn_write``: interrupted there, and the process died mid-write, leaving a torn last line.
``kill`` (opt-in, see ``kill_at``): a real child process SIGKILLs itself in the task."""
ALL_MODES: Final[tuple[CrashMode, ...]] = (*CRASH_MODES, "kill")
PROPERTIES: Final = (
    "no_rerun",
    "outputs_equal",
    "exact_rerun",
    "from_closure",
    "torn_tail",
    "strict_replay",
)
"""The properties every scenario checks (``torn_tail`` only in ``torn_write``;
``from_closure`` once per crash point)."""

_KILL_WAIT = 120.0
"""Seconds a ``kill`` child may take before it is killed from outside."""


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
    """Broken properties, one sentence each; empty when the scenario passed."""
    failed_properties: tuple[str, ...] = ()
    """The ``PROPERTIES`` each violation broke, in the same order."""
    checked: tuple[str, ...] = field(default=())
    """The properties this scenario checked."""
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
            "failed_properties": list(self.failed_properties),
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
    fsync_every: int = 0,
    kill_at: Sequence[str] = (),
) -> list[ResumeScenario]:
    """Crash a plan at every task, resume it, and check the properties.

    Args:
        plan: the plan (ids, dependencies and needs are what matter).
        agent: a deterministic agent (the same task and inputs give the same output);
            defaults to ``demo_agent``.
        modes: the in-process crash modes to try at every task (see ``CRASH_MODES``).
        max_concurrency: 1 (default) makes "crash at position i" mean exactly "after the
            first i tasks"; more lets independent tasks be cut mid-flight too.
        workdir: where the journals go (kept); a temporary directory (in memory where the
            system has ``/dev/shm``) when None.
        fsync_every: the journals' fsync interval; 0 (default) never fsyncs: the simulated
            crashes keep the process alive, so fsync would only cost time.
        kill_at: tasks at which to run the ``kill`` mode too: a real child process that
            SIGKILLs itself in the task (demo agent only; fsync on every event).

    Returns:
        One ``ResumeScenario`` per task and mode, in execution order.

    Raises:
        PlanLoadError: the plan cannot be executed (unknown dependency, cycle, duplicates).
    """
    for mode in modes:
        if mode not in CRASH_MODES:
            raise ValueError(f"unknown crash mode {mode!r}; known: {', '.join(CRASH_MODES)}")
    if kill_at and agent not in (None, demo_agent):
        raise ValueError("kill_at runs the demo agent in a child process: pass no agent")
    base_agent = agent or demo_agent
    graph = TaskGraph(plan)
    with _directory(workdir) as root:
        reference = execute(
            plan,
            root / "uninterrupted.jsonl",
            agent=base_agent,
            max_concurrency=max_concurrency,
            backoff=0.0,
            fsync_every=fsync_every,
        )
        context = _Context(
            plan,
            graph,
            base_agent,
            dict(reference.outputs) if reference.ok else None,
            max_concurrency,
            fsync_every,
            root,
        )
        results = []
        for position, task_id in enumerate(graph.topological):
            crash_modes: list[CrashMode] = list(modes)
            if task_id in kill_at:
                crash_modes.append("kill")
            for index, mode in enumerate(crash_modes):
                results.append(context.scenario(task_id, position, mode, with_from=index == 0))
    return results


@dataclass(slots=True)
class _Context:
    plan: Plan
    graph: TaskGraph
    agent: Agent
    reference: dict[str, Any] | None
    max_concurrency: int
    fsync_every: int
    root: Path
    interrupted: tuple[str, bytes] | None = None
    """The last ``interrupt`` crash: its task and journal, which ``torn_write`` starts from."""

    def scenario(
        self, crash_at: str, position: int, mode: CrashMode, *, with_from: bool
    ) -> ResumeScenario:
        journal = self.root / f"crash-{position:03d}-{mode}.jsonl"
        self._crash(journal, crash_at, mode)
        whole = completed_before = replay(journal).completed
        if mode == "torn_write":
            with open(journal, "ab") as handle:
                handle.write(b'{"event":"task_succeeded","task_id":"' + crash_at.encode() + b'","o')
            completed_before = replay(journal).completed
        calls, resumed = self._resume(journal)
        broken: list[tuple[str, str]] = []
        checked = ["no_rerun", "outputs_equal", "exact_rerun", "strict_replay"]
        # What must run again: what had not succeeded, and everything downstream of it (a
        # success built on a failed input, on_failure: continue, is built on stale data).
        expected = self.graph.downstream(set(self.plan.task_ids) - set(completed_before))
        again = [t for t in completed_before if calls[t] and t not in expected]
        if again:
            broken.append(("no_rerun", "succeeded task(s) executed again: " + ", ".join(again)))
        if self.reference is None:
            broken.append(("outputs_equal", "the uninterrupted run did not complete"))
        elif resumed.status != "completed":
            broken.append(("outputs_equal", f"the resume did not complete ({resumed.status})"))
        else:
            differ = [t for t in self.reference if resumed.outputs.get(t) != self.reference[t]]
            if differ:
                broken.append(("outputs_equal", "outputs differ for: " + ", ".join(differ)))
        if set(calls) != expected:
            broken.append(("exact_rerun", _difference("the resume executed", set(calls), expected)))
        if mode == "torn_write":
            checked.append("torn_tail")
            lost = [t for t in whole if t not in resumed.restored]
            if lost:
                broken.append(("torn_tail", "lost after the torn tail: " + ", ".join(lost)))
        if with_from and resumed.status == "completed":
            checked.append("from_closure")
            calls_from, _ = self._resume(journal, from_task=crash_at)
            closure = self.graph.downstream([crash_at])
            if set(calls_from) != closure:
                message = _difference(f"--from {crash_at} executed", set(calls_from), closure)
                broken.append(("from_closure", message))
        try:
            replay(journal, "strict")
        except JournalDamagedError as exc:
            broken.append(("strict_replay", f"the journal does not replay strictly: {exc.what}"))
        return ResumeScenario(
            plan_id=self.plan.identity,
            crash_at=crash_at,
            position=position,
            mode=mode,
            violations=tuple(message for _, message in broken),
            failed_properties=tuple(prop for prop, _ in broken),
            checked=tuple(checked),
            completed_before_resume=completed_before,
            executed_on_resume=tuple(resumed.executed),
        )

    def _crash(self, journal: Path, crash_at: str, mode: CrashMode) -> None:
        interrupted = self.interrupted
        if mode == "torn_write" and interrupted is not None and interrupted[0] == crash_at:
            journal.write_bytes(interrupted[1])  # the same execution as ``interrupt``'s
            return
        if mode == "kill":
            child = worker_context().Process(
                target=_killed_child,
                args=(self.plan.to_dict(), str(journal), crash_at),
                name="planeval-resume-kill",
            )
            child.start()
            child.join(_KILL_WAIT)
            if child.is_alive():
                child.kill()
                child.join()
            return
        stop = StopSignal()
        agent = self.agent

        def crashing(context: TaskContext) -> Any:
            if context.task.id != crash_at:
                return agent(context)
            if mode == "raise":
                raise TaskError("simulated crash", retryable=False, error_type="SimulatedCrash")
            stop.set()
            context.cancelled.wait(30)
            raise TaskError("simulated interruption")

        execute(
            self.plan,
            journal,
            agent=crashing,
            stop=stop,
            max_attempts=1,
            backoff=0.0,
            max_concurrency=self.max_concurrency,
            fsync_every=self.fsync_every,
        )
        if mode == "interrupt":
            self.interrupted = (crash_at, journal.read_bytes())

    def _resume(self, journal: Path, from_task: str | None = None) -> tuple[Counter[str], Any]:
        calls: Counter[str] = Counter()
        lock = threading.Lock()
        agent = self.agent

        def counting(context: TaskContext) -> Any:
            with lock:
                calls[context.task.id] += 1
            return agent(context)

        result = execute(
            self.plan,
            journal,
            agent=counting,
            resume=True,
            from_task=from_task,
            backoff=0.0,
            max_concurrency=self.max_concurrency,
            fsync_every=self.fsync_every,
        )
        return calls, result


def _killed_child(plan: dict[str, Any], journal: str, crash_at: str) -> None:
    """A real process executing the plan that SIGKILLs itself in ``crash_at``."""

    def agent(context: TaskContext) -> Any:
        if context.task.id == crash_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return demo_agent(context)

    execute(Plan.from_dict(plan), journal, agent=agent, max_attempts=1, backoff=0.0, fsync_every=1)


def _difference(what: str, got: set[str], expected: set[str]) -> str:
    parts = []
    if got - expected:
        parts.append("also " + ", ".join(sorted(got - expected)))

    if expected - got:
        parts.append("not " + ", ".join(sorted(expected - got)))
    return f"{what} {'; '.join(parts)}"


@contextmanager
def _directory(workdir: str | Path | None) -> Iterator[Path]:
    if workdir is not None:
        path = Path(workdir)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    memory = Path("/dev/shm")
    base = str(memory) if memory.is_dir() and os.access(memory, os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="planeval-resume-eval-", dir=base) as tmp:
        yield Path(tmp)
