"""What an execution returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.journal import Damage

__all__ = ["ExecutionResult", "ExecutionStatus", "TaskFailure"]

ExecutionStatus = Literal["completed", "failed", "interrupted"]


@dataclass(frozen=True, slots=True)
class TaskFailure:
    """Why a task failed for good in an execution (its last attempt)."""

    error: str
    """The error message."""
    error_type: str
    """The exception type name, ``Timeout`` or ``OutputNotSerializable``."""
    retryable: bool
    """Whether the error allowed another attempt (False stops the budget early)."""
    attempt: int
    """The attempt number that failed last."""

    def to_dict(self) -> dict[str, Any]:
        """The failure as JSON."""
        return {
            "error": self.error,
            "error_type": self.error_type,
            "retryable": self.retryable,
            "attempt": self.attempt,
        }


@dataclass(frozen=True, slots=True)
class ExecutionResult:
    """The outcome of one ``execute`` call (one execution appended to a journal)."""

    status: ExecutionStatus
    """``completed`` (every task succeeded), ``failed`` (a task failed for good, so it or
    its dependents did not finish) or ``interrupted`` (Ctrl+C, SIGTERM, a stop request)."""
    journal: str
    """The journal file."""
    plan_id: str
    """The plan identity written to the journal."""
    outputs: Mapping[str, Any]
    """Output of every succeeded task, restored or executed, by task id."""
    executed: tuple[str, ...] = ()
    """Tasks the agent was called for in this execution, in first-start order."""
    restored: tuple[str, ...] = ()
    """Tasks whose journalled success was reused (not executed)."""
    failed: Mapping[str, TaskFailure] = field(default_factory=dict)
    """Tasks that failed for good in this execution."""
    blocked: Mapping[str, str] = field(default_factory=dict)
    """Tasks not run because a task they depend on failed for good -> that task."""
    not_started: tuple[str, ...] = ()
    """Tasks left without an outcome (interrupted, or stopped by ``on_failure: stop``)."""
    attempts: Mapping[str, int] = field(default_factory=dict)
    """Attempts per task over the whole journal."""
    damage: tuple[Damage, ...] = ()
    """Damaged journal lines the resume skipped."""
    duration: float = 0.0
    """Seconds this execution took."""
    stuck: str | None = None
    """The task whose abandoned attempt was still running after the grace period (the
    execution stopped with status ``failed``); None otherwise."""

    @property
    def ok(self) -> bool:
        """True when every task of the plan succeeded."""
        return self.status == "completed"

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON (outputs included)."""
        return {
            "status": self.status,
            "journal": self.journal,
            "plan_id": self.plan_id,
            "executed": list(self.executed),
            "restored": list(self.restored),
            "failed": {k: v.to_dict() for k, v in self.failed.items()},
            "blocked": dict(self.blocked),
            "not_started": list(self.not_started),
            "attempts": dict(self.attempts),
            "damage": [d.to_dict() for d in self.damage],
            "duration": round(self.duration, 6),
            "stuck": self.stuck,
            "outputs": dict(self.outputs),
        }
