"""``write_report``: summary.md, report.html, junit.xml and results.csv into the run folder."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.report._aggregate import Summary, summarize
from harness.report._html import render_html
from harness.report._junit import render_junit, write_csv
from harness.report._load import LoadedRun, load_run
from harness.report._markdown import render_summary_md

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


def _readable(tmp: str) -> None:
    """mkstemp makes 0600 files; report files get the usual permissions (0666 - umask)."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)


def _atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    _readable(tmp)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_report(run: LoadedRun | str | Path, out: Path | None = None) -> ReportFiles:
    """Aggregate a run and write its four report files (into the run folder by default)."""
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
    _atomic(files.summary_md, render_summary_md(summary))
    _atomic(files.report_html, render_html(summary))
    _atomic(files.junit_xml, render_junit(loaded))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".results.csv.", suffix=".tmp")
    os.close(fd)
    try:
        _readable(tmp)
        write_csv(loaded, Path(tmp))
        os.replace(tmp, files.results_csv)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return files
