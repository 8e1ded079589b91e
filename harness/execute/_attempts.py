"""Attempts of tasks in worker threads, and the stop signal that wakes the scheduler.

Each attempt runs in its own daemon thread and reports back through one queue that the
scheduler thread blocks on. Everything that must wake the scheduler (a result, a
``StopSignal`` being set, a signal handler) puts an item in that queue, so the scheduler never
polls: it sleeps until a result, a deadline (timeout, retry, grace) or a stop.
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

__all__ = ["WAKE", "Attempt", "Outcome", "StopSignal", "run_attempt"]

Outcome = tuple[int, bool, Any, float]
"""(attempt token, ok, output or exception, duration in seconds)."""

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


def run_attempt(
    agent: Agent, context: TaskContext, token: int, results: queue.SimpleQueue[Outcome]
) -> None:
    """Start the attempt in a daemon thread; its outcome goes to ``results``."""

    def work() -> None:
        began = time.monotonic()
        try:
            output = agent(context)
        except BaseException as exc:
            results.put((token, False, exc, time.monotonic() - began))
        else:
            results.put((token, True, output, time.monotonic() - began))

    threading.Thread(target=work, name=f"planeval-task-{context.task.id}", daemon=True).start()
