"""The sign-flip test's random signs, drawn block by block at scale: the same seeded numbers as
one draw of the whole (flips x cases) matrix, and memory that does not grow with it."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from harness.stats import FLIPS, _paired, paired_test, sign_flip_pvalues


def _cases(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    counted = np.full(n, 3)
    return rng.binomial(3, 0.7, n), counted, rng.binomial(3, 0.65, n), counted


@pytest.mark.parametrize("n", [21, 23, 57, 400])
def test_blocks_give_the_numbers_of_one_draw(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeded p-values and intervals are exactly those of the whole matrix drawn at once,
    whatever the block size (odd case counts included: numpy packs four int8 per draw)."""
    bp, bn, cp, cn = _cases(n, n)
    whole = paired_test(bp, bn, cp, cn, seed=3)
    d = np.random.default_rng(1).normal(size=(n, 5))
    pvalues = sign_flip_pvalues(d, seed=3)
    signs = np.random.default_rng(3).integers(0, 2, size=(FLIPS, n), dtype=np.int8) * 2.0 - 1
    by_hand = (1 + (np.abs(signs @ d) >= np.abs(d.sum(axis=0)) - 1e-9).sum(axis=0)) / 2000
    assert np.array_equal(pvalues, by_hand)
    for block in (4 * n, 12 * n + 5, 400 * n):
        _paired._ROOTS.clear()
        monkeypatch.setattr(_paired, "FLIP_BLOCK", block)
        assert _paired._block_rows(n, FLIPS) < FLIPS or block == 400 * n
        assert paired_test(bp, bn, cp, cn, seed=3) == whole
        assert np.array_equal(sign_flip_pvalues(d, seed=3), pvalues)


def test_memory_does_not_grow_with_flips_times_cases() -> None:
    """30,000 cases x 3 samples: one (1999 x 30,000) matrix of signs would be 540 MB; the
    test with its interval stays under 80 MiB."""
    bp, bn, cp, cn = _cases(30_000, 0)
    _paired._ROOTS.clear()
    tracemalloc.start()
    try:
        result = paired_test(bp, bn, cp, cn, seed=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.method == "sign-flip" and not result.exact
    assert result.low < result.difference < result.high
    assert peak < 80 * 2**20
