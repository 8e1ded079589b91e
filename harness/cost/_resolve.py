"""Which price applies to each model of a run: the shipped table, a suite's, ``--prices``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.cost._prices import Price, PriceTable, default_prices, load_prices

__all__ = ["model_prices", "price_table", "run_prices"]


def price_table(suite_prices: Path | None = None, override: Path | None = None) -> PriceTable:
    """The shipped table, with a suite's price file and then ``--prices FILE`` on top.

    Raises:
        InputError: a price file that cannot be used.
    """
    table = default_prices()
    for path in (suite_prices, override):
        if path is not None:
            table = table.updated(load_prices(path))
    return table


def model_prices(models: Iterable[Mapping[str, Any]], table: PriceTable) -> dict[str, Price | None]:
    """``{model id: price or None}`` for run.json's model descriptions."""
    return {str(m["id"]): table.lookup(m.get("provider"), m.get("model")) for m in models}


def run_prices(manifest: Any) -> dict[str, Price | None]:
    """The prices a run was made with (run.json ``prices``), else today's shipped table."""
    stored = getattr(manifest, "prices", None)
    if isinstance(stored, dict):
        return {
            str(k): Price.from_dict(v) if isinstance(v, dict) else None for k, v in stored.items()
        }
    return model_prices(manifest.models, default_prices())
