"""What a replay returns: the state of a journal, its tasks, its damaged lines."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness._errors import JournalError

__all__ = ["Damage", "JournalDamagedError", "ReplayState", "TaskState"]


@dataclass(frozen=True, slots=True)
class Damage:
    """A journal line replay could not use."""

    line: int
    """1-based line number."""
    reason: str
    """Why it was skipped (``not JSON``, ``invalid UTF-8``, ``torn last line``, ...)."""
    excerpt: str = ""
    """The start of the line (at most 80 characters), for a person to recognise it."""
    torn: bool = False
    """True for a torn last line: a crash mid-write, which a resume cuts off."""
    gap: bool = False
    """True where the chain of checksums breaks: a line before this one was deleted,
    duplicated or moved. The line itself is whole and read; what came before is in doubt."""

    def to_dict(self) -> dict[str, Any]:
        """The damage as JSON."""
        return {
            "line": self.line,
            "reason": self.reason,
            "excerpt": self.excerpt,
            "torn": self.torn,
            "gap": self.gap,
        }


@dataclass(frozen=True, slots=True)
class TaskState:
    """What the journal says about one task."""

    task_id: str
    """The task id as journalled."""
    status: str
    """``succeeded``, ``failed``, ``blocked``, ``started`` (no outcome: it was cut short),
    ``pending`` (a resume with ``from`` dropped its earlier success) or ``unknown`` (damage
    hides its state: it has an event after a damaged or missing line that no resume has
    decided on yet, or two different outputs; a resume runs it and its downstream again)."""
    attempts: int = 0
    """Attempts so far, over every execution in the journal."""
    description: str | None = None
    """The task description, when journalled (the gem matches tasks by it)."""
    output: Any = None
    """The output of the success (``None`` unless succeeded)."""
    duration: float | None = None
    """Seconds the last finished attempt took."""
    error: str | None = None
    """The last failure's message."""
    error_type: str | None = None
    """The last failure's type (``Timeout`` when the executor's per-task timeout hit)."""
    retryable: bool | None = None
    """Whether the last failure could be retried."""
    blocked_by: str | None = None
    """For a blocked task: the failed task that blocked it."""
    line: int = 0
    """Line of the event that settled the status."""
    attempts_since_reset: int = 0
    """Attempts counted against the total budget: since the last reset (``--from`` the task,
    or ``--reset-attempts``), over every execution."""
    sees: Mapping[str, str] | None = None
    """For a success: digests of what its agent saw (``task``, ``inputs``, ``goal`` when it
    reads it), as journalled; None for journals written before (and the gem's)."""

    def to_dict(self) -> dict[str, Any]:
        """The task state as JSON."""
        out: dict[str, Any] = {
            "task_id": self.task_id,
            "status": self.status,
            "attempts": self.attempts,
            "attempts_since_reset": self.attempts_since_reset,
            "description": self.description,
            "duration": self.duration,
        }
        if self.status == "failed":
            out.update(error=self.error, error_type=self.error_type, retryable=self.retryable)
        if self.status == "blocked":
            out["blocked_by"] = self.blocked_by
        return out


