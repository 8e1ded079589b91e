"""What the structural checks return: violations, per-check outcomes and the expectations a
plan is checked against."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from harness.plan import Plan

__all__ = ["CHECKS", "CheckReport", "CheckVerdict", "Expectations", "Severity", "Violation"]

Severity = Literal["error", "warning"]

CHECKS: dict[str, Severity] = {
    "schema": "error",
    "has_tasks": "error",
    "unique_ids": "error",
    "deps_resolve": "error",
    "self_dependency": "error",
    "acyclic": "error",
    "needs_resolve": "error",
    "needs_earlier_output": "error",
    "task_count_band": "error",
    "known_capabilities": "error",
    "required_capabilities": "error",
    "arguments_valid": "error",
    "argument_refs_resolve": "error",
    "dataflow_types": "warning",
    "isolated_task": "warning",
    "reaches_end": "warning",
    "redundant_dependency": "warning",
}
"""Every check id with its default severity, in the order the checks run and are reported. A
check may also report warnings (``schema``: a key the plan format does not define); its outcome
is then ``warn`` unless it also found an error. A suite may make ``dataflow_types`` an error
(``Expectations.dataflow_types``)."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One thing wrong with a plan."""

    check: str
    """The check id (a key of ``CHECKS``)."""
    severity: Severity
    """``error`` fails the plan; ``warning`` does not."""
    task: str | None
    """The task concerned, or None for the plan as a whole."""
    path: str
    """JSON pointer into the canonical plan (``/tasks/3/depends_on/0``)."""
    message: str
    """What is wrong and what would fix it."""

    def to_dict(self) -> dict[str, Any]:
        """The violation as the stable JSON object of ``--format json``."""
        return {
            "check": self.check,
            "severity": self.severity,
            "task": self.task,
            "path": self.path,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class Expectations:
    """What a plan is expected to satisfy beyond soundness (from a suite, a case or the CLI)."""

    min_tasks: int | None = None
    """Fewest tasks allowed, or None."""
    max_tasks: int | None = None
    """Most tasks allowed, or None."""
    required_capabilities: tuple[str, ...] = ()
    """Capabilities (registry names) that some task must use."""
    needs: Literal["strict", "imply_deps"] = "strict"
    """``strict``: a needs producer must be a strict ancestor through depends_on.
    ``imply_deps``: needs count as dependencies (the agentic gem's runtime rule)."""
    dataflow_types: Severity = "warning"
    """The severity of ``dataflow_types`` (a type mismatch between a producer's result and the
    parameter it fills)."""


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The outcome of checking one plan."""

    plan: Plan
    """The plan that was checked."""
    violations: tuple[Violation, ...]
    """Every violation, errors and warnings, in check order."""
    outcomes: dict[str, str] = field(default_factory=dict)
    """Each check id -> ``pass`` | ``fail`` | ``warn`` | ``skip``."""

    @property
    def ok(self) -> bool:
        """True when no error-severity check failed (warnings allowed)."""
        return not any(v.severity == "error" for v in self.violations)

    @property
    def errors(self) -> tuple[Violation, ...]:
        """The error-severity violations."""
        return tuple(v for v in self.violations if v.severity == "error")

    @property
    def warnings(self) -> tuple[Violation, ...]:
        """The warning-severity violations."""
        return tuple(v for v in self.violations if v.severity == "warning")

    @property
    def task_count(self) -> int:
        """Number of tasks in the plan."""
        return len(self.plan.tasks)

    def to_dict(self) -> dict[str, Any]:
        """``{ok, task_count, outcomes, violations}`` as plain JSON."""
        return {
            "ok": self.ok,
            "task_count": self.task_count,
            "outcomes": dict(self.outcomes),
            "violations": [v.to_dict() for v in self.violations],
        }


class CheckVerdict:
    """What checking one plan found, without the plan: the part of a ``CheckReport`` a printed
    result shows. Plans of one graph may share one verdict (``RecordChecker``); it is compared
    and hashed by identity, and never changed once made."""

    __slots__ = ("ok", "outcomes", "task_count", "violations")

    def __init__(
        self,
        task_count: int,
        violations: tuple[Violation, ...],
        outcomes: dict[str, str],
        ok: bool,
    ) -> None:
        self.task_count = task_count
        """Number of tasks in the plan."""
        self.violations = violations
        """Every violation, errors and warnings, in check order."""
        self.outcomes = outcomes
        """Each check id -> ``pass`` | ``fail`` | ``warn`` | ``skip`` (shared: copy to change)."""
        self.ok = ok
        """True when no error-severity check failed (warnings allowed)."""

    @classmethod
    def of(cls, report: CheckReport) -> CheckVerdict:
        """The verdict of a report."""
        return cls(report.task_count, report.violations, report.outcomes, report.ok)
