"""``planeval report RUN``: summary.md, report.html, junit.xml and results.csv."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from harness._cli._exit import ExitCode
from harness._cli._output import fail_input, print_json, say_error
from harness._errors import InputError
from harness._format import format_rate

if TYPE_CHECKING:
    from harness.baseline import Baseline
    from harness.report import LoadedRun


def _plain(value: Any) -> Any:
    """A JSON-safe scalar: numpy numbers as Python numbers, NaN as null."""
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and value != value else value


def report_command(
    run: Annotated[
        Path,
        typer.Argument(
            metavar="RUN",
            help="The run folder (reports/runs/<run-id>), or a folder of runs: then every "
            "run's report plus index.html.",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="DIR", help="Write the files here instead of the run folder."
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", metavar="text|json", help="What to print.")
    ] = "text",
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="PATH",
            help="A baseline file, or a folder of <suite>.json (e.g. reports/baselines/): "
            "summary.md lists the failing cases that are new since it first.",
        ),
    ] = None,
) -> None:
    """Write summary.md, report.html, junit.xml and results.csv into the run folder."""
    if fmt not in ("text", "json"):
        fail_input(f"--format must be text or json, not {fmt!r}")
    from harness.report import is_run_folder, load_run, write_report

    if run.is_dir() and not is_run_folder(run):
        _index(run, out, fmt, baseline)
        return
    try:
        loaded = load_run(run)
        for warning in loaded.warnings:
            typer.echo(f"planeval: warning: {warning}", err=True)
        base = _baseline_for(loaded, baseline, required=True) if baseline else None
        files = write_report(loaded, out, baseline=base, processes=2)
    except InputError as exc:
        fail_input(exc)
    from harness.cost import run_prices, usage_total_line
    from harness.report._metrics import metric_text_lines

    metrics = files.summary.metrics
    prices = run_prices(loaded.manifest)
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
                "usage": loaded.usage[1].to_dict(),
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
    usage = usage_total_line(loaded.rows, prices, usage=loaded.usage)
    if usage is not None:
        typer.echo(usage)
    for line in metric_text_lines(metrics):
        typer.echo(line)
    for path in paths.values():
        typer.echo(f"wrote {path}")
    if files.report_data is not None:
        typer.echo(
            f"wrote {files.report_data}/ (report.html's case table: keep it beside the page)"
        )


def _baseline_for(loaded: LoadedRun, given: Path, *, required: bool) -> Baseline | None:
    """The baseline of the run's suite from ``--baseline`` (a file, or a folder of
    ``<suite>.json``).

    Args:
        loaded: the run.
        given: the ``--baseline`` value.
        required: a missing or other suite's baseline is an error (one run); else (a folder of
            runs) such a run gets none, with a warning.

    Raises:
        InputError: ``required`` and no baseline of the suite, or an unreadable baseline.
    """
    from harness.baseline import baseline_path, load_baseline

    path = baseline_path(loaded.suite, given, loaded.run_dir)
    if not required and not path.is_file():
        typer.echo(
            f"planeval: warning: no baseline of suite {loaded.suite!r} at {path}: its failing "
            "cases are listed worst first",
            err=True,
        )
        return None
    found = load_baseline(path)
    if found.suite != loaded.suite:
        if not required:
            return None
        raise InputError(
            f"the baseline is of suite {found.suite!r}, the run of {loaded.suite!r}",
            source=str(path),
            hint="pass the baseline of this suite, or the folder of baselines",
        )
    return found


def _index(folder: Path, out: Path | None, fmt: str, baseline: Path | None) -> None:
    """``planeval report DIR`` on a folder of runs: each run's report and index.html."""
    from harness.report import write_index

    def baselines(loaded: LoadedRun) -> Baseline | None:
        return _baseline_for(loaded, baseline, required=False) if baseline else None

    try:
        index, entries = write_index(folder, out, baselines=baselines)
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
