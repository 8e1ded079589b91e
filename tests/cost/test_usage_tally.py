"""``UsageTally.add_counts`` (a block of rows as columns, counted at once: how ``planeval
report`` tallies usage) gives what ``add`` row by row gives: the same rows, passes, calls, token
sums in the same key order, and the same float costs (summed in the rows' order)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from harness.cost import Price, UsageSummary, UsageTally

_KEYS = ("input", "output", "cached_input", "cache_write_input", "reasoning")


def _rows(rng: random.Random, models: list[str], n: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(n):
        tokens: dict[str, Any] | None = None
        if rng.random() < 0.8:
            keys = rng.sample(_KEYS, rng.randint(0, len(_KEYS)))
            odd = rng.random() < 0.2  # a float or a None among the values: not summed
            tokens = {
                k: rng.choice([rng.randint(0, 999), rng.random() * 99, None])
                if odd
                else rng.randint(0, 99_999)
                for k in keys
            }
        status = rng.choice(["pass", "fail", "error"])
        rows.append({"model": rng.choice(models), "status": status, "tokens": tokens})
    return rows


def _seen(result: tuple[list[UsageSummary], UsageSummary]) -> list[Any]:
    per_model, total = result
    return [
        (s.model, s.rows, s.passes, s.calls, s.unpriced, list(s.tokens.items()), repr(s.cost))
        for s in [*per_model, total]
    ]


@pytest.mark.parametrize("seed", range(40))
def test_add_counts_is_add_row_by_row(seed: int) -> None:
    rng = random.Random(seed)
    models = [f"m{i}" for i in range(rng.randint(1, 5))]
    choices = [None, Price(3.0, 15.0, 0.3, 3.75), Price(0.15, 0.6), Price(1.1, 4.4, None, 1.0)]
    prices = {m: rng.choice(choices) for m in models}
    rows = _rows(rng, models, rng.randint(0, 200))
    by_row, by_block = UsageTally(prices), UsageTally(prices)
    cuts = sorted(rng.sample(range(len(rows) + 1), min(3, len(rows) + 1)))
    for start, stop in zip([0, *cuts], [*cuts, len(rows)], strict=True):
        block = rows[start:stop]
        by_row.add(block)
        by_block.add_counts(
            [r["model"] for r in block], [r["status"] for r in block], [r["tokens"] for r in block]
        )
    assert _seen(by_block.result()) == _seen(by_row.result())


def test_token_keys_keep_the_order_rows_show_them() -> None:
    """A key enters a model's tokens where its first whole-number value comes."""
    tally = UsageTally({"m": None})
    tokens = [{"output": None, "input": 2}, {"reasoning": 1, "output": 3}, {"input": 4}]
    tally.add_counts(["m"] * 3, ["pass", "fail", "pass"], tokens)
    (summary,), total = tally.result()
    assert list(summary.tokens.items()) == [("input", 6), ("reasoning", 1), ("output", 3)]
    assert (summary.rows, summary.passes, summary.calls, summary.unpriced) == (3, 2, 3, 3)
    assert total.cost == 0.0 and summary.known_cost is None
