"""Which model of a run is better: the best model against each other one, on the cases both
counted, with ``harness.stats.paired_tests`` (``paired_test`` of every pair at once).

The best model is picked from the data, so correcting only its ``k - 1`` comparisons does not
hold the family-wise error (with 4 identical models, 7.0% of runs named a winner). Every pair
of the ``k`` models is tested and **Holm's step-down procedure runs over all
``k (k - 1) / 2`` pairs**; the best model's lines show their Holm-adjusted p-values and
intervals at the level Holm tested them at. Any claim "a is better than b" then comes from a
family whose chance of one false claim is at most ``ALPHA``, whichever model the data put
first (``tests/report/test_verdict_family.py`` simulates 3 and 4 identical models)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness._format import format_points_interval
from harness.stats import PairedResult, holm, holm_levels, paired_tests

__all__ = ["ALPHA", "ModelVerdict", "model_verdicts"]

ALPHA = 0.05
"""Family-wise level of the verdicts."""


@dataclass(frozen=True, slots=True)
class ModelVerdict:
    """The best model against one other model of the same run."""

    best: str
    """The model with the highest pass rate."""
    other: str
    """The model compared with it."""
    result: PairedResult
    """The paired test (base = ``other``, candidate = ``best``), at Holm's level."""
    p_adjusted: float
    """Holm-adjusted p-value."""

    @property
    def significant(self) -> bool:
        """Whether ``best`` is significantly better (the interval then excludes zero)."""
        return self.p_adjusted < ALPHA and self.result.low > 0

    @property
    def text(self) -> str:
        """One sentence, e.g. ``a is better than b by +12.0 points (97.5% CI ...)``."""
        r = self.result
        ci = (
            f"{(1 - r.alpha) * 100:.4g}% CI {format_points_interval(r.low, r.high, unit='')}, "
            f"p={self.p_adjusted:.3g}, {r.cases} cases"
        )
        if self.significant:
            return (
                f"{self.best} is better than {self.other} by "
                f"{r.difference * 100:+.1f} points ({ci})"
            )
        if self.p_adjusted < ALPHA:  # the lower-ranked model wins on the shared cases
            return (
                f"{self.other} is better than {self.best} on the cases both counted, by "
                f"{-r.difference * 100:+.1f} points ({ci})"
            )
        return (
            f"{self.best} vs {self.other}: no significant difference "
            f"({r.difference * 100:+.1f} points, {ci})"
        )


def model_verdicts(cases: pd.DataFrame, ranked: list[str], seed: int = 0) -> list[ModelVerdict]:
    """Compare the first model of ``ranked`` with each of the others, Holm-corrected over
    every pair of the ranked models (see the module docstring).

    Args:
        cases: per (case, model) counted and passed samples (``Summary.cases``).
        ranked: model ids, best first (at least two for any verdict).
        seed: seed of the sign-flip test (above 20 cases).
    """
    if len(ranked) < 2:
        return []
    counted = cases[cases["counted"].to_numpy() > 0]
    # Integer codes for the cases (in order of first appearance) and one array per model: the
    # pairs are joined with numpy, not a pandas join per pair.
    case_codes, _ = pd.factorize(counted.index.get_level_values("case"))
    model_codes, models = pd.factorize(counted.index.get_level_values("model"))
    passed = counted["passed"].to_numpy()
    n = counted["counted"].to_numpy()
    rows_of = {m: np.flatnonzero(model_codes == k) for k, m in enumerate(models)}
    at = np.full(len(case_codes) and int(case_codes.max()) + 1, -1, dtype=np.int64)
    pairs: list[tuple[str, str]] = []
    sides: list[tuple[Any, Any, Any, Any]] = []
    for i, better in enumerate(ranked):
        top = rows_of.get(better)
        if top is None:
            continue
        at[case_codes[top]] = top  # row of each case of ``better``
        for other in ranked[i + 1 :]:
            theirs = rows_of.get(other)
            if theirs is None:
                continue
            # the cases both counted, in ``other``'s order (as ``theirs.join(top)`` gives them)
            mine = at[case_codes[theirs]]
            shared = mine >= 0
            b, c = theirs[shared], mine[shared]
            pairs.append((better, other))
            sides.append((passed[b], n[b], passed[c], n[c]))
        at[case_codes[top]] = -1
    ps = [r.p_value for r in paired_tests(sides, alpha=ALPHA, seed=seed, interval=False)]
    levels, adjusted = holm_levels(ps, ALPHA), holm(ps)
    best = ranked[0]
    tested = [k for k, (better, _) in enumerate(pairs) if better == best]
    results = paired_tests([sides[k] for k in tested], alpha=[levels[k] for k in tested], seed=seed)
    return [
        ModelVerdict(best, pairs[k][1], r, adjusted[k])
        for k, r in zip(tested, results, strict=True)
    ]