@dataclass(frozen=True, slots=True)
class ReplayState:
    """A journal replayed: what completed (with outputs), what failed, what was damaged."""

    path: str
    """The journal file."""
    plan_id: str | None = None
    """The plan identity the journal belongs to (latest ``plan_started``/``plan_resumed``/
    ``plan_completed``)."""
    plan_hash: str | None = None
    """Content hash of the plan last executed into the journal."""
    journal_version: int | None = None
    """Format version from ``plan_started`` (None for the gem's journals)."""
    status: str | None = None
    """``running``, ``completed``, ``failed``, ``interrupted`` (or the gem's statuses);
    None for a journal with no plan event."""
    tasks: Mapping[str, TaskState] = field(default_factory=dict)
    """Every journalled task, by task id, in the order first seen."""
    completed: tuple[str, ...] = ()
    """Ids of succeeded tasks, in completion order."""
    events: int = 0
    """Events read (damaged lines excluded)."""
    unknown_events: Mapping[str, int] = field(default_factory=dict)
    """Event types planeval does not know, with counts (kept and ignored)."""
    damage: tuple[Damage, ...] = ()
    """Every line skipped, in file order (the torn tail included)."""
    torn_tail: Damage | None = None
    """The torn last line, if the journal ends mid-line."""
    resumes: int = 0
    """How many ``plan_resumed`` events."""
    interruptions: int = 0
    """How many ``plan_interrupted`` events."""
    repairs: tuple[Mapping[str, Any], ...] = ()
    """``journal_repaired`` events: torn tails cut off before appending."""
    task_fingerprints: Mapping[str, str] | None = None
    """Task id -> structure fingerprint of the plan last recorded (None: an older journal)."""
    suspect: tuple[str, ...] = ()
    """Tasks whose state damage hides (status ``unknown``): an event after a damaged or
    missing line that no resume has decided on yet, or two different outputs. Not restored:
    a resume runs them and their downstream again, once (its ``plan_resumed`` settles it)."""

    @property
    def outputs(self) -> dict[str, Any]:
        """Outputs of the succeeded tasks, by task id."""
        return {tid: self.tasks[tid].output for tid in self.completed}

    @property
    def failed(self) -> tuple[str, ...]:
        """Ids of tasks whose last word is a failure."""
        return tuple(t.task_id for t in self.tasks.values() if t.status == "failed")

    @property
    def failures(self) -> dict[str, dict[str, Any]]:
        """Failed task id -> ``{"error", "error_type", "retryable"}`` (the gem's shape)."""
        return {
            t.task_id: {"error": t.error, "error_type": t.error_type, "retryable": t.retryable}
            for t in self.tasks.values()
            if t.status == "failed"
        }

    @property
    def blocked(self) -> dict[str, str | None]:
        """Blocked task id -> the failed task that blocked it."""
        return {t.task_id: t.blocked_by for t in self.tasks.values() if t.status == "blocked"}

    def is_completed(self, task_id: str) -> bool:
        """True when the journal records a success for the task."""
        task = self.tasks.get(task_id)
        return task is not None and task.status == "succeeded"

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON (outputs left out: ``journal show`` prints statuses)."""
        return {
            "path": self.path,
            "plan_id": self.plan_id,
            "plan_hash": self.plan_hash,
            "journal_version": self.journal_version,
            "status": self.status,
            "events": self.events,
            "resumes": self.resumes,
            "interruptions": self.interruptions,
            "tasks": [t.to_dict() for t in self.tasks.values()],
            "completed": list(self.completed),
            "failed": list(self.failed),
            "blocked": self.blocked,
            "unknown_events": dict(self.unknown_events),
            "damage": [d.to_dict() for d in self.damage],
            "torn_tail": self.torn_tail.to_dict() if self.torn_tail else None,
            "repairs": [dict(r) for r in self.repairs],
            "suspect": list(self.suspect),
        }


class JournalDamagedError(JournalError):
    """Strict replay met a damaged line.

    Attributes:
        damage: the first damaged line.
        state: the tolerant replay of the whole journal (every damaged line in ``damage``).
    """

    def __init__(self, damage: Damage, state: ReplayState, *, hint: str | None = None) -> None:
        self.damage = damage
        self.state = state
        more = len(state.damage) - 1
        super().__init__(
            f"damaged journal line: {damage.reason}"
            + (f" (and {more} more damaged line{'s' if more > 1 else ''})" if more > 0 else ""),
            source=state.path,
            location=f"line {damage.line}",
            hint=hint
            or (
                "a resume cuts a torn last line off; see `planeval journal show` for every line"
                if damage.torn
                else "replay tolerantly to skip damaged lines (`planeval journal show`)"
            ),
        )
