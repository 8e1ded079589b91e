"""``planeval merge RUN...``: join the shard runs of one suite and prompt into one run."""

from __future__ import annotations

from pathlib import Path

import typer

from harness._cli._output import fail_input


def merge_command(
    runs: list[Path] = typer.Argument(
        ...,
        metavar="RUN...",
        help="Shard run folders (made with `planeval run --shard I/N`).",
        show_default=False,
    ),
    out: Path | None = typer.Option(
        None, "--out", metavar="DIR", help="The merged run folder (default beside the first run)."
    ),
    allow_partial: bool = typer.Option(
        False,
        "--allow-partial",
        help="Write a merge that lacks items or holds foreign ones; run.json says so and "
        "gate and baseline refuse it.",
    ),
) -> None:
    """Merge shard runs into one run that report, compare and gate read like any run.

    Refuses runs of different suites, prompts, models or samples, overlapping shards, names
    the shards that are missing, and lists the (model, case, sample) items missing or foreign
    (unless --allow-partial). Exit codes: 0 merged, 2 cannot be merged.
    """
    from harness._errors import InputError
    from harness.run import merge_runs

    try:
        merged = merge_runs(runs, out, allow_partial=allow_partial)
    except InputError as exc:
        fail_input(exc)
    counts = ", ".join(f"{n} {s}" for s, n in merged.manifest.counts.items() if n)
    typer.echo(
        f"merged {merged.rows:,} rows from {len(merged.sources)} run(s) into {merged.run_dir} "
        f"({counts})"
    )
    if merged.manifest.partial:
        p = merged.manifest.partial
        typer.echo(
            f"planeval: warning: a partial merge ({p['missing']} items missing, {p['foreign']} "
            "foreign): run.json says so, and gate and baseline refuse it",
            err=True,
        )
