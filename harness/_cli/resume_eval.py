"""``planeval resume-eval SUITE...``: crash-and-resume scenarios over recorded plans.

Exit codes like ``run``: 0 every plan resumes correctly, 1 a scenario broke an invariant (or a
plan cannot be executed), 2 unusable input, 3 missing or stale recordings, 130 interrupted.
"""

from __future__ import annotations

import functools
from pathlib import Path

import typer

from harness._cli.run import run_and_report


def resume_eval_command(
    suites: list[Path] = typer.Argument(
        ..., help="Suite files (evals/<suite>.yaml), or folders of them.", show_default=False
    ),
    model: list[str] = typer.Option(
        [], "--model", "-m", help="Only this model id (repeatable).", show_default=False
    ),
    samples: int | None = typer.Option(None, "--samples", help="Samples per case and model."),
    mode: list[str] = typer.Option(
        [],
        "--mode",
        help="Crash modes: raise, interrupt, torn_write (repeatable; default all).",
        show_default=False,
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Run folder (default reports/runs/<run-id>; <DIR>/<suite> for several)."
    ),
    fixtures: Path | None = typer.Option(
        None, "--fixtures", help="Recordings folder (default <project root>/plan_fixtures)."
    ),
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=1,
        help="Worker processes for the scenarios (default: one per available CPU).",
        show_default=False,
    ),
) -> None:
    """Crash every recorded plan at each task, resume it, and report the pass rate per mode.

    Replays only (never the network). Each run is labelled <suite>.resume and reads with
    report, compare and gate like any run.
    """
    from harness.execute import CRASH_MODES, resume_eval_suite
    from harness.execute._processes import available_cpus

    modes = tuple(mode) or CRASH_MODES
    evaluate = functools.partial(
        resume_eval_suite,
        modes=modes,  # checked by resume_eval_suite
        workers=workers if workers is not None else available_cpus(),
    )
    run_and_report(
        suites,
        evaluate,
        models=model,
        samples=samples,
        out=out,
        fixtures=fixtures,
        show_progress=True,
    )
