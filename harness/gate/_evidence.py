"""The evidence rule behind ``--no-new-failures``.

Two runs of the same planner disagree by chance: with five samples per case, a case that
passes 90% of the time passes all five in the baseline and fails one now in about one run out
of four, so "passed every sample before, failed one now" flags dozens of cases in two re-runs
of one planner. A case counts as *newly failing* only on evidence, and the rule fails only
when there are more such cases than chance explains:

1. **Per case.** A (model, case) whose every baseline sample passed is a new failure when the
   candidate's passing share is lower by the exact one-sided Fisher test at ``CASE_LEVEL``
   (0.05). With every baseline sample passing, the p-value is
   ``C(n_cand, f) / C(n_base + n_cand, f)`` where ``f`` is the candidate's failures: the
   chance that, of the case's ``f`` failures over both runs, all fall in the candidate.
   With 5 of 5 passing in the baseline: 0 of 5 passing now (f = 5) gives p = 1/252; 1 of 5
   passing (f = 4) gives 6/252 = 0.024; 2 of 5 passing (f = 3) gives 0.083 (not evidence).
   With one sample per run no case can reach 0.05.
2. **Per run.** Under "same planner" every case's samples are exchangeable between the two
   runs, so given each case's total failures, each case is flagged by chance with a known
   probability (its p-value if flagged, when that can reach ``CASE_LEVEL``; else 0),
   independently of the others. The rule fails when the chance of at least as many new
   failures as observed (a Poisson-binomial tail over every shared (model, case)) is at most
   ``RUN_LEVEL`` (0.05). That bounds the whole run's false-alarm rate by 5%, whatever the
   number of cases and however their difficulty varies.

The simulation in tests/gate/test_evidence.py measures the false-alarm and detection rates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from harness.baseline import CASE_LEVEL, all_passed_p_value

__all__ = [
    "CASE_LEVEL",
    "RUN_LEVEL",
    "CaseEvidence",
    "NewFailures",
    "all_passed_p_value",
    "chance_of_at_least",
    "new_failures",
]

RUN_LEVEL = 0.05
"""The rule fails when chance gives at least as many new failures with this probability."""


def chance_of_at_least(probabilities: Iterable[float], k: int) -> float:
    """P(at least ``k`` successes) among independent events of the given probabilities.

    The distribution of the count is built one event at a time, updating only the counts whose
    probability is not zero (in floating point): the far tails underflow to 0.0, so for many
    events the band updated is a few thousand counts wide rather than as wide as the number
    of events (quadratic: 100,000 candidate cases took minutes). Outside the band the update
    would give exactly 0.0, so the result is the same number, bit for bit."""
    import numpy as np

    if k <= 0:
        return 1.0
    ps = [p for p in probabilities if p > 0.0]
    if k > len(ps):
        return 0.0
    dist = np.zeros(len(ps) + 1)  # dist[j] = P(j successes so far)
    dist[0] = 1.0
    lo = hi = 0  # dist[j] == 0.0 outside lo..hi
    for p in ps:
        # one more event: j successes stay at j with 1 - p, move to j + 1 with p
        first, stop = max(lo, 1), hi + 2
        dist[first:stop] = dist[first:stop] * (1.0 - p) + dist[first - 1 : stop - 1] * p
        if lo == 0:
            dist[0] *= 1.0 - p
        hi += 1
        while lo < hi and dist[lo] == 0.0:
            lo += 1
        while hi > lo and dist[hi] == 0.0:
            hi -= 1
    return float(min(1.0, max(0.0, math.fsum(dist[max(k, lo) : hi + 1]))))


@dataclass(frozen=True, slots=True)
class CaseEvidence:
    """One (model, case) whose every baseline sample passed and some candidate sample failed."""

    model: str
    case: str
    base: tuple[int, int]
    """(passed, counted) in the baseline."""
    cand: tuple[int, int]
    """(passed, counted) now."""
    p_value: float
    """Exact one-sided Fisher p-value."""

    @property
    def significant(self) -> bool:
        """True when the case is a new failure (p <= CASE_LEVEL)."""
        return self.p_value <= CASE_LEVEL

    def describe(self) -> str:
        """``model / case: 5/5 -> 0/5 (p=0.004)``."""
        return (
            f"{self.model} / {self.case}: {self.base[0]}/{self.base[1]} -> "
            f"{self.cand[0]}/{self.cand[1]} (p={self.p_value:.2g})"
        )


@dataclass(frozen=True, slots=True)
class NewFailures:
    """The verdict of the evidence rule over one run against its baseline."""

    flagged: list[CaseEvidence]
    """New failures (p <= CASE_LEVEL), strongest evidence first."""
    weaker: list[CaseEvidence] = field(default_factory=list)
    """Cases that passed every baseline sample and failed some now, without evidence."""
    expected: float = 0.0
    """New failures chance alone gives on average (same planner, these cases)."""
    chance: float = 1.0
    """P(at least ``len(flagged)`` new failures by chance alone)."""
    possible: bool = True
    """False when no case that passed every baseline sample could reach CASE_LEVEL even if
    every candidate sample failed (too few samples: e.g. one per run)."""
    level: float = RUN_LEVEL
    """The run-level test's level (the gate's share of its 5% for this rule)."""

    @property
    def failed(self) -> bool:
        """True when there are new failures beyond chance (chance <= level)."""
        return bool(self.flagged) and self.chance <= self.level


def new_failures(
    pairs: Iterable[tuple[str, str, tuple[int, int], tuple[int, int]]],
    *,
    level: float = RUN_LEVEL,
) -> NewFailures:
    """Apply the rule to ``(model, case, (base_passed, base_counted), (passed, counted))``
    for every (model, case) both runs counted (see the module docstring); the run-level test
    fails at ``level`` (``RUN_LEVEL`` alone; the gate gives it half of its 5% when
    ``--max-drop`` is on too, see ``harness.gate._drop``)."""
    flagged: list[CaseEvidence] = []
    weaker: list[CaseEvidence] = []
    null: list[float] = []
    possible = False
    for model, case, (bp, bn), (cp, cn) in pairs:
        if bn <= 0 or cn <= 0:
            continue
        total_failures = (bn - bp) + (cn - cp)
        # The most extreme table given this case's margins: every failure in the candidate.
        extreme = all_passed_p_value(bn, cn, total_failures) if 0 < total_failures <= cn else 1.0
        null.append(extreme if extreme <= CASE_LEVEL else 0.0)
        if bp == bn:
            possible = possible or all_passed_p_value(bn, cn, cn) <= CASE_LEVEL
        if bp == bn and cp < cn:
            item = CaseEvidence(model, case, (bp, bn), (cp, cn), extreme)
            (flagged if item.significant else weaker).append(item)
    flagged.sort(key=lambda e: (e.p_value, e.model, e.case))
    weaker.sort(key=lambda e: (e.p_value, e.model, e.case))
    return NewFailures(
        flagged=flagged,
        weaker=weaker,
        expected=sum(null),
        chance=chance_of_at_least(null, len(flagged)),
        possible=possible,
        level=level,
    )
