"""What ``run`` prints on stdout: the pass-rate table and the failing cases.

The table keeps every figure whole at any width: names fold onto several lines, figures never
do. When all status columns fit they are shown; on a narrow terminal (80 columns) the columns
that are not in the pass rate (missing, stale, error) are summed into one ``not counted``
column, whose breakdown ``run`` already lists on stderr.
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING

from harness._format import NO_RATE, format_rate

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from harness.run import RunResult
    from harness.run._summary import ModelSummary

__all__ = ["FAILING_SHOWN", "console_width", "print_failing", "print_table"]

FAILING_SHOWN = 10
"""Failing (case, model) pairs listed after the table."""

_LOG_WIDTH = 160
"""Width for output that is not a terminal (CI logs), unless COLUMNS says otherwise."""


def console_width(stream: IO[str]) -> int | None:
    """None (rich asks the terminal) for a terminal; else COLUMNS, or 160 for logs."""
    if stream.isatty():
        return None
    try:
        return max(40, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return _LOG_WIDTH


def _interval(summary: ModelSummary) -> str:
    """The 95% interval clustered by case (the one the reports print), in percent with one
    decimal, rounded outwards."""
    if not summary.counted:
        return NO_RATE
    from harness._format import format_interval

    return format_interval(*summary.interval)


_COMPACT_HEADERS = {
    "pass rate": "pass\nrate",
    "parse rate": "parse\nrate",
    "unparseable": "unpar-\nseable",
    "not counted": "not\ncounted",
}


def _table(results: list[RunResult], *, compact: bool) -> Table:
    from rich import box
    from rich.table import Table

    mode = results[0].manifest.record_mode if results else "none"
    how = "replayed recordings" if mode == "none" else f"record mode {mode}"
    table = Table(
        title=f"pass rate per suite and model ({how})",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
    names = ["suite / model"] if compact else ["suite", "model"]
    for name in names:
        table.add_column(name, overflow="fold", min_width=8)
    figures = ["pass rate", "95% CI", "parse rate", "pass", "fail", "unparseable"]
    figures += ["not counted"] if compact else ["missing", "stale", "error"]
    rows: list[list[str]] = []
    for result in results:
        manifest = result.manifest
        for summary in result.summary().model_summaries():
            c = summary.counts
            counted = c["pass"] + c["fail"] + c["unparseable"]
            cells = [
                format_rate(c["pass"], counted),
                _interval(summary),
                format_rate(c["pass"] + c["fail"], counted),
                *(f"{c[s]:,}" for s in ("pass", "fail", "unparseable")),
            ]
            if compact:
                cells.append(f"{c['missing'] + c['stale'] + c['error']:,}")
                rows.append([f"{manifest.suite} /\n  {summary.model}", *cells])
            else:
                cells += [f"{c[s]:,}" for s in ("missing", "stale", "error")]
                rows.append([manifest.suite, summary.model, *cells])
    for i, name in enumerate(figures):
        header = _COMPACT_HEADERS.get(name, name) if compact else name
        widest = max(
            [len(part) for part in header.split("\n")] + [len(r[len(names) + i]) for r in rows]
        )
        table.add_column(header, justify="right", no_wrap=True, min_width=widest)
    for row in rows:
        table.add_row(*row)
    return table


def _natural_width(console: Console, table: Table) -> int:
    """The width ``table`` takes when nothing is folded."""
    return console.measure(table, options=console.options.update_width(100_000)).maximum


def print_table(console: Console, results: list[RunResult]) -> None:
    """One table for every suite and model: pass rate with its 95% interval (clustered by
    case), parse
    rate and the count of each status; the compact form when the full one does not fit."""
    full = _table(results, compact=False)
    if _natural_width(console, full) <= console.width:
        console.print(full)
        return
    console.print(_table(results, compact=True))
    console.print("not counted: missing + stale + error rows (listed above)", highlight=False)


def print_failing(console: Console, results: list[RunResult]) -> None:
    """Up to ``FAILING_SHOWN`` failing (case, model) pairs, worst first, with the first
    violation of each, and where to see all of them."""
    tallies = [(result, result.summary()) for result in results]
    count = sum(tally.failing_count for _, tally in tallies)
    if not count:
        return
    failing = [f for _, tally in tallies for f in tally.worst_failing()]
    failing.sort(key=lambda f: -f.failed / f.counted)
    console.print()
    console.print(
        f"failing cases ({count:,}), worst first, with the first violation:",
        highlight=False,
    )
    for item in failing[:FAILING_SHOWN]:
        console.print(f"  {item.describe()}", highlight=False, markup=False, overflow="fold")
    runs = " ".join(str(r.run_dir) for r, tally in tallies if tally.failing_count)
    more = f"…and {count - FAILING_SHOWN:,} more; " if count > FAILING_SHOWN else ""
    console.print(
        f"  {more}all of them: planeval report {runs} (summary.md lists them, new "
        "regressions first with --baseline reports/baselines/; report.html has every violation)",
        highlight=False,
        markup=False,
        overflow="fold",
    )
