"""``write_report``: summary.md, report.html, junit.xml and results.csv into the run folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness._atomic import atomic_path, atomic_write_text
from harness.report._aggregate import Summary, summarize
from harness.report._html import render_html
from harness.report._junit import render_junit, write_csv
from harness.report._load import LoadedRun, load_run
from harness.report._markdown import render_summary_md

if TYPE_CHECKING:
    from harness.gate import Baseline

__all__ = ["ReportFiles", "write_report"]


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """What ``write_report`` wrote."""

    summary_md: Path
    """The pull-request comment."""
    report_html: Path
    """The self-contained page."""
    junit_xml: Path
    """One test case per case x model x sample."""
    results_csv: Path
    """One line per result row."""
    summary: Summary
    """The aggregates the files were made from."""


def write_report(
    run: LoadedRun | str | Path, out: Path | None = None, *, baseline: Baseline | None = None
) -> ReportFiles:
    """Aggregate a run and write its four report files (into the run folder by default).

    Args:
        run: the run (or its folder).
        out: the folder to write into (default: the run folder).
        baseline: the suite's baseline: summary.md then lists new regressions first.
    """
    loaded = run if isinstance(run, LoadedRun) else load_run(run)
    folder = out or loaded.run_dir
    folder.mkdir(parents=True, exist_ok=True)
    summary = summarize(loaded)
    files = ReportFiles(
        folder / "summary.md",
        folder / "report.html",
        folder / "junit.xml",
        folder / "results.csv",
        summary,
    )
    atomic_write_text(files.summary_md, render_summary_md(summary, baseline=baseline))
    atomic_write_text(files.report_html, render_html(summary))
    atomic_write_text(files.junit_xml, render_junit(loaded))
    with atomic_path(files.results_csv) as tmp:
        write_csv(loaded, tmp)
    return files
