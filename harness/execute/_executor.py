"""``execute``: check the plan and the journal, decide what a resume restores, and run."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness._errors import JournalError
from harness._signals import note as note_signal
from harness.execute._agents import check_agent
from harness.execute._attempts import StopSignal
from harness.execute._context import Agent, agent_reads
from harness.execute._graph import TaskGraph
from harness.execute._result import ExecutionResult
from harness.execute._resume import decide_resume
from harness.execute._scheduler import EventHook, Execution
from harness.journal import (
    JournalDamagedError,
    JournalLock,
    JournalWriter,
    ReplayState,
    prepare_journal_folder,
    replay,
    require_journal,
)
from harness.plan import Plan

__all__ = ["DEFAULT_GRACE", "DEFAULT_MAX_TOTAL_ATTEMPTS", "execute"]

DEFAULT_MAX_TOTAL_ATTEMPTS = 10
"""Attempts per task over every execution of a journal (a crash loop ends there)."""
DEFAULT_GRACE = 10.0
"""Seconds an abandoned attempt may keep running before the execution stops."""


def execute(
    plan: Plan,
    journal: str | os.PathLike[str],
    *,
    agent: Agent | None = None,
    resume: bool = False,
    from_task: str | None = None,
    force: bool = False,
    max_concurrency: int = 4,
    max_attempts: int = 3,
    max_total_attempts: int = DEFAULT_MAX_TOTAL_ATTEMPTS,
    reset_attempts: bool = False,
    strict: bool = False,
    keep_outputs: bool = False,
    backoff: float = 0.5,
    max_backoff: float = 30.0,
    timeout: float | None = None,
    grace: float = DEFAULT_GRACE,
    fsync_every: int = 1,
    stop: threading.Event | None = None,
    handle_signals: bool = False,
    on_event: EventHook | None = None,
    source: str | None = None,
) -> ExecutionResult:
    """Execute a plan with an agent, journalling every step; resume from the journal.

    Args:
        plan: the plan to run.
        journal: the journal file (created with its directory when missing).
        agent: called once per attempt with a ``TaskContext``; returns a JSON-serialisable
            output. Defaults to the deterministic ``demo_agent``.
        resume: continue the journal: tasks it records as succeeded are not executed
            again (their outputs feed their dependents); failed, blocked, cut-short and
            never-started tasks run (a failed one with a fresh budget).
        from_task: with ``resume``, a task id or unique description: that task and every
            task downstream of it run again even if they succeeded.
        force: accept a journal written for another plan identity.
        max_concurrency: independent tasks run at the same time, at most this many.
        max_attempts: attempts per task in this execution (the retry budget).
        max_total_attempts: attempts per task over every execution of the journal; when
            spent the task fails for good (error_type ``AttemptsExhausted``) and later
            resumes do not try it again unless ``from_task`` covers it or ``reset_attempts``.
        reset_attempts: with ``resume``, give every task a fresh total budget.
        strict: with ``resume``, refuse a journal with a damaged, missing, duplicated or
            moved line (``JournalDamagedError`` naming the first); a torn last line (a
            crash mid-write) is still cut off. Tolerant (the default): the tasks the damage
            hides run again, once.
        keep_outputs: with ``resume``, restore the successes of tasks whose definition (its
            description, input, agent spec, ...) or the goal its agent reads changed since
            they ran: the edit is accepted, for this and later resumes. Without it such a
            task and its dependents run again.
        backoff: seconds before the first retry; doubles on each retry (with jitter).
        max_backoff: cap on the wait between retries.
        timeout: seconds an attempt may take (a task's own ``timeout`` key wins); past it
            the attempt fails with error_type ``Timeout`` and is abandoned; its retry waits
            until it has returned (two attempts of one task never overlap).
        grace: seconds an abandoned attempt (timed out, or running at an interruption) may
            keep running; past it the execution stops and names the stuck task.
        fsync_every: fsync the journal every N events (0: never, for simulations).
        stop: set it (from any thread) to interrupt the execution; a ``StopSignal`` wakes
            the scheduler at once (a plain ``threading.Event`` is noticed within 50 ms).
        handle_signals: turn SIGINT and SIGTERM into an interruption (main thread only).
        on_event: called with each journalled event and its payload (progress display).
        source: label of the plan for error messages.

    Raises:
        JournalInUseError: another execution holds the journal (CLI exit 5).
        JournalError: a journal with events and not ``resume``; a journal of another plan
            without ``force``; a ``from_task`` that names no task or several.
        PlanLoadError: the plan cannot be executed (unknown dependency, cycle, duplicate ids).
    """
    if max_concurrency < 1 or max_attempts < 1 or max_total_attempts < 1:
        raise ValueError("max_concurrency, max_attempts and max_total_attempts must be >= 1")
    if reset_attempts and not resume:
        raise JournalError(
            "--reset-attempts needs --resume", source=str(journal), hint="add --resume"
        )
    if keep_outputs and not resume:
        raise JournalError(
            "--keep-outputs needs --resume", source=str(journal), hint="add --resume"
        )
    path = Path(journal)
    label = source or "<plan>"
    agent = agent or _default_agent()
    graph = TaskGraph(plan, source=label)
    if from_task is not None and not resume:
        raise JournalError(
            "--from needs --resume", source=str(path), hint="add --resume (resume=True)"
        )
    agent = agent or _default_agent()
    check_agent(agent)  # a misconfigured agent is refused before the first task
    if path.exists() and not path.is_dir():
        require_journal(path)  # never append to a plan or any other file
    prepare_journal_folder(path, durable=fsync_every > 0)
    # One execution per journal, for its whole life: the lock is on the file, whatever name
    # reaches it, and the writer appends through the locked descriptor.
    with JournalLock(path, durable=fsync_every > 0) as lock:
        has_events = os.fstat(lock.fd).st_size > 0
        if has_events and not resume:
            raise JournalError(
                "the journal already records an execution",
                source=str(path),
                hint="pass --resume to continue it, or choose a new journal file",
            )
        state = replay(path) if has_events else None
        if strict and state is not None:
            _refuse_damage(state)
        decision = decide_resume(
            plan,
            graph,
            state,
            from_task=from_task,
            force=force,
            source=str(path),
            reset_attempts=reset_attempts,
            reads=agent_reads(agent),
            keep_outputs=keep_outputs,
        )
        run = Execution(
            plan=plan,
            graph=graph,
            path=path,
            agent=agent,
            decision=decision,
            state=state,
            max_concurrency=max_concurrency,
            max_attempts=max_attempts,
            max_total_attempts=max_total_attempts,
            backoff=backoff,
            max_backoff=max_backoff,
            timeout=timeout,
            grace=grace,
            stop=stop if stop is not None else StopSignal(),
            on_event=on_event,
        )
        writer = JournalWriter(path, fsync_every=fsync_every, exclusive=True, locked=lock.fd)
        with writer, _signals(run, handle_signals):
            run.writer = writer
            return run.go(resume=resume)


def _refuse_damage(state: ReplayState) -> None:
    """Strict resume: damage other than a torn last line is an error naming its line."""
    damage = [d for d in state.damage if not d.torn]
    if damage:
        raise JournalDamagedError(
            damage[0],
            state,
            hint="see `planeval journal verify` for every damaged line; resume without "
            "--strict to run the tasks the damage hides again (with their idempotency keys)",
        )


def _default_agent() -> Agent:
    from harness.execute._agents import demo_agent

    return demo_agent


@contextmanager
def _signals(run: Execution, enabled: bool) -> Iterator[None]:
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}

    def handler(signum: int, _frame: Any) -> None:
        note_signal(signum)  # the command exits 130 even if the run had just completed
        run.interrupt(signal.Signals(signum).name)

    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
