"""Seeded simulations of the gate as shipped (``--max-drop 0.05 --no-new-failures``), with
planners simulated here, outside the project's code (provenance: generated here).

A simulated planner is a list of per-case pass probabilities; a run draws ``samples``
Bernoulli outcomes per case. Cases are heterogeneous: 60% easy (Beta(30, 1), ~97%), 25%
medium (Beta(4, 2), ~67%), 15% hard (Beta(1, 2), ~33%), drawn afresh for every trial. Each
trial is a baseline run and a candidate run of ``cases x samples``; the gate's verdict comes
from ``harness.gate.judge_against_baseline`` (the function ``planeval gate`` uses), and
today's rule (a point-estimate ``--max-drop`` beside ``--no-new-failures`` at 5%, each at its
full level) is rebuilt beside it for the comparison.

``tests/gate/test_gate_noise.py`` runs reduced counts; ``python -m benchmarks.bench_gate_noise``
runs 2,000 trials a cell and prints the table quoted in docs/ci.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness.gate import judge_against_baseline, new_failures

MAX_DROP = 0.05
"""The shipped ``--max-drop``."""


def difficulty(rng: np.random.Generator, trials: int, cases: int) -> np.ndarray:
    """Per-case pass probabilities, ``trials x cases`` (the mixture in the module docstring)."""
    u = rng.random((trials, cases))
    easy = rng.beta(30, 1, (trials, cases))
    medium = rng.beta(4, 2, (trials, cases))
    hard = rng.beta(1, 2, (trials, cases))
    return np.where(u < 0.60, easy, np.where(u < 0.85, medium, hard))


def broken(rng: np.random.Generator, p: np.ndarray, drop: float) -> np.ndarray:
    """Cases that break (pass probability -> 0), drawn until the mean falls by ``drop``."""
    out = p.copy()
    cases = p.shape[1]
    for t in range(p.shape[0]):
        order = rng.permutation(cases)
        n = int(np.searchsorted(np.cumsum(p[t, order]), drop * cases)) + 1
        out[t, order[:n]] = 0.0
    return out


def diffuse(p: np.ndarray, drop: float) -> np.ndarray:
    """Every case a little worse: probabilities scaled so the mean falls by exactly ``drop``."""
    mean = p.mean(axis=1, keepdims=True)
    return p * (1 - drop / mean)


@dataclass(frozen=True)
class Rates:
    """Share of trials failing each rule, today's and the new."""

    trials: int
    old_gate: float
    """Today: point drop > 0.05 on the shared cases, or ``--no-new-failures`` at 5%."""
    old_max_drop: float
    """Today's point-estimate ``--max-drop 0.05`` alone."""
    new_gate: float
    """The shipped gate now (one family at 5%)."""
    new_max_drop: float
    """The evidence-based ``--max-drop 0.05`` inside the family (2.5%)."""
    new_failures: float
    """``--no-new-failures`` inside the family (2.5%)."""


def _items(base: np.ndarray, cand: np.ndarray, samples: int) -> list:
    return [
        ("m", f"c{i}", (int(b), samples), (int(c), samples))
        for i, (b, c) in enumerate(zip(base, cand, strict=True))
    ]


def gate_rates(
    p_base: np.ndarray, p_cand: np.ndarray, samples: int, rng: np.random.Generator
) -> Rates:
    """Run one baseline and one candidate per trial (rows of ``p_base`` / ``p_cand``) through
    today's rule and the gate's."""
    base = rng.binomial(samples, p_base)
    cand = rng.binomial(samples, p_cand)
    old_gate = old_drop = new_gate = new_drop = new_news = 0
    for b, c in zip(base, cand, strict=True):
        items = _items(b, c, samples)
        point_drop = (b.sum() - c.sum()) / (samples * len(b)) > MAX_DROP + 1e-12
        old_drop += point_drop
        old_gate += point_drop or new_failures(items, level=0.05).failed
        verdict = judge_against_baseline(items, max_drop=MAX_DROP, no_new_failures=True)
        assert verdict.drops is not None and verdict.new_failures is not None
        new_gate += verdict.failed
        new_drop += verdict.drops.failed
        new_news += verdict.new_failures.failed
    n = len(base)
    return Rates(n, old_gate / n, old_drop / n, new_gate / n, new_drop / n, new_news / n)


def false_alarms(cases: int, samples: int, trials: int, seed: int) -> Rates:
    """Two runs of the same planner."""
    rng = np.random.default_rng(seed)
    p = difficulty(rng, trials, cases)
    return gate_rates(p, p, samples, rng)


def detection(cases: int, samples: int, trials: int, seed: int, kind: str) -> Rates:
    """A candidate 10 points worse: ``kind`` is ``broken`` (some cases break) or
    ``diffuse`` (every case a little worse)."""
    rng = np.random.default_rng(seed)
    p = difficulty(rng, trials, cases)
    worse = broken(rng, p, 0.10) if kind == "broken" else diffuse(p, 0.10)
    return gate_rates(p, worse, samples, rng)


def mc_error(rate: float, trials: int) -> float:
    """Three Monte Carlo standard errors of a rate from ``trials`` trials."""
    return float(3 * np.sqrt(rate * (1 - rate) / trials))
