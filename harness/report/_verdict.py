"""Which model of a run is better: the best model against each other one, on the cases both
counted, with ``harness.stats.paired_test`` and Holm's correction over the comparisons."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from harness._format import format_points_interval
from harness.stats import PairedResult, holm, holm_levels, paired_test

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
    """Compare the first model of ``ranked`` with each of the others.

    Args:
        cases: per (case, model) counted and passed samples (``Summary.cases``).
        ranked: model ids, best first (at least two for any verdict).
        seed: seed of the sign-flip test.
    """
    if len(ranked) < 2:
        return []
    counted = cases[cases["counted"] > 0]
    by_model = {
        m: g.droplevel("model")[["passed", "counted"]]
        for m, g in counted.groupby(level="model", sort=False)
    }
    best = ranked[0]
    top = by_model.get(best)
    raw: list[tuple[str, pd.DataFrame]] = []
    for other in ranked[1:]:
        theirs = by_model.get(other)
        if top is None or theirs is None:
            continue
        raw.append((other, theirs.add_suffix("_b").join(top.add_suffix("_c"), how="inner")))
    first = [_test(j, ALPHA, seed) for _, j in raw]
    ps = [r.p_value for r in first]
    levels, adjusted = holm_levels(ps, ALPHA), holm(ps)
    return [
        ModelVerdict(best, other, _test(j, level, seed), p_adj)
        for (other, j), level, p_adj in zip(raw, levels, adjusted, strict=True)
    ]


def _test(j: pd.DataFrame, alpha: float, seed: int) -> PairedResult:
    return paired_test(
        j["passed_b"], j["counted_b"], j["passed_c"], j["counted_c"], alpha=alpha, seed=seed
    )
