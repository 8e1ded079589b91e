"""Failing cases against a baseline: which are new since it, which got worse, which were
already failing there.

``summary.md`` lists the failing cases of a run; given a baseline (``report --baseline``) it
lists the most recent regressions first: cases that passed every baseline sample (strongest
evidence first, by the gate's exact Fisher p-value), then cases that pass less often than in
the baseline, then cases the baseline does not hold, then cases that failed as often or more
in the baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from harness.run._failing import FailingCase

__all__ = ["CHANGES", "Regression", "rank_against_baseline"]

CHANGES = ("new", "worse", "not in baseline", "as before")
"""How a failing case compares with the baseline, in the order they are listed."""


@dataclass(frozen=True, slots=True)
class Regression:
    """A failing case and how it did in the baseline."""

    failing: FailingCase
    """The case now."""
    change: str
    """One of ``CHANGES``."""
    base: tuple[int, int] | None
    """(passed, counted) in the baseline, or None when the baseline does not hold it."""
    p_value: float | None = None
    """For a ``new`` case: the exact one-sided Fisher p-value of the gate's evidence rule."""
    evidence: bool = False
    """True when the gate's ``--no-new-failures`` counts it as a new failure (p <= 0.05)."""

    def describe(self) -> str:
        """``new: 5/5 passed in the baseline (gate evidence, p=0.004)`` and the like."""
        if self.base is None:
            return "not in the baseline"
        passed, counted = self.base
        was = f"{passed}/{counted} passed in the baseline"
        if self.change == "new":
            return f"new: {was}" + (
                f" (gate evidence, p={self.p_value:.2g})" if self.evidence else ""
            )
        if self.change == "worse":
            return f"worse: {was}"
        return f"as before: {was}"


def _classify(item: FailingCase, base: tuple[int, int] | None) -> tuple[str, float | None, bool]:
    from harness.baseline import CASE_LEVEL, all_passed_p_value

    if base is None or base[1] <= 0:
        return "not in baseline", None, False
    passed, counted = base
    now_share = (item.counted - item.failed) / item.counted
    if passed == counted:
        p = all_passed_p_value(counted, item.counted, item.failed)
        return "new", p, p <= CASE_LEVEL
    if now_share < passed / counted:
        return "worse", None, False
    return "as before", None, False


def rank_against_baseline(
    failing: Iterable[FailingCase],
    baseline_cases: Callable[[str], Mapping[str, tuple[int, int]]],
) -> list[Regression]:
    """The failing cases, most recent regressions first (see the module docstring).

    Args:
        failing: the run's failing cases (``failing_cases``), worst first.
        baseline_cases: model id -> ``{case id: (passed, counted)}`` of the baseline
            (``Baseline.cases``).
    """
    cache: dict[str, Mapping[str, tuple[int, int]]] = {}
    out: list[Regression] = []
    for item in failing:
        if item.model not in cache:
            cache[item.model] = baseline_cases(item.model)
        base = cache[item.model].get(item.case)
        change, p, evidence = _classify(item, base)
        out.append(Regression(item, change, base, p, evidence))
    rank = {change: i for i, change in enumerate(CHANGES)}
    # sort is stable: within a group the run's own order (worst first) is kept
    out.sort(key=lambda r: (rank[r.change], r.p_value if r.p_value is not None else 0.0))
    return out
