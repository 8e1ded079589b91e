"""Tokens and cost of a run's rows, per model and in total, and cost per passing plan.

Rows without usage (``command`` and ``dataset`` models, missing rows) add nothing and are never
counted as zero: a model none of whose rows has usage shows its tokens as unknown. A cost is
known only when every row with usage has a price that covers the tokens it used.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from typing import Any

from harness.cost._prices import Price

__all__ = ["UsageSummary", "UsageTally", "call_cost", "summarize_usage"]

_MILLION = 1_000_000.0


def call_cost(tokens: Mapping[str, int] | None, price: Price | None) -> float | None:
    """USD for one call's ``tokens`` at ``price``; None when either is unknown.

    Uncached input at the input rate, cache hits at ``cached_input``, cache writes at
    ``cache_write_input``, output (reasoning included) at the output rate. Cached or written
    tokens without a rate for them make the cost unknown.
    """
    if tokens is None or price is None:
        return None
    cached = int(tokens.get("cached_input") or 0)
    written = int(tokens.get("cache_write_input") or 0)
    if (cached and price.cached_input is None) or (written and price.cache_write_input is None):
        return None
    plain = max(0, int(tokens.get("input") or 0) - cached - written)
    usd = plain * price.input + int(tokens.get("output") or 0) * price.output
    if cached:
        usd += cached * (price.cached_input or 0.0)
    if written:
        usd += written * (price.cache_write_input or 0.0)
    return usd / _MILLION


@dataclass(slots=True)
class UsageSummary:
    """Tokens and cost of one model's rows (or of a whole run, ``model`` = None)."""

    model: str | None
    """The model id, or None for the run's total."""
    rows: int = 0
    """Rows seen."""
    calls: int = 0
    """Rows whose answer reported usage."""
    passes: int = 0
    """Rows whose plan passed."""
    tokens: dict[str, int] = field(default_factory=dict)
    """Summed usage per key (``input``, ``output``, ``cached_input``, ...)."""
    cost: float | None = 0.0
    """USD, or None when some row's cost is unknown."""
    unpriced: int = 0
    """Rows with usage whose cost is unknown."""

    @property
    def known_tokens(self) -> bool:
        """True when at least one row reported usage."""
        return self.calls > 0

    @property
    def known_cost(self) -> float | None:
        """The cost when every row with usage was priced (and some row had usage)."""
        return self.cost if self.calls and self.unpriced == 0 else None

    @property
    def cost_per_pass(self) -> float | None:
        """USD per passing plan; None when the cost is unknown or nothing passed."""
        cost = self.known_cost
        return cost / self.passes if cost is not None and self.passes else None

    def add(self, row: Mapping[str, Any], price: Price | None) -> None:
        """Count one results row."""
        tokens = row.get("tokens")
        usd = call_cost(tokens, price) if isinstance(tokens, dict) else None
        self._count(row.get("status") == "pass", tokens, usd)

    def _count(self, passed: bool, tokens: Any, usd: float | None) -> None:
        """Count one row that passed or not, with its usage and its cost (None: unknown)."""
        self.rows += 1
        if passed:
            self.passes += 1
        if not isinstance(tokens, dict):
            return
        self.calls += 1
        for key, value in tokens.items():
            if isinstance(value, int):
                self.tokens[key] = self.tokens.get(key, 0) + value
        if usd is None:
            self.unpriced += 1
        elif self.cost is not None:
            self.cost += usd

    def to_dict(self) -> dict[str, Any]:
        """The summary as ``--format json`` shows it (unknowns are null)."""
        return {
            "model": self.model,
            "rows": self.rows,
            "passes": self.passes,
            "calls_with_usage": self.calls,
            "tokens": dict(self.tokens) if self.calls else None,
            "cost_usd": self.known_cost,
            "cost_per_pass_usd": self.cost_per_pass,
            "unpriced_calls": self.unpriced,
        }


