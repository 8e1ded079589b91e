"""``planeval report RUN``: summary.md, report.html, junit.xml and results.csv."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from harness._cli._exit import ExitCode
from harness._cli._output import fail_input, print_json, say_error
from harness._errors import InputError
from harness._format import format_rate


def _plain(value: Any) -> Any:
    """A JSON-safe scalar: numpy numbers as Python numbers, NaN as null."""
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and value != value else value


def report_command(
    run: Annotated[
        Path,
        typer.Argument(
            help="The run folder (reports/runs/<run-id>), or a folder of runs: then every "
            "run's report plus index.html."
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the files here instead of the run folder.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="text | json: what to print.")] = "text",
) -> None:
    """Write summary.md, report.html, junit.xml and results.csv into the run folder."""
    if fmt not in ("text", "json"):
        fail_input(f"--format must be text or json, not {fmt!r}")
    from harness.report import is_run_folder, load_run, write_report

    if run.is_dir() and not is_run_folder(run):
        _index(run, out, fmt)
        return
    try:
        loaded = load_run(run)
        for warning in loaded.warnings:
            typer.echo(f"planeval: warning: {warning}", err=True)
        files = write_report(loaded, out)
    except InputError as exc:
        fail_input(exc)
    from harness.report._metrics import metric_text_lines

    metrics = files.summary.metrics
    total = files.summary.total
    paths = {
        "summary_md": str(files.summary_md),
        "report_html": str(files.report_html),
        "junit_xml": str(files.junit_xml),
        "results_csv": str(files.results_csv),
    }
    if fmt == "json":
        print_json(
            {
                "run": str(loaded.run_dir),
                "suite": loaded.suite,
                "totals": {k: _plain(v) for k, v in total.items()},
                "models": [
                    {"model": str(model), **{k: _plain(v) for k, v in row.items()}}
                    for model, row in files.summary.models.iterrows()
                ],
                "metrics": metrics.to_dict() if metrics is not None else None,
                "files": paths,
                "warnings": loaded.warnings,
            }
        )
        return
    rate = (
        format_rate(total["passed"], total["counted"]) if total["counted"] else "no counted results"
    )
    typer.echo(
        f"{loaded.suite}: {total['passed']}/{total['counted']} counted results pass ({rate}); "
        f"not counted: {total['missing']} missing, {total['stale']} stale, {total['error']} error"
    )
    for line in metric_text_lines(metrics):
        typer.echo(line)
    for path in paths.values():
        typer.echo(f"wrote {path}")


def _index(folder: Path, out: Path | None, fmt: str) -> None:
    """``planeval report DIR`` on a folder of runs: each run's report and index.html."""
    from harness.report import write_index

    try:
        index, entries = write_index(folder, out)
    except InputError as exc:
        fail_input(exc)
    if fmt == "json":
        print_json(
            {
                "index_html": str(index),
                "runs": [
                    {
                        "run": str(e.run_dir),
                        "suite": e.files.summary.run.suite if e.files else None,
                        "report_html": str(e.files.report_html) if e.files else None,
                        "problem": e.problem,
                    }
                    for e in entries
                ],
            }
        )
    else:
        for e in entries:
            if e.files is None:
                continue
            t = e.files.summary.total
            typer.echo(
                f"{e.files.summary.run.suite}: {t['passed']}/{t['counted']} counted results "
                f"pass ({format_rate(t['passed'], t['counted'])}); wrote {e.files.report_html}"
            )
        typer.echo(f"wrote {index}")
    bad = [e for e in entries if e.files is None]
    for e in bad:
        say_error(f"no report for {e.problem}")
    if bad:
        raise typer.Exit(int(ExitCode.INPUT))
