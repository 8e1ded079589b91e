"""Reports over a run: pass rates with clustered intervals, flaky cases, and the files
``planeval report`` writes (summary.md, report.html, junit.xml, results.csv); an index page
over a folder of runs."""

from harness.report._aggregate import NOT_COUNTED, Summary, case_label, summarize
from harness.report._columns import MODEL_COLUMNS, ModelColumn
from harness.report._hints import rerecord_hint
from harness.report._html import render_html
from harness.report._index import IndexEntry, find_runs, is_run_folder, render_index, write_index
from harness.report._junit import render_junit, write_csv
from harness.report._load import LoadedRun, load_run, resolve_run_dir
from harness.report._markdown import MAX_CHARS, render_summary_md
from harness.report._write import ReportFiles, write_report

__all__ = [
    "MAX_CHARS",
    "MODEL_COLUMNS",
    "NOT_COUNTED",
    "IndexEntry",
    "LoadedRun",
    "ModelColumn",
    "ReportFiles",
    "Summary",
    "case_label",
    "find_runs",
    "is_run_folder",
    "load_run",
    "render_html",
    "render_index",
    "render_junit",
    "render_summary_md",
    "rerecord_hint",
    "resolve_run_dir",
    "summarize",
    "write_csv",
    "write_index",
    "write_report",
]
