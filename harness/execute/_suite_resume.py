"""``resume-eval``: crash-and-resume scenarios over a suite's recorded plans, as a run.

Every recorded plan that can be executed is crashed at each task in each crash mode and
resumed (``harness.execute.resume_scenarios``); the row of a plan passes when every scenario
kept the invariants (no completed task ran again, the outputs equal an uninterrupted run's,
the journal replays strictly). Per crash mode the row carries a check ``resume_<mode>``, so
reports show a pass rate per mode and the crash points that broke as violations. The run is
labelled ``<suite>.resume`` so that it is never compared with a run of plan checks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness._errors import InputError, PlanLoadError
from harness.execute._resume_eval import CRASH_MODES, CrashMode, resume_scenarios
from harness.plan import Plan
from harness.run import RESUME_SUFFIX, ResultRow, RunResult, StopRequest, run_suite
from harness.suite import Suite

__all__ = ["RESUME_SUFFIX", "resume_eval_suite", "resume_row"]

_FSYNC_EVERY = 10_000
"""Simulated crashes keep the process alive: fsync would only cost time."""


def resume_row(row: ResultRow, *, modes: Sequence[CrashMode] = CRASH_MODES) -> ResultRow:
    """Replace a checked row's outcome with its plan's crash-and-resume outcome.

    Rows without a plan (missing, stale, error, unparseable) are returned unchanged.
    """
    if row.plan is None or row.status not in ("pass", "fail"):
        return row
    try:
        plan = Plan.from_dict(row.plan)
        scenarios = resume_scenarios(plan, modes=modes, fsync_every=_FSYNC_EVERY)
    except PlanLoadError as exc:
        return dataclasses.replace(
            row,
            status="fail",
            checks={"executable": "fail", **{f"resume_{m}": "skip" for m in modes}},
            violations=[_violation("executable", None, "/tasks", exc.what)],
        )
    index = {task.id: i for i, task in enumerate(plan.tasks)}
    checks = {"executable": "pass"}
    violations = []
    for mode in modes:
        broken = [s for s in scenarios if s.mode == mode and not s.passed]
        checks[f"resume_{mode}"] = "fail" if broken else "pass"
        for s in broken:
            message = f"crash ({mode}) at {s.crash_at!r}: " + "; ".join(s.violations)
            violations.append(
                _violation(f"resume_{mode}", s.crash_at, f"/tasks/{index[s.crash_at]}", message)
            )
    return dataclasses.replace(
        row,
        status="fail" if violations else "pass",
        checks=checks,
        violations=violations,
        detail=f"{len(scenarios)} crash scenarios",
    )


def resume_eval_suite(
    suite: Suite,
    *,
    models: Sequence[str] | None = None,
    samples: int | None = None,
    modes: Sequence[CrashMode] = CRASH_MODES,
    out: Path | None = None,
    fixtures: Path | None = None,
    progress: Callable[[ResultRow], None] | None = None,
    stop: StopRequest | None = None,
) -> RunResult:
    """Replay a suite's recordings and run the crash-and-resume scenarios of every plan.

    Writes a run (results.jsonl, run.json) labelled ``<suite>.resume`` that report, compare
    and gate read like any other.

    Raises:
        InputError: unknown model ids or modes, or an output folder that holds a run.
    """
    unknown = [m for m in modes if m not in CRASH_MODES]
    if unknown:
        raise InputError(
            f"unknown crash mode(s) {', '.join(map(repr, unknown))}",
            hint=f"choose from {', '.join(CRASH_MODES)}",
        )

    def transform(row: ResultRow) -> ResultRow:
        return resume_row(row, modes=modes)

    return run_suite(
        suite,
        models=models,
        samples=samples,
        record_mode="none",
        out=out,
        fixtures=fixtures,
        progress=progress,
        transform=transform,
        label=suite.name + RESUME_SUFFIX,
        stop=stop,
    )


def _violation(check: str, task: str | None, path: str, message: str) -> dict[str, Any]:
    return {"check": check, "severity": "error", "task": task, "path": path, "message": message}
