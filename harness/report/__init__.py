"""Reports over a run: pass rates with Wilson intervals, flaky cases, and the files
``planeval report`` writes (summary.md, report.html, junit.xml, results.csv)."""

from harness.report._aggregate import NOT_COUNTED, Summary, case_label, summarize
from harness.report._hints import rerecord_hint
from harness.report._html import render_html
from harness.report._junit import render_junit, write_csv
from harness.report._load import LoadedRun, load_run, resolve_run_dir
from harness.report._markdown import MAX_CHARS, render_summary_md
from harness.report._write import ReportFiles, write_report

__all__ = [
    "MAX_CHARS",
    "NOT_COUNTED",
    "LoadedRun",
    "ReportFiles",
    "Summary",
    "case_label",
    "load_run",
    "render_html",
    "render_junit",
    "render_summary_md",
    "rerecord_hint",
    "resolve_run_dir",
    "summarize",
    "write_csv",
    "write_report",
]
