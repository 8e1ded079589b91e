"""One page for many suites: ``planeval report DIR`` on a folder of run folders (what
``planeval run evals/ --out DIR`` writes, or ``reports/runs/``) writes every run's report and
an ``index.html`` linking them with their headline figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from harness._atomic import atomic_write_text
from harness._errors import InputError, RunFormatError
from harness._format import format_rate
from harness.report._html_assets import CSS
from harness.report._load import LoadedRun, load_run
from harness.report._write import ReportFiles, write_report

if TYPE_CHECKING:
    from harness.baseline import Baseline

__all__ = ["IndexEntry", "find_runs", "is_run_folder", "write_index"]


@dataclass(frozen=True)
class IndexEntry:
    """One run of the index: its report files, or why it has none."""

    run_dir: Path
    """The run folder."""
    files: ReportFiles | None
    """What ``write_report`` wrote, or None when the run could not be read."""
    problem: str | None = None
    """The one-line reason the run has no report."""


def is_run_folder(path: Path) -> bool:
    """Whether ``path`` holds a run (``run.json``)."""
    return (path / "run.json").is_file()


def find_runs(folder: Path) -> list[Path]:
    """The run folders directly inside ``folder``, by name.

    Raises:
        RunFormatError: ``folder`` holds no run folder.
    """
    runs = sorted(p for p in folder.iterdir() if p.is_dir() and is_run_folder(p))
    if not runs:
        raise RunFormatError(
            "neither a run folder nor a folder of runs (no run.json in it or its subfolders)",
            source=str(folder),
            hint="give a run folder, or the folder `planeval run evals/ --out DIR` wrote",
        )
    return runs


def _row(entry: IndexEntry, root: Path) -> str:
    if entry.files is None:
        return (
            f"<tr><td colspan='2'><code>{escape(entry.run_dir.name)}</code></td>"
            f"<td colspan='5' class='note'>no report: {escape(entry.problem or '')}</td></tr>"
        )
    s = entry.files.summary
    t, m = s.total, s.run.manifest
    link = entry.files.report_html.relative_to(root).as_posix()
    models = s.models.sort_values("rate", ascending=False)
    best = (
        f"<code>{escape(str(models.index[0]))}</code> "
        f"{format_rate(int(models['passed'].iloc[0]), int(models['counted'].iloc[0]))}"
        if len(models) > 1
        else ""
    )
    warn = " <span class='w'>(incomplete)</span>" if s.run.warnings else ""
    return (
        f"<tr><td><a href='{escape(link)}'><code>{escape(s.run.suite)}</code></a>{warn}</td>"
        f"<td class='meta'>{escape(m.run_id)}<br>{escape(m.started_at)}</td>"
        f"<td class='num'><b>{format_rate(t['passed'], t['counted'])}</b></td>"
        f"<td class='num'>{t['passed']:,} / {t['counted']:,}</td>"
        f"<td class='num'>{len(models)} × {m.samples}</td><td>{best}</td>"
        f"<td class='num'>{t['missing']:,} / {t['stale']:,} / {t['error']:,}</td></tr>"
    )


def render_index(entries: list[IndexEntry], root: Path) -> str:
    """The index page (links relative to ``root``, where it is written)."""
    rows = "".join(_row(e, root) for e in entries)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planeval reports: {escape(root.name)}</title><style>{CSS}</style></head><body>
<h1>planeval reports: <code>{escape(root.name)}</code></h1>
<p class="meta">{len(entries)} run(s). Pass rates are pooled over counted results (pass, fail,
unparseable); missing, stale and error rows are not counted. Click a suite for its report.</p>
<div class="scroll"><table id="runs"><tr><th>suite</th><th>run</th><th>pass rate</th>
<th>passed / counted</th><th>models × samples</th><th>best model</th>
<th>missing / stale / error</th></tr>{rows}</table></div>
</body></html>
"""


def write_index(
    folder: Path,
    out: Path | None = None,
    *,
    baselines: Callable[[LoadedRun], Baseline | None] | None = None,
) -> tuple[Path, list[IndexEntry]]:
    """Write every run's report (into its own folder, or ``out/<run>``) and ``index.html``.

    A run that cannot be read gets a line saying why instead of a link; the others are
    written. Raises ``RunFormatError`` when ``folder`` holds no run at all.

    Args:
        folder: the folder of run folders.
        out: where to write instead (``out/<run>/`` and ``out/index.html``).
        baselines: each run's baseline (or None), for summary.md's regressions.
    """
    root = out or folder
    entries = []
    for run_dir in find_runs(folder):
        try:
            loaded = load_run(run_dir)
            baseline = baselines(loaded) if baselines is not None else None
            files = write_report(loaded, root / run_dir.name if out else None, baseline=baseline)
        except InputError as exc:
            entries.append(IndexEntry(run_dir, None, exc.one_line()))
            continue
        entries.append(IndexEntry(run_dir, files))
    root.mkdir(parents=True, exist_ok=True)
    index = root / "index.html"
    atomic_write_text(index, render_index(entries, root))
    return index, entries
