"""What a "new failure" against a baseline is, case by case: shared by the gate's
``--no-new-failures`` rule and summary.md's ranking of failing cases (``report --baseline``)."""

from __future__ import annotations

from math import comb

__all__ = ["CASE_LEVEL", "all_passed_p_value"]

CASE_LEVEL = 0.05
"""A case whose baseline samples all passed is a new failure at this one-sided p-value."""


def all_passed_p_value(n_base: int, n_cand: int, cand_failures: int) -> float:
    """Exact one-sided Fisher p-value that the candidate passes less often, when every one of
    the ``n_base`` baseline samples passed and ``cand_failures`` of ``n_cand`` failed now."""
    if cand_failures <= 0:
        return 1.0
    return comb(n_cand, cand_failures) / comb(n_base + n_cand, cand_failures)
