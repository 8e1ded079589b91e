"""The gate's comparisons with the baseline as one test family with one false-alarm rate.

Two runs of the same planner differ by chance. A gate that fails on a point estimate ("the
pass rate fell by more than 5 points") fails unchanged prompts: 23% of the time at 30 cases x
1 sample, 15% at 30 x 3 with ``--no-new-failures`` beside it (``benchmarks/bench_gate_noise.py``).
The gate therefore treats its baseline rules as one family at ``GATE_LEVEL`` (5%):

- the level is split evenly (Bonferroni) between the baseline rules switched on:
  ``--max-drop`` and ``--no-new-failures`` each get 2.5% when both are on, 5% alone;
- ``--max-drop D`` fails a model only when its drop on the shared cases is over ``D`` **and**
  the drop is not chance: the one-sided paired test of the drop (``harness.stats.paired_test``:
  exact McNemar with one sample per case, else the sign-flip test over cases, enumerated
  exactly up to 20 cases) is below the rule's level after Holm's correction over the models.
  Equivalently, the one-sided interval of the drop excludes zero;
- ``--no-new-failures`` fails when its Poisson-binomial tail is at most its level
  (``harness.gate._evidence``).

Under "same planner" each rule fails with probability at most its level, so the whole gate
fails at most ``GATE_LEVEL`` of the time per suite, whatever the number of cases and samples.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.gate._evidence import NewFailures, new_failures
from harness.stats import PairedResult, holm, holm_levels, paired_test

__all__ = [
    "GATE_LEVEL",
    "BaselineVerdict",
    "DropVerdict",
    "ModelDrop",
    "SharedItem",
    "drop_evidence",
    "judge_against_baseline",
    "rule_levels",
]

GATE_LEVEL = 0.05
"""The gate's false-alarm rate for two runs of the same planner, over its baseline rules."""

EPSILON = 1e-12
"""A drop this far over the limit is at the limit (0.8 - 0.6 is a hair over 0.2 in floats)."""

SharedItem = tuple[str, str, tuple[int, int], tuple[int, int]]
"""``(model, case, (base_passed, base_counted), (passed, counted))``: one (model, case) both
the baseline and the run counted."""


def rule_levels(*, max_drop: bool, no_new_failures: bool) -> dict[str, float]:
    """Each baseline rule's share of ``GATE_LEVEL`` (Bonferroni over the rules switched on)."""
    on = [
        rule
        for rule, flag in (("max-drop", max_drop), ("no-new-failures", no_new_failures))
        if flag
    ]
    return {rule: GATE_LEVEL / len(on) for rule in on}


@dataclass(frozen=True, slots=True)
class ModelDrop:
    """One model's pass rate on the shared cases, baseline against now."""

    model: str
    test: PairedResult
    """The paired test (base = baseline, candidate = now); its interval is two-sided at
    ``1 - 2 * holm_level``, so its upper end is the one-sided bound of ``-drop``."""
    p_one_sided: float
    """One-sided p-value of "the pass rate fell" (half the two-sided p when it fell, else 1)."""
    p_adjusted: float
    """``p_one_sided`` after Holm's correction over the models compared."""
    holm_level: float
    """The level this model was tested at by Holm's step-down procedure."""

    @property
    def drop(self) -> float:
        """Baseline rate minus the rate now (positive when it fell)."""
        return self.test.base_rate - self.test.cand_rate

    @property
    def cases(self) -> int:
        """Shared cases compared."""
        return self.test.cases

    @property
    def drop_at_least(self) -> float:
        """The one-sided lower bound of the drop at ``1 - holm_level``."""
        return -self.test.high

    def significant(self, level: float) -> bool:
        """Whether the drop is beyond chance at the rule's level (Holm-adjusted)."""
        return self.drop > 0 and self.p_adjusted < level

    @property
    def test_name(self) -> str:
        """``exact McNemar``, ``sign-flip, exact`` or ``sign-flip, 1,999 random flips``."""
        if self.test.method == "mcnemar-exact":
            return "exact McNemar"
        return "sign-flip over cases, " + ("exact" if self.test.exact else "1,999 random flips")


@dataclass(frozen=True, slots=True)
class DropVerdict:
    """``--max-drop``: every model's drop, and which fail."""

    models: list[ModelDrop]
    """Largest drop first."""
    limit: float
    level: float

    def failed_models(self) -> list[ModelDrop]:
        """Models over the limit with a drop beyond chance, largest drop first."""
        return [m for m in self.over_limit() if m.significant(self.level)]

    def over_limit(self) -> list[ModelDrop]:
        """Models whose point drop is over the limit, evidence or not."""
        return [m for m in self.models if m.drop > self.limit + EPSILON]

    @property
    def failed(self) -> bool:
        """True when some model failed."""
        return bool(self.failed_models())


def drop_evidence(items: Iterable[SharedItem], limit: float, level: float) -> DropVerdict:
    """The ``--max-drop`` verdict over shared items (see the module docstring)."""
    per_model: dict[str, list[tuple[int, int, int, int]]] = {}
    for model, _case, (bp, bn), (cp, cn) in items:
        if bn > 0 and cn > 0:
            per_model.setdefault(model, []).append((bp, bn, cp, cn))
    names = list(per_model)
    first = [_paired(per_model[m], GATE_LEVEL, interval=False) for m in names]
    p1 = [_one_sided(r) for r in first]
    adjusted, levels = holm(p1), holm_levels(p1, level)
    models = [
        ModelDrop(m, _paired(per_model[m], 2 * lv), p, adj, lv)
        for m, p, adj, lv in zip(names, p1, adjusted, levels, strict=True)
    ]
    models.sort(key=lambda x: (-x.drop, x.model))
    return DropVerdict(models, limit, level)


def _paired(
    rows: Sequence[tuple[int, int, int, int]], alpha: float, *, interval: bool = True
) -> PairedResult:
    bp, bn, cp, cn = zip(*rows, strict=True)
    return paired_test(bp, bn, cp, cn, alpha=min(alpha, 1.0), interval=interval)


def _one_sided(r: PairedResult) -> float:
    if math.isnan(r.p_value):
        return 1.0
    return r.p_value / 2 if r.difference < 0 else 1.0


@dataclass(frozen=True, slots=True)
class BaselineVerdict:
    """The baseline rules switched on, judged at their share of ``GATE_LEVEL``."""

    drops: DropVerdict | None
    new_failures: NewFailures | None

    @property
    def failed(self) -> bool:
        """True when some baseline rule fails."""
        return bool(
            (self.drops is not None and self.drops.failed)
            or (self.new_failures is not None and self.new_failures.failed)
        )


def judge_against_baseline(
    items: Sequence[SharedItem], *, max_drop: float | None, no_new_failures: bool
) -> BaselineVerdict:
    """Both baseline rules over the items the baseline and the run share, at their levels."""
    levels = rule_levels(max_drop=max_drop is not None, no_new_failures=no_new_failures)
    drops = None if max_drop is None else drop_evidence(items, max_drop, levels["max-drop"])
    news = new_failures(items, level=levels["no-new-failures"]) if no_new_failures else None
    return BaselineVerdict(drops, news)