class UsageTally:
    """``summarize_usage`` fed a part of the rows at a time (a run read block by block): the
    same summaries, the total cost summed row by row in the order the rows came."""

    def __init__(self, prices: Mapping[str, Price | None]) -> None:
        self.prices = prices
        self.per_model: dict[str, UsageSummary] = {}
        self.total_cost = 0.0

    def add(self, rows: Iterable[Mapping[str, Any] | Any]) -> None:
        """Count these rows (results.jsonl dicts, ``ResultRow`` or report rows)."""
        per_model, prices = self.per_model, self.prices
        total_cost = self.total_cost
        for raw in rows:  # one pass, each row's cost computed once
            if type(raw) is not dict and hasattr(raw, "status"):  # ResultRow, report Row
                record: Any = raw
                model, status, tokens = record.model, record.status, record.tokens
                if type(model) is not str:
                    model = str(model)
            else:
                model, status, tokens = str(raw.get("model")), raw.get("status"), raw.get("tokens")
            summary = per_model.get(model)
            if summary is None:
                summary = per_model[model] = UsageSummary(model)
            usd = call_cost(tokens, prices.get(model)) if isinstance(tokens, dict) else None
            summary._count(status == "pass", tokens, usd)
            if usd is not None:
                total_cost += usd
        self.total_cost = total_cost

    def add_counts(
        self,
        models: Sequence[str],
        statuses: Sequence[str],
        tokens: Sequence[dict[str, Any] | None],
    ) -> None:
        """``add`` of rows given as columns (each row's model id, status and tokens dict or
        None), counted a block at once: the same summaries (tokens in the order ``add`` meets
        them) and the same costs, summed row by row in the rows' order."""
        per_model, prices = self.per_model, self.prices
        passes = Counter(compress(models, map("pass".__eq__, statuses)))
        groups: dict[str, list[dict[str, Any]]] = {}
        for model, n in Counter(models).items():  # first-seen order, as ``add`` makes them
            summary = per_model.get(model)
            if summary is None:
                summary = per_model[model] = UsageSummary(model)
            summary.rows += n
            summary.passes += passes.get(model, 0)
            groups[model] = []
        for model, used in zip(models, tokens, strict=True):
            if used is not None:
                groups[model].append(used)
        priced = False
        for model, found in groups.items():
            if not found:
                continue
            summary = per_model[model]
            summary.calls += len(found)
            _sum_tokens(summary.tokens, found)
            if prices.get(model) is None:
                summary.unpriced += len(found)
            else:
                priced = True
        if priced:  # each priced row's cost, in the rows' order (a float sum depends on it)
            total_cost = self.total_cost
            for model, used in zip(models, tokens, strict=True):
                price = prices.get(model)
                if used is None or price is None:
                    continue
                summary = per_model[model]
                usd = call_cost(used, price)
                if usd is None:
                    summary.unpriced += 1
                else:
                    if summary.cost is not None:
                        summary.cost += usd
                    total_cost += usd
            self.total_cost = total_cost

    def result(self) -> tuple[list[UsageSummary], UsageSummary]:
        """Per-model summaries (in first-seen order) and the total of the rows added."""
        per_model = list(self.per_model.values())
        return per_model, usage_total(per_model, self.total_cost)


def _sum_tokens(into: dict[str, int], found: list[dict[str, Any]]) -> None:
    """Add the int values of each tokens dict of ``found`` to ``into``, as row-by-row
    additions would (a key enters ``into`` where its first int value comes)."""
    if set(map(type, chain.from_iterable(map(dict.values, found)))) != {int}:
        for used in found:  # a float or a None among them: only ints are summed
            for key, value in used.items():
                if isinstance(value, int):
                    into[key] = into.get(key, 0) + value
        return
    # Every value an int: keys in the order of the first row of each distinct key list.
    for key in dict.fromkeys(chain.from_iterable(dict.fromkeys(map(tuple, found)))):
        into[key] = into.get(key, 0) + sum(map(dict.get, found, repeat(key), repeat(0)))


def usage_total(per_model: Iterable[UsageSummary], cost: float | None) -> UsageSummary:
    """The total of ``per_model``'s counts and tokens, with ``cost`` (summed by the caller in
    the order its rows came, so that the float sum is the rows' own)."""
    total = UsageSummary(None)
    for summary in per_model:
        total.rows += summary.rows
        total.passes += summary.passes
        total.calls += summary.calls
        total.unpriced += summary.unpriced
        for key, value in summary.tokens.items():
            total.tokens[key] = total.tokens.get(key, 0) + value
    total.cost = cost
    return total


def summarize_usage(
    rows: Iterable[Mapping[str, Any] | Any], prices: Mapping[str, Price | None]
) -> tuple[list[UsageSummary], UsageSummary]:
    """Per-model summaries (in first-seen order) and the run's total.

    Args:
        rows: results rows as dicts (results.jsonl) or ``ResultRow`` objects.
        prices: the price of each model id (None or absent: unknown).
    """
    tally = UsageTally(prices)
    tally.add(rows)
    return tally.result()
