"""Seeded simulations of the report and compare statistics (provenance: generated here).

Each function draws whole experiments with numpy and returns a rate; the tests in
test_simulations.py assert the targets, and ``python -m tests.stats._simulate`` prints the
figures quoted in docs/reports.md.

Cases have uneven difficulty: a case's pass probability is drawn from Beta(0.5, 0.5) (most
cases nearly always or nearly never pass) unless said otherwise.
"""

from __future__ import annotations

import numpy as np

from harness.stats import (
    ClusterSums,
    cluster_wilson,
    holm,
    paired_test,
    sign_flip_pvalues,
    wilson_intervals,
)

ALPHA = 0.05
REPS = 2000


def mc_error(rate: float, reps: int = REPS) -> float:
    """Three Monte Carlo standard errors of a rate estimated from ``reps`` experiments."""
    return float(3 * np.sqrt(rate * (1 - rate) / reps))


def _difficulty(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.beta(0.5, 0.5, size=shape)


def null_p_values(cases: int, samples: int, seed: int, reps: int = REPS) -> np.ndarray:
    """p-values of ``reps`` comparisons of a model with itself (the null holds)."""
    rng = np.random.default_rng(seed)
    theta = _difficulty(rng, (cases, reps))
    yb, yc = rng.binomial(samples, theta), rng.binomial(samples, theta)
    if samples == 1:  # exact McNemar through the production entry point
        m = np.ones(cases)
        return np.array([paired_test(yb[:, r], m, yc[:, r], m).p_value for r in range(reps)])
    total = cases * samples
    return sign_flip_pvalues((yc - yb) / total, seed=seed)


def false_alarm_rate(cases: int, samples: int, seed: int = 1) -> float:
    """Share of null comparisons called better or worse."""
    return float((null_p_values(cases, samples, seed) < ALPHA).mean())


def family_false_alarm_rate(models: int, cases: int, samples: int, seed: int = 2) -> float:
    """Share of null runs with ``models`` model pairs where any per-model line is called
    significant after Holm's correction."""
    ps = np.stack([null_p_values(cases, samples, seed + k) for k in range(models)], axis=1)
    return float(np.mean([min(holm(list(row))) < ALPHA for row in ps]))


def power(cases: int, samples: int, shift: float, seed: int = 3, reps: int = 1000) -> float:
    """Share of comparisons with a true gain of ``shift`` called better (difficulty uniform
    on 0.2-0.7 so the shift never leaves [0, 1])."""
    rng = np.random.default_rng(seed)
    theta = rng.uniform(0.2, 0.7, size=(cases, reps))
    yb, yc = rng.binomial(samples, theta), rng.binomial(samples, theta + shift)
    d = (yc - yb) / (cases * samples)
    p = sign_flip_pvalues(d, seed=seed)
    return float(((p < ALPHA) & (d.sum(axis=0) > 0)).mean())


def coverage(cases: int, samples: int, seed: int = 4, clustered: bool = True) -> float:
    """Share of per-model 95% intervals holding the true pass rate (over case draws)."""
    rng = np.random.default_rng(seed)
    theta = _difficulty(rng, (REPS, cases))
    y = rng.binomial(samples, theta)
    m = np.full_like(y, samples)
    if clustered:
        s = ClusterSums(
            np.full(REPS, cases),
            y.sum(1),
            m.sum(1),
            (y * y).sum(1),
            (y * m).sum(1),
            (m * m).sum(1),
        )
        low, high = cluster_wilson(s)
    else:
        low, high = wilson_intervals(y.sum(1), m.sum(1))
    return float(((low <= 0.5) & (high >= 0.5)).mean())


def main() -> None:
    """Print every figure."""
    for cases in (30, 200):
        for samples in (1, 5):
            rate = false_alarm_rate(cases, samples)
            print(f"false better/worse, {cases} cases x {samples}: {rate:.4f}")
    family = family_false_alarm_rate(2, 200, 5)
    print(f"any per-model line significant, 2 models, 200 x 5, Holm: {family:.4f}")
    print(f"power, +10 points at 200 x 5: {power(200, 5, 0.10):.4f}")
    for cases in (30, 200):
        for samples in (5, 10):
            print(
                f"coverage, {cases} cases x {samples}: clustered {coverage(cases, samples):.4f}, "
                f"plain Wilson {coverage(cases, samples, clustered=False):.4f}"
            )


if __name__ == "__main__":
    main()
