"""What an agent gets (``TaskContext``) and what it may raise (``TaskError``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from harness.plan import Plan, Task

__all__ = ["READS", "Agent", "TaskContext", "TaskError", "agent_reads", "inline_agent", "reads"]

_AgentT = TypeVar("_AgentT")


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
    """A callable that performs one task and returns a JSON-serialisable output.

    Each attempt runs in a worker thread of its own, so the executor can abandon it at its
    timeout or on an interrupt and go on; an agent marked with ``inline_agent`` runs in the
    executor's thread instead."""

    def __call__(self, context: TaskContext, /) -> Any: ...


def inline_agent(agent: _AgentT) -> _AgentT:
    """Mark ``agent`` to run in the executor's own thread when its task has no timeout.

    For agents that return in microseconds and never block (``demo_agent``, test doubles):
    the two thread wake-ups a worker costs per attempt are saved (about 160 us a task on a
    2-core VM, more than the executor's own bookkeeping). The price: the executor cannot
    abandon such an attempt before it returns, so an interrupt or a ``stop`` takes effect when
    the agent returns, not at once. A task with a timeout still runs in a worker thread. The
    journal is the same either way.
    """
    agent.inline = True  # type: ignore[attr-defined]
    return agent


READS = frozenset({"task", "inputs", "goal"})
"""What an agent may read of its context besides the attempt's bookkeeping: its ``task`` (every
field: description, input, agent spec and instructions, capabilities, ...), its ``inputs``
(the outputs of the tasks it needs) and the plan's ``goal``. A task's journalled success is
reused only while what its agent read is unchanged (the Make/Bazel rule)."""


def reads(*parts: str) -> Callable[[_AgentT], _AgentT]:
    """Declare what an agent reads (a subset of ``READS``); an undeclared agent reads all.

    ``@reads("task", "inputs")`` says the agent never looks at the goal, so a goal edit does
    not invalidate its outputs. ``task`` and ``inputs`` are always counted (every agent gets
    them).
    """
    unknown = set(parts) - READS
    if unknown:
        raise ValueError(f"unknown parts {sorted(unknown)}; an agent reads {sorted(READS)}")

    def mark(agent: _AgentT) -> _AgentT:
        agent.reads = frozenset(parts) | {"task", "inputs"}  # type: ignore[attr-defined]
        return agent

    return mark


def agent_reads(agent: object) -> frozenset[str]:
    """What ``agent`` declared it reads (``reads``), or everything when it did not say."""
    declared = getattr(agent, "reads", None)
    if isinstance(declared, frozenset) and declared <= READS:
        return declared
    return READS


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
