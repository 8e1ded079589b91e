"""``planeval baseline RUN...``: write each suite's baseline, the file the gate compares with."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness._cli._exit import ExitCode
from harness._cli._output import fail_input, say_error
from harness._errors import InputError


def baseline_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            metavar="RUN...",
            help="Run folders to take as the reference, or a folder of them (one per suite).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="PATH",
            help="A .json file (one suite) or a folder of <suite>.json files "
            "(default: reports/baselines/).",
        ),
    ] = None,
) -> None:
    """Write reports/baselines/<suite>.json from the runs of a trusted revision.

    A baseline is replaced only by one of the same suite, and the command says what it
    replaced. Exit 0 written, 2 unusable input, 3 an incomplete run (nothing is written).
    """
    from harness.gate import (
        IncompleteRunError,
        baseline_from_run,
        baseline_path,
        replaceable,
        run_folders,
        write_baseline,
    )
    from harness.report import load_run

    try:
        loaded = [load_run(path) for path in run_folders(runs)]
        suites = [run.suite for run in loaded]
        twice = sorted({s for s in suites if suites.count(s) > 1})
        if twice:
            raise InputError(
                f"two runs of suite {twice[0]!r}: a suite has one baseline",
                hint="give one run per suite",
            )
        if out is not None and len(loaded) > 1 and out.suffix.lower() == ".json":
            raise InputError(
                f"--out {out} is one file, but {len(loaded)} suites need one baseline each",
                hint="give a folder",
            )
        for run in loaded:  # every refusal comes before anything is written
            baseline_from_run(run)
            replaceable(baseline_path(run.suite, out, run.run_dir), run.suite)
    except IncompleteRunError as exc:
        say_error(exc.one_line())
        raise typer.Exit(ExitCode.STALE) from None
    except InputError as exc:
        fail_input(exc)
    for run in loaded:
        for warning in run.warnings:
            typer.echo(f"planeval: warning: {warning}", err=True)
        counts = run.frame["status"].value_counts()
        gaps = {k: int(counts.get(k, 0)) for k in ("missing", "stale", "error")}
        if any(gaps.values()):
            typer.echo(
                f"planeval: warning: {run.suite}: the run has "
                + ", ".join(f"{v} {k}" for k, v in gaps.items() if v)
                + " row(s); those samples are not in the baseline",
                err=True,
            )
    for run in loaded:
        try:
            written = write_baseline(run, baseline_path(run.suite, out, run.run_dir))
        except InputError as exc:
            fail_input(exc)
        typer.echo(written.describe())
