"""The ``### Failing cases`` section of ``summary.md``: each failing (case, model) with its
first violation; given a baseline, the most recent regressions first.

Built on ``harness.run.failing_cases``, the list ``planeval run`` prints after its table: the
same cases, the same first violation, and (without a baseline) the same order, worst first.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from harness.report._format import md_cell
from harness.report._regressions import CHANGES, Regression, rank_against_baseline
from harness.run import FailingCase, failing_cases

if TYPE_CHECKING:
    from harness.gate import Baseline
    from harness.report._aggregate import Summary

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


def failing_markdown(summary: Summary, limit: int, baseline: Baseline | None = None) -> list[str]:
    """The section's lines: at most ``limit`` failing cases, then how many more and where.

    Args:
        summary: the run's summary.
        limit: the most cases listed.
        baseline: the suite's baseline; its regressions are listed first.
    """
    failing = failing_cases(summary.run.rows)
    head = f"### Failing cases ({len(failing):,} case x model)"
    if not failing:
        return [head, "", "No case failed.", ""]
    lines = [head, ""]
    if baseline is None:
        shown: list[tuple[FailingCase, Regression | None]] = [(f, None) for f in failing]
        lines += ["Worst first, each with its first violation.", ""]
    else:
        ranked = rank_against_baseline(failing, baseline.cases)
        shown = [(r.failing, r) for r in ranked]
        lines += [_baseline_line(baseline, ranked), ""]
    lines += [_line(f, r) for f, r in shown[:limit]]
    more = len(shown) - limit
    lines.append("")
    lines.append((f"…and {more:,} more failing cases. " if more > 0 else "") + SEE_ALL)
    if baseline is None:
        lines.append(
            "To list new regressions first: `planeval report RUN --baseline reports/baselines/`."
        )
    return [*lines, ""]
