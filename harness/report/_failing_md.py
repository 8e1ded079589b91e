"""The ``### Failing cases`` section of ``summary.md``: each failing (case, model) with its
first violation; given a baseline, the most recent regressions first.

Built on ``harness.run.failing_cases``, the list ``planeval run`` prints after its table: the
same cases, the same first violation, and (without a baseline) the same order, worst first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from harness.report._format import md_cell
from harness.report._regressions import CHANGES, Regression, rank_against_baseline
from harness.run import FailingCase
from harness.run._failing import _FAILED, _first_violation

if TYPE_CHECKING:
    from harness.baseline import Baseline
    from harness.report._aggregate import Summary
    from harness.report._load import LoadedRun

__all__ = ["failing_markdown"]

SEE_ALL = (
    "Every failing sample with all its violations: report.html (set the status filter to "
    "`fail`), or results.csv."
)
"""Where summary.md sends a reader for the whole list."""


def _line(failing: FailingCase, regression: Regression | None) -> str:
    text = (
        f"- `{md_cell(failing.case, 60)}` / `{md_cell(failing.model, 60)}`: {failing.share()}; "
        f"`{md_cell(failing.first_violation, 200)}`"
    )
    if regression is None:
        return text
    mark = regression.describe()
    return text + (f" — **{mark}**" if regression.change == "new" else f" — {mark}")


def _baseline_line(baseline: Baseline, ranked: list[Regression]) -> str:
    counts = Counter(r.change for r in ranked)
    data = baseline.data
    parts = ", ".join(f"{counts[c]:,} {c}" for c in CHANGES if counts[c])
    return (
        f"Against the baseline `{md_cell(baseline.path, 120)}` (run "
        f"`{md_cell(str(data.get('run_id')), 80)}`, {md_cell(str(data.get('created_at')), 30)}): "
        f"{parts}. New regressions (every baseline sample passed) first, in **bold**."
    )


def run_failing_cases(run: LoadedRun) -> list[FailingCase]:
    """``harness.run.failing_cases`` of the run's rows, the same list, counted from the run's
    frame: one groupby instead of a Python step per row (a 200,000-row run has ~20,000 failing
    case x model pairs; only their first failing rows are read)."""
    cases, rows = _failing_cases(run)
    return _with_first_violations(run, cases, rows)


def _failing_cases(run: LoadedRun) -> tuple[list[FailingCase], dict[tuple[str, str], int]]:
    """``run_failing_cases`` with each ``first_violation`` left empty (no row read), and the
    index of each case's first failing row by (model, case)."""
    f = run.frame
    failing = f["status"].isin(_FAILED).to_numpy()
    if not failing.any():
        return [], {}
    # Keys in order of first appearance among counted rows (what failing_cases breaks ties by).
    counted = f.loc[f["counted"].to_numpy(), ["model", "case"]].groupby(
        ["model", "case"], sort=False
    )
    n_counted = counted.size().to_dict()
    order = {key: i for i, key in enumerate(n_counted)}
    failed = f.loc[failing, ["model", "case", "sample"]].groupby(["model", "case"], sort=False)
    # The first failing sample of each key: the lowest sample, the first such row on a tie.
    first = failed["sample"].idxmin()
    suite = run.suite
    out = []
    firsts = first.to_numpy().tolist()
    samples = f["sample"].to_numpy()
    rows: dict[tuple[str, str], int] = {}
    for (model, case), n, i in zip(first.index, failed.size().to_numpy(), firsts, strict=True):
        rows[(model, case)] = i
        out.append(
            FailingCase(
                suite, model, case, int(n), int(n_counted[(model, case)]), "", int(samples[i])
            )
        )
    out.sort(key=lambda c: (-c.failed / c.counted, order[(c.model, c.case)]))
    return out, rows


def _with_first_violations(
    run: LoadedRun, cases: list[FailingCase], rows: dict[tuple[str, str], int]
) -> list[FailingCase]:
    """``cases`` with the first violation of each one's first failing row (read back from
    results.jsonl: one read per case)."""
    read = run.take([rows[(c.model, c.case)] for c in cases])
    return [
        replace(c, first_violation=_first_violation(row))
        for c, row in zip(cases, read, strict=True)
    ]


def failing_markdown(summary: Summary, limit: int, baseline: Baseline | None = None) -> list[str]:
    """The section's lines: at most ``limit`` failing cases, then how many more and where.

    Args:
        summary: the run's summary.
        limit: the most cases listed.
        baseline: the suite's baseline; its regressions are listed first.
    """
    failing, first_rows = _failing_cases(summary.run)
    head = f"### Failing cases ({len(failing):,} case x model)"
    if not failing:
        if not summary.total["counted"]:
            return [head, "", "No case was judged: nothing was counted (see below).", ""]
        return [head, "", "No case failed.", ""]
    lines = [head, ""]
    if baseline is None:
        shown: list[tuple[FailingCase, Regression | None]] = [(f, None) for f in failing]
        lines += ["Worst first, each with its first violation.", ""]
    else:
        ranked = rank_against_baseline(failing, baseline.cases)
        shown = [(r.failing, r) for r in ranked]
        lines += [_baseline_line(baseline, ranked), ""]
    listed = shown[:limit]
    read = _with_first_violations(summary.run, [f for f, _ in listed], first_rows)
    lines += [_line(f, r) for f, (_, r) in zip(read, listed, strict=True)]
    more = len(shown) - limit
    lines.append("")
    lines.append((f"…and {more:,} more failing cases. " if more > 0 else "") + SEE_ALL)
    if baseline is None:
        lines.append(
            "To list new regressions first: `planeval report RUN --baseline reports/baselines/`."
        )
    return [*lines, ""]
