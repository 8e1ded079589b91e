"""Price tables: USD per million tokens per provider model, read from a dated, sourced file.

The file format (``planeval-prices/1``)::

    format: planeval-prices/1
    taken: "2026-12-01"              # when the prices were read
    models:
      - {provider: anthropic, model: claude-sonnet-4-5, input: 3.00, output: 15.00,
         cached_input: 0.30, cache_write_input: 3.75, source: "https://..."}

A model matches an entry by its exact API name, an alias, or the name followed by a dated
snapshot suffix (``-20250929``, ``-2025-11-13``). Nothing else matches: a model without an
entry has no price, and its cost is unknown.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from harness._errors import InputError

__all__ = ["PRICES_FORMAT", "Price", "PriceTable", "default_prices", "load_prices"]

PRICES_FORMAT = "planeval-prices/1"
_DEFAULT = Path(__file__).resolve().parents[1] / "data" / "prices.yaml"
_SNAPSHOT = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
_RATES = ("input", "output", "cached_input", "cache_write_input")


@dataclass(frozen=True, slots=True)
class Price:
    """What one model's tokens cost, in USD per million tokens."""

    input: float
    """Prompt tokens not read from a cache."""
    output: float
    """Completion tokens (reasoning tokens included: they are billed as output)."""
    cached_input: float | None = None
    """Prompt tokens read from the provider's cache, when the provider prices them."""
    cache_write_input: float | None = None
    """Prompt tokens written to the cache (Anthropic), when priced."""
    source: str = ""
    """The page the numbers were read from."""
    taken: str = ""
    """When they were read (``YYYY-MM-DD``)."""

    def to_dict(self) -> dict[str, Any]:
        """The price as run.json stores it."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Price:
        """A price from run.json (unknown keys are ignored)."""
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True, slots=True)
class PriceTable:
    """Prices by ``(provider, model name)``."""

    entries: dict[tuple[str, str], Price] = field(default_factory=dict)
    """Every name (aliases included) of every priced model."""

    def lookup(self, provider: str | None, model: str | None) -> Price | None:
        """The price of ``model`` at ``provider``, or None when the table has none."""
        if not provider or not model:
            return None
        found = self.entries.get((provider, model))
        if found is None:
            base = _SNAPSHOT.sub("", model)
            if base != model:
                found = self.entries.get((provider, base))
        return found

    def updated(self, other: PriceTable) -> PriceTable:
        """This table with ``other``'s entries on top."""
        return PriceTable({**self.entries, **other.entries})


def load_prices(path: Path | str) -> PriceTable:
    """Read a price file.

    Raises:
        InputError: the file is missing, not YAML, or an entry lacks a provider, a model,
            an input or output rate, or has a rate that is not a non-negative number.
    """
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the price file: {exc}", source=source) from None
    from harness._yaml import load_yaml  # PyYAML only when a price file is read

    data = load_yaml(text, source=source)
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise InputError(
            "not a price file: expected a mapping with a 'models' list",
            source=source,
            hint="see docs/cost.md for the format",
        )
    taken = str(data.get("taken") or "")
    entries: dict[tuple[str, str], Price] = {}
    for index, item in enumerate(data["models"]):
        where = f"/models/{index}"
        if not isinstance(item, dict) or not item.get("provider") or not item.get("model"):
            raise InputError(
                "a price entry needs a provider and a model", source=source, location=where
            )
        rates = {}
        for key in _RATES:
            value = item.get(key)
            if value is None and key in ("input", "output"):
                raise InputError(f"the entry has no {key!r} rate", source=source, location=where)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float) or value < 0
            ):
                raise InputError(
                    f"{key!r} must be a non-negative number of USD per million tokens, "
                    f"got {value!r}",
                    source=source,
                    location=where,
                )
            rates[key] = None if value is None else float(value)
        price = Price(
            input=rates["input"],  # type: ignore[arg-type]
            output=rates["output"],  # type: ignore[arg-type]
            cached_input=rates["cached_input"],
            cache_write_input=rates["cache_write_input"],
            source=str(item.get("source") or source),
            taken=str(item.get("taken") or taken),
        )
        names = [str(item["model"]), *(str(a) for a in item.get("aliases") or ())]
        for name in names:
            entries[(str(item["provider"]), name)] = price
    return PriceTable(entries)


@cache
def default_prices() -> PriceTable:
    """The price table shipped with planeval (``harness/data/prices.yaml``)."""
    return load_prices(_DEFAULT)
