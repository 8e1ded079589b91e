"""Token usage and what it cost: price tables, per-call cost, per-model and per-run totals.

Prices come from a dated, sourced file (``harness/data/prices.yaml`` ships with planeval; a
suite's ``prices:`` file and ``--prices FILE`` go on top). A model without a price has an
unknown cost, never a guessed one.
"""

from __future__ import annotations

from harness.cost._prices import PRICES_FORMAT, Price, PriceTable, default_prices, load_prices
from harness.cost._render import (
    compare_usage,
    compare_usage_markdown,
    format_tokens,
    format_usd,
    usage_markdown,
    usage_table_rows,
    usage_total_line,
)
from harness.cost._resolve import model_prices, price_table, run_prices
from harness.cost._usage import UsageSummary, UsageTally, call_cost, summarize_usage, usage_total
from harness.providers._usage import USAGE_KEYS, usage_from_body

__all__ = [
    "PRICES_FORMAT",
    "USAGE_KEYS",
    "Price",
    "PriceTable",
    "UsageSummary",
    "UsageTally",
    "call_cost",
    "compare_usage",
    "compare_usage_markdown",
    "default_prices",
    "format_tokens",
    "format_usd",
    "load_prices",
    "model_prices",
    "price_table",
    "run_prices",
    "summarize_usage",
    "usage_from_body",
    "usage_markdown",
    "usage_table_rows",
    "usage_total",
    "usage_total_line",
]
