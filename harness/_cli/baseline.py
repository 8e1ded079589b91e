"""``planeval baseline RUN``: write the baseline file the gate compares against."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness._cli._output import fail_input
from harness._errors import InputError


def baseline_command(
    run: Annotated[Path, typer.Argument(help="The run folder to take as the reference.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Where to write it (default: reports/baseline.json)."),
    ] = None,
) -> None:
    """Write reports/baseline.json (to commit) from a run."""
    from harness.gate import default_baseline_path, write_baseline
    from harness.report import load_run

    try:
        loaded = load_run(run)
    except InputError as exc:
        fail_input(exc)
    for warning in loaded.warnings:
        typer.echo(f"planeval: warning: {warning}", err=True)
    counts = loaded.frame["status"].value_counts()
    gaps = {k: int(counts.get(k, 0)) for k in ("missing", "stale", "error")}
    if any(gaps.values()):
        typer.echo(
            "planeval: warning: the run has "
            + ", ".join(f"{v} {k}" for k, v in gaps.items() if v)
            + " row(s); those samples are not in the baseline",
            err=True,
        )
    path = out or default_baseline_path(loaded.run_dir)
    doc = write_baseline(loaded, path)
    cases = sum(len(m["cases"]) for m in doc["models"].values())
    typer.echo(
        f"wrote {path}: suite {doc['suite']}, {len(doc['models'])} model(s), "
        f"{cases} case x model entries from run {doc['run_id']}"
    )
