"""``planeval resume-eval SUITE...``: crash-and-resume scenarios over recorded plans.

Exit codes like ``run``: 0 every plan resumes correctly, 1 a scenario broke an invariant (or a
plan cannot be executed), 2 unusable input, 3 missing or stale recordings, 130 interrupted.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import cast

import typer

from harness._cli._options import max_bytes_option
from harness._cli.run import run_and_report


def resume_eval_command(
    suites: list[Path] = typer.Argument(
        ...,
        metavar="SUITE...",
        help="Suite files (evals/<suite>.yaml), or folders of them.",
        show_default=False,
    ),
    model: list[str] = typer.Option(
        [],
        "--model",
        "-m",
        metavar="MODEL",
        help="Only this model id (repeatable).",
        show_default=False,
    ),
    samples: int | None = typer.Option(
        None, "--samples", metavar="N", help="Samples per case and model."
    ),
    mode: list[str] = typer.Option(
        [],
        "--mode",
        metavar="MODE",
        help="Crash modes: raise, interrupt, torn_write (repeatable; default all).",
        show_default=False,
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        metavar="DIR",
        help="Run folder (default reports/runs/<run-id>; <DIR>/<suite> for several).",
    ),
    fixtures: Path | None = typer.Option(
        None,
        "--fixtures",
        metavar="DIR",
        help="Recordings folder (default <project root>/plan_fixtures).",
    ),
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=1,
        metavar="N",
        help="Worker processes for the scenarios (default: one per available CPU).",
        show_default=False,
    ),
    max_bytes: int | None = max_bytes_option("YAML files (suites, registries, cassettes)", "8 MiB"),
) -> None:
    """Crash each recorded plan at every task, resume it, report per crash mode.

    Replays only (never the network). Each run is labelled <suite>.resume and reads with
    report, compare and gate like any run.
    """
    from harness._yaml import max_bytes_in_force
    from harness.execute import CRASH_MODES, CrashMode, resume_eval_suite
    from harness.execute._processes import available_cpus

    modes = cast("tuple[CrashMode, ...]", tuple(mode)) or CRASH_MODES
    evaluate = functools.partial(
        resume_eval_suite,
        modes=modes,  # checked by resume_eval_suite
        workers=workers if workers is not None else available_cpus(),
    )
    with max_bytes_in_force(max_bytes):
        run_and_report(
            suites,
            evaluate,
            models=model,
            samples=samples,
            out=out,
            fixtures=fixtures,
            show_progress=True,
        )
