"""``resume-eval``: crash-and-resume scenarios over a suite's recorded plans, as a run.

Every recorded plan that can be executed is crashed at each task in each crash mode and
resumed (``harness.execute.resume_scenarios``); the row of a plan passes when every scenario
kept every property (``PROPERTIES``). The row carries a check ``resume_<mode>`` per crash mode
and ``resume_<property>`` per property, so reports show a pass rate per mode and per property,
and each violation names the property, the mode and the crash task. The first few plans also
get a real-process SIGKILL (``resume_kill``). The run is
labelled ``<suite>.resume`` so that it is never compared with a run of plan checks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from harness._errors import InputError, PlanLoadError
from harness.execute._graph import TaskGraph
from harness.execute._processes import map_in_processes
from harness.execute._resume_eval import CRASH_MODES, PROPERTIES, CrashMode, resume_scenarios
from harness.plan import Plan
from harness.run import RESUME_SUFFIX, ResultRow, RunResult, StopRequest, run_suite
from harness.suite import Suite

__all__ = ["KILLED_PLANS", "RESUME_SUFFIX", "resume_eval_suite", "resume_row"]

KILLED_PLANS = 3
"""Plans per resume-eval run whose middle task also gets a real-process SIGKILL (``kill``)."""


def resume_row(
    row: ResultRow, *, modes: Sequence[CrashMode] = CRASH_MODES, kill: bool = False
) -> ResultRow:
    """Replace a checked row's outcome with its plan's crash-and-resume outcome.

    Checks: ``executable``, one ``resume_<mode>`` per crash mode, and one ``resume_<property>``
    per property (``PROPERTIES``); each violation names the property it broke, and its
    message the crash mode and task. With ``kill``, the plan's middle task is also crashed by
    a real SIGKILL of a child process (check ``resume_kill``).

    Rows without a plan (missing, stale, error, unparseable) are returned unchanged.
    """
    if row.plan is None or row.status not in ("pass", "fail"):
        return row
    all_modes = [*modes, *(["kill"] if kill else [])]
    try:
        plan = Plan.from_dict(row.plan)
        order = TaskGraph(plan).topological
        kill_at = [order[len(order) // 2]] if kill and order else []
        scenarios = resume_scenarios(plan, modes=modes, kill_at=kill_at)
    except PlanLoadError as exc:
        skipped = {f"resume_{name}": "skip" for name in (*all_modes, *PROPERTIES)}
        return dataclasses.replace(
            row,
            status="fail",
            checks={"executable": "fail", **skipped},
            violations=[_violation("executable", None, "/tasks", exc.what)],
        )
    index = {task.id: i for i, task in enumerate(plan.tasks)}
    checks = {"executable": "pass"}
    for mode in all_modes:
        ran = [s for s in scenarios if s.mode == mode]
        checks[f"resume_{mode}"] = (
            "fail" if any(not s.passed for s in ran) else "pass" if ran else "skip"
        )
    for prop in PROPERTIES:
        ran = [s for s in scenarios if prop in s.checked]
        failed = any(prop in s.failed_properties for s in ran)
        checks[f"resume_{prop}"] = "fail" if failed else "pass" if ran else "skip"
    violations = [
        _violation(
            f"resume_{prop}",
            s.crash_at,
            f"/tasks/{index[s.crash_at]}",
            f"{prop} broken by a crash ({s.mode}) at {s.crash_at!r}: {message}",
        )
        for s in scenarios
        for prop, message in zip(s.failed_properties, s.violations, strict=True)
    ]
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
    workers: int = 1,
) -> RunResult:
    """Replay a suite's recordings and run the crash-and-resume scenarios of every plan.

    Writes a run (results.jsonl, run.json) labelled ``<suite>.resume`` that report, compare
    and gate read like any other. With ``workers`` > 1 the plans' scenarios run in that
    many worker processes (rows keep their order; the result is the same).

    Raises:
        InputError: unknown model ids or modes, or an output folder that holds a run.
    """
    unknown = [m for m in modes if m not in CRASH_MODES]
    if unknown:
        raise InputError(
            f"unknown crash mode(s) {', '.join(map(repr, unknown))}",
            hint=f"choose from {', '.join(CRASH_MODES)}",
        )

    chosen = tuple(modes)

    def jobs(rows: Iterator[ResultRow]) -> Iterator[tuple[ResultRow, tuple[CrashMode, ...], bool]]:
        killed = 0
        for row in rows:
            kill = killed < KILLED_PLANS and _executable(row)
            killed += kill
            yield row, chosen, kill

    def transform_rows(rows: Iterator[ResultRow]) -> Iterator[ResultRow]:
        return map_in_processes(_resume_job, jobs(rows), workers)

    return run_suite(
        suite,
        models=models,
        samples=samples,
        record_mode="none",
        out=out,
        fixtures=fixtures,
        progress=progress,
        transform_rows=transform_rows,
        label=suite.name + RESUME_SUFFIX,
        stop=stop,
    )


def _executable(row: ResultRow) -> bool:
    """The row has a plan that loads and forms a task graph (it can be crashed)."""
    if row.plan is None or row.status not in ("pass", "fail"):
        return False
    try:
        TaskGraph(Plan.from_dict(row.plan))
    except PlanLoadError:
        return False
    return True


def _resume_job(job: tuple[ResultRow, tuple[CrashMode, ...], bool]) -> ResultRow:
    row, modes, kill = job
    return resume_row(row, modes=modes, kill=kill)


def _violation(check: str, task: str | None, path: str, message: str) -> dict[str, Any]:
    return {"check": check, "severity": "error", "task": task, "path": path, "message": message}
