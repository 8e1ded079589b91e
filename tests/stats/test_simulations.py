"""Seeded simulations: the statistics keep their promises (figures in docs/reports.md).

- false "better/worse" at most alpha + Monte Carlo error under the null, at 30 and 200 cases
  x 1 and x 5 samples, and with two models after Holm's correction;
- per-model 95% intervals cover the true rate at least 93% of the time at 5 and 10 samples
  per case with uneven case difficulty (plain Wilson does not: shown for contrast);
- at least 95% power for +10 points at 200 cases x 5 samples.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.stats import paired_test, sign_flip_pvalues
from tests.stats import _simulate as sim


@pytest.mark.parametrize(("cases", "samples"), [(30, 1), (30, 5), (200, 1), (200, 5)])
def test_false_alarms_stay_at_alpha(cases: int, samples: int) -> None:
    """Comparing a model with itself is called better or worse at most 5% (+ MC error)."""
    rate = sim.false_alarm_rate(cases, samples)
    assert rate <= sim.ALPHA + sim.mc_error(sim.ALPHA), rate


def test_holm_keeps_the_family_rate_with_two_models() -> None:
    """Two model pairs, both null: any per-model line significant at most 5% (+ MC error)."""
    rate = sim.family_false_alarm_rate(2, 200, 5)
    assert rate <= sim.ALPHA + sim.mc_error(sim.ALPHA), rate


def test_power_for_ten_points_at_200_cases_x_5() -> None:
    """A true gain of 10 points is called better at least 95% of the time."""
    assert sim.power(200, 5, 0.10) >= 0.95


@pytest.mark.parametrize(("cases", "samples"), [(30, 5), (30, 10), (200, 5), (200, 10)])
def test_clustered_interval_covers(cases: int, samples: int) -> None:
    """The design-effect-adjusted interval covers >= 93%; plain Wilson falls well short."""
    assert sim.coverage(cases, samples) >= 0.93
    assert sim.coverage(cases, samples, clustered=False) < 0.90


def test_the_simulated_p_values_are_the_verdicts_p_values() -> None:
    """The batched sign-flip p-values the simulations use equal ``paired_test``'s."""
    rng = np.random.default_rng(9)
    yb, yc = rng.binomial(5, 0.5, size=(40, 3)), rng.binomial(5, 0.55, size=(40, 3))
    batched = sign_flip_pvalues((yc - yb) / 200, seed=9)
    m = [5] * 40
    single = [paired_test(yb[:, k], m, yc[:, k], m, seed=9).p_value for k in range(3)]
    assert list(batched) == pytest.approx(single)
