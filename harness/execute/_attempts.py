"""Attempts of tasks in worker threads, and the stop signal that wakes the scheduler.

Each attempt runs in a daemon thread of its own (the thread of a finished attempt is reused
for a later one) and reports back through one queue that the scheduler thread blocks on.
Everything that must wake the scheduler (a result, a ``StopSignal`` being set, a signal
handler) puts an item in that queue, so the scheduler never polls: it sleeps until a result,
a deadline (timeout, retry, grace) or a stop.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.execute._context import Agent, TaskContext
from harness.plan import Task

__all__ = ["WAKE", "Attempt", "AttemptRunner", "Outcome", "StopSignal"]

Outcome = tuple[int, bool, Any, float]
"""(attempt token, ok, output or exception, duration in seconds)."""
_Job = tuple[Agent, TaskContext, int]

WAKE: Outcome = (-1, False, None, 0.0)
"""Put in the results queue to wake the scheduler (a stop, an interrupt)."""


class StopSignal(threading.Event):
    """A ``threading.Event`` that wakes a waiting execution the moment it is set.

    Pass one as ``execute(stop=...)`` and call ``set()`` from any thread: the execution
    stops at once. (A plain ``threading.Event`` works too, but is only noticed when the
    scheduler next wakes up: at the next result, deadline, or within 50 ms.)
    """

    def __init__(self) -> None:
        super().__init__()
        self._listeners: list[Callable[[], None]] = []
        self._guard = threading.Lock()

    def set(self) -> None:
        """Set the flag and wake every execution waiting on it."""
        super().set()
        with self._guard:
            listeners = list(self._listeners)
        for wake in listeners:
            wake()

    def listen(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` when the signal is set (at once if it already is)."""
        with self._guard:
            self._listeners.append(wake)
        if self.is_set():
            wake()

    def forget(self, wake: Callable[[], None]) -> None:
        """Stop calling ``wake``."""
        with self._guard:
            if wake in self._listeners:
                self._listeners.remove(wake)


@dataclass(slots=True)
class Attempt:
    """One attempt of one task, while it runs (and, once abandoned, until it returns)."""

    token: int
    task: Task
    number: int
    started: float
    deadline: float | None
    cancelled: threading.Event
    abandoned_at: float | None = None
    """When the scheduler gave up waiting (timeout or interrupt); None while awaited."""
    stuck_at: float | None = None
    """Abandoned and still running at this time: the execution stops (the grace period)."""
    extra: dict[str, Any] = field(default_factory=dict)


class AttemptRunner:
    """Runs each attempt in a worker thread of its own, reusing the threads of finished ones.

    Starting an OS thread costs more than everything else the executor does for a task, so a
    worker whose attempt has returned waits for the next one instead of exiting. An attempt
    that is still running (even abandoned at its timeout) keeps its thread: a new attempt
    only ever goes to an idle worker or a new thread, never queues behind a running one.
    ``close`` lets the idle workers exit; busy ones exit when their attempt returns.
    """

    def __init__(self, results: queue.SimpleQueue[Outcome]) -> None:
        self._results = results
        self._idle: list[queue.SimpleQueue[_Job | None]] = []  # inboxes of idle workers
        self._guard = threading.Lock()
        self._closed = False

    def run(self, agent: Agent, context: TaskContext, token: int) -> None:
        """Start the attempt at once; its outcome goes to ``results``."""
        with self._guard:
            if self._closed:
                raise RuntimeError("the attempt runner is closed")
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            worker = threading.Thread(target=self._work, args=(inbox,), daemon=True)
            worker.start()
        inbox.put((agent, context, token))

    def run_inline(self, agent: Agent, context: TaskContext, token: int) -> None:
        """Run the attempt in this thread, its outcome going to ``results`` as a worker's
        would: for an agent that declares itself ``inline`` (it returns in microseconds and
        never blocks), so the two thread wake-ups of a worker are saved. A KeyboardInterrupt
        raised inside the agent is its attempt's failure and is raised again, so that the
        execution stops as when it reaches the waiting scheduler."""
        outcome = _attempt(agent, context, token)
        self._results.put(outcome)
        if isinstance(outcome[2], KeyboardInterrupt):
            raise outcome[2]

    def close(self) -> None:
        """Let the idle workers exit, and busy ones once their attempt returns."""
        with self._guard:
            self._closed = True
            idle, self._idle = self._idle, []
        for inbox in idle:
            inbox.put(None)

    def _work(self, inbox: queue.SimpleQueue[_Job | None]) -> None:
        me = threading.current_thread()
        while True:
            job = inbox.get()
            if job is None:
                return
            me.name = f"planeval-task-{job[1].task.id}"
            outcome = _attempt(*job)
            job = None  # hold nothing of a finished attempt while idle
            with self._guard:  # idle before reporting, so the next attempt can come here
                closed = self._closed
                if not closed:
                    self._idle.append(inbox)
            self._results.put(outcome)
            del outcome  # hold nothing of a finished attempt while idle
            if closed:
                return


def _attempt(agent: Agent, context: TaskContext, token: int) -> Outcome:
    began = time.monotonic()
    try:
        output = agent(context)
    except BaseException as exc:
        return (token, False, exc, time.monotonic() - began)
    return (token, True, output, time.monotonic() - began)
