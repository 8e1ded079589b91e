"""Per-model columns beyond the pass rate: the one place to add a figure to every report.

A ``ModelColumn`` says how to compute some columns of ``Summary.models`` from the rows of a run
(a pandas frame, one row per result) and how to show them. Every writer walks ``MODEL_COLUMNS``:
the HTML report's model table, ``summary.md``, ``report --format json`` (all columns of
``Summary.models``) and ``compare`` (base and candidate on the shared items). To add a figure
(a metric, a cost), add its row field to ``ROW_FIELDS`` (read by the loader into the frame) and
append one ``ModelColumn`` here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.report._rows import Row

__all__ = ["MODEL_COLUMNS", "ROW_FIELDS", "ModelColumn", "model_columns", "number"]


def _token(key: str) -> Callable[[Row], float]:
    def get(row: Row) -> float:
        tokens = row.tokens
        v = tokens.get(key) if tokens else None
        return math.nan if v is None else float(v)  # a Row's token counts are numbers or None

    return get


def _float(key: str) -> Callable[[Row], float]:
    def get(row: Row) -> float:
        v = getattr(row, key)
        return math.nan if v is None else float(v)  # a Row's numeric fields are typed

    return get


ROW_FIELDS: dict[str, Callable[[Row], float]] = {
    "latency_ms": _float("latency_ms"),
    "tokens_in": _token("input"),
    "tokens_out": _token("output"),
}
"""Numeric frame columns read from each results.jsonl row (NaN when absent)."""


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
    compute: Callable[[pd.DataFrame], pd.DataFrame]
    """Frame of result rows (with a ``model`` column) -> frame indexed by model holding this
    column's values (its column names become columns of ``Summary.models``)."""
    render: Callable[[pd.Series], str]
    """A model's row of ``Summary.models`` -> the cell text."""
    in_markdown: bool = False
    """Also a column of summary.md's model table (which must stay short)."""
    in_compare: bool = True
    """Shown by ``compare`` for base and candidate."""


def _latency(frame: pd.DataFrame) -> pd.DataFrame:
    lat = frame.groupby("model", sort=False)["latency_ms"]
    return pd.DataFrame(
        {"latency_mean": lat.mean(), "latency_p50": lat.median(), "latency_p95": lat.quantile(0.95)}
    )


def _tokens(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.groupby("model", sort=False)[["tokens_in", "tokens_out"]].sum(min_count=1)


MODEL_COLUMNS: list[ModelColumn] = [
    ModelColumn(
        "latency p50 / p95 (ms)",
        _latency,
        lambda r: f"{number(r['latency_p50'])} / {number(r['latency_p95'])}",
    ),
    ModelColumn(
        "tokens in / out",
        _tokens,
        lambda r: f"{number(r['tokens_in'])} / {number(r['tokens_out'])}",
    ),
]
"""The extra per-model columns, in display order."""


def model_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Every ``MODEL_COLUMNS`` figure for the rows of ``frame``, indexed by model."""
    parts = [col.compute(frame) for col in MODEL_COLUMNS]
    if not parts:
        return pd.DataFrame(index=pd.Index(frame["model"].unique(), name="model"))
    return pd.concat(parts, axis=1)
