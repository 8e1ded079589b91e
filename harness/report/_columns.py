"""Per-model columns beyond the pass rate: the one place to add a figure to every report.

A ``ModelColumn`` says how to compute some columns of ``Summary.models`` from the rows of a run
(a pandas frame, one row per result, and the price of each model) and how to show them. Every
writer walks ``MODEL_COLUMNS``: the HTML report's model table, ``summary.md``, ``report
--format json`` (all columns of ``Summary.models``) and ``compare`` (base and candidate on the
shared items). To add a figure (a metric, a cost), add its row field to ``ROW_FIELDS`` (read by
the loader into the frame) and append one ``ModelColumn`` here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from harness.report._rows import Row

if TYPE_CHECKING:
    from harness.cost import Price

__all__ = ["MODEL_COLUMNS", "ROW_FIELDS", "ModelColumn", "Prices", "model_columns", "number"]

Prices = Mapping[str, "Price | None"]
"""The price of each model id of the frame (None or absent: unknown)."""


def _token_counts(rows: list[Row]) -> np.ndarray:
    """tokens_in, tokens_out, tokens_cached, tokens_cache_write in one pass (a Row's token
    counts are numbers or None: NaN here)."""
    none = (None, None, None, None)
    return np.array(
        [
            (t.get("input"), t.get("output"), t.get("cached_input"), t.get("cache_write_input"))
            if (t := r.tokens)
            else none
            for r in rows
        ],
        dtype=np.float64,
    ).reshape(len(rows), 4)


def _floats(key: str) -> Callable[[list[Row]], np.ndarray]:
    def column(rows: list[Row]) -> np.ndarray:
        # A Row's numeric fields are typed: numbers or None (NaN here).
        return np.array(list(map(attrgetter(key), rows)), dtype=np.float64).reshape(-1, 1)

    return column


ROW_FIELDS: dict[tuple[str, ...], Callable[[list[Row]], np.ndarray]] = {
    ("latency_ms",): _floats("latency_ms"),
    ("tokens_in", "tokens_out", "tokens_cached", "tokens_cache_write"): _token_counts,
}
"""Numeric frame columns: names -> a reader of every results.jsonl row at once, giving one
float column per name (NaN where a row has no value); related columns are read in one pass."""


def number(x: Any, digits: int = 0) -> str:
    """``1,234`` (``digits`` decimals); ``–`` for no value."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{float(x):,.{digits}f}"


@dataclass(frozen=True)
class ModelColumn:
    """One figure per model, shown in every report."""

    header: str
    """Table header, e.g. ``latency p50 / p95 (ms)``."""
    compute: Callable[[pd.DataFrame, Prices], pd.DataFrame]
    """Frame of result rows (with a ``model`` column) and each model's price -> frame indexed
    by model holding this column's values (its column names become columns of
    ``Summary.models``)."""
    render: Callable[[pd.Series], str]
    """A model's row of ``Summary.models`` -> the cell text."""
    in_markdown: bool = False
    """Also a column of summary.md's model table (which must stay short)."""
    in_compare: bool = True
    """Shown by ``compare`` for base and candidate."""


def _latency(frame: pd.DataFrame, _prices: Prices) -> pd.DataFrame:
    lat = frame.groupby("model", sort=False)["latency_ms"]
    return pd.DataFrame(
        {"latency_mean": lat.mean(), "latency_p50": lat.median(), "latency_p95": lat.quantile(0.95)}
    )


def _tokens(frame: pd.DataFrame, _prices: Prices) -> pd.DataFrame:
    return frame.groupby("model", sort=False)[["tokens_in", "tokens_out"]].sum(min_count=1)


_COST_TOKENS = {
    "tokens_in": "input",
    "tokens_out": "output",
    "tokens_cached": "cached_input",
    "tokens_cache_write": "cache_write_input",
}


def _cost(frame: pd.DataFrame, prices: Prices) -> pd.DataFrame:
    """``usage_calls`` (rows that reported usage), ``cost_usd`` and ``cost_per_pass_usd``
    (NaN when unknown: no usage, no price, or cached tokens without a cached rate).

    Cost is linear in tokens, so a model's cost is ``harness.cost.call_cost`` of its summed
    tokens: the same formula, and the same unknowns, as the per-call cost.
    """
    from harness.cost import call_cost

    usage = frame["tokens_in"].notna() | frame["tokens_out"].notna()
    by_model = frame.assign(usage_calls=usage).groupby("model", sort=False)
    sums = by_model[[*_COST_TOKENS, "usage_calls", "passed"]].sum()
    cost, per_pass = [], []
    for model, r in sums.iterrows():
        tokens = {key: int(r[column]) for column, key in _COST_TOKENS.items()}
        usd = call_cost(tokens, prices.get(str(model))) if r["usage_calls"] else None
        cost.append(math.nan if usd is None else usd)
        per_pass.append(usd / r["passed"] if usd is not None and r["passed"] else math.nan)
    return pd.DataFrame(
        {
            "usage_calls": sums["usage_calls"].astype("int64"),
            "cost_usd": cost,
            "cost_per_pass_usd": per_pass,
        },
        index=sums.index,
    )


def _count(x: float) -> str:
    """A token count, or ``—`` (as in every usage figure) when no row reported one."""
    return "—" if math.isnan(x) else f"{x:,.0f}"


def _usd(r: pd.Series, column: str) -> str:
    """``$0.0123``; ``unknown`` without a price; ``—`` for a model that reported no usage;
    ``no pass`` for the cost per pass of a model none of whose plans passed."""
    from harness.cost import format_usd

    value, cost = r[column], r["cost_usd"]
    known = not math.isnan(value)
    if column == "cost_per_pass_usd" and not known and r["usage_calls"] and not math.isnan(cost):
        return "no pass"
    return format_usd(value if known else None, known_tokens=bool(r["usage_calls"]))


MODEL_COLUMNS: list[ModelColumn] = [
    ModelColumn(
        "latency p50 / p95 (ms)",
        _latency,
        lambda r: f"{number(r['latency_p50'])} / {number(r['latency_p95'])}",
    ),
    ModelColumn(
        "tokens in / out",
        _tokens,
        lambda r: f"{_count(r['tokens_in'])} / {_count(r['tokens_out'])}",
    ),
    ModelColumn(
        "cost total / per pass",
        _cost,
        lambda r: f"{_usd(r, 'cost_usd')} / {_usd(r, 'cost_per_pass_usd')}",
    ),
]
"""The extra per-model columns, in display order."""


def model_columns(frame: pd.DataFrame, prices: Prices | None = None) -> pd.DataFrame:
    """Every ``MODEL_COLUMNS`` figure for the rows of ``frame``, indexed by model.

    Args:
        frame: result rows with a ``model`` column and the ``ROW_FIELDS``.
        prices: each model's price (``harness.cost.run_prices``); without, costs are unknown.
    """
    parts = [col.compute(frame, prices or {}) for col in MODEL_COLUMNS]
    if not parts:
        return pd.DataFrame(index=pd.Index(frame["model"].unique(), name="model"))
    return pd.concat(parts, axis=1)
