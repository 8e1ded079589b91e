"""What an agent gets (``TaskContext``) and what it may raise (``TaskError``)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness.plan import Plan, Task

__all__ = ["Agent", "TaskContext", "TaskError"]


@dataclass(frozen=True, slots=True)
class TaskContext:
    """Everything an agent needs to perform one attempt of one task."""

    task: Task
    """The task to perform."""
    inputs: Mapping[str, Any]
    """The task's ``needs``, resolved: input name -> the producing task's output. An input
    whose producer failed (``on_failure: continue``) is ``None`` here and listed in
    ``failed_inputs``."""
    attempt: int
    """Attempt number, counted over every execution in the journal (1 for the first)."""
    idempotency_key: str
    """``<plan identity>:<task id>``: the same on every attempt and resume, so side effects
    (payments, emails) can be deduplicated by whoever performs them."""
    plan: Plan
    """The whole plan, for agents that want the goal or the neighbouring tasks."""
    failed_inputs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Inputs whose producer failed for good but said ``on_failure: continue``: name ->
    ``{"task", "error", "error_type"}``."""
    upstream_failures: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Every ``depends_on`` task that failed with ``on_failure: continue``: id -> failure."""
    cancelled: threading.Event = field(default_factory=threading.Event, compare=False)
    """Set when the executor stops waiting for this attempt (timeout or interrupt); a
    long-running agent may poll it and give up early."""
    timeout: float | None = None
    """Seconds the executor waits for this attempt (None: no limit)."""


class Agent(Protocol):
    """A callable that performs one task and returns a JSON-serialisable output."""

    def __call__(self, context: TaskContext, /) -> Any: ...


class TaskError(Exception):
    """An agent's failure with an explicit verdict on retrying.

    Any exception an agent raises fails the attempt; raise ``TaskError(..., retryable=False)``
    when another attempt cannot help (bad input, permission denied), so the budget is not
    spent on it. An exception with a boolean ``retryable`` attribute is honoured the same way.
    """

    def __init__(self, message: str, *, retryable: bool = True, error_type: str | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.error_type = error_type
