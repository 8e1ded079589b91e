"""Tokens and cost as people read them: unknown is ``unknown``, no usage is ``—``, never 0."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.cost._prices import Price
from harness.cost._usage import UsageSummary, summarize_usage

__all__ = [
    "compare_usage",
    "compare_usage_markdown",
    "format_tokens",
    "format_usd",
    "usage_markdown",
    "usage_table_rows",
    "usage_total_line",
]

NONE = "—"
"""Shown for rows that report no usage (command and dataset models)."""


def format_usd(value: float | None, *, known_tokens: bool = True) -> str:
    """``$0.0123``; ``unknown`` without a price; ``—`` when there was no usage at all."""
    if not known_tokens:
        return NONE
    if value is None:
        return "unknown"
    if value == 0 or value >= 0.01:
        return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"
    return f"${value:.6f}"


def format_tokens(summary: UsageSummary, key: str) -> str:
    """A token count with thousands separators, or ``—`` when the provider reported none."""
    if not summary.calls or key not in summary.tokens:
        return NONE
    return f"{summary.tokens[key]:,}"


_HEAD = ("model", "calls", "input", "cached", "output", "reasoning", "cost", "cost / pass")


def usage_table_rows(summaries: list[UsageSummary], total: UsageSummary) -> list[tuple[str, ...]]:
    """One tuple of cells per model and one for the total (columns: ``_HEAD``)."""
    out: list[tuple[str, ...]] = []
    for s in [*summaries, total]:
        out.append(
            (
                s.model if s.model is not None else "total",
                f"{s.calls:,}" if s.calls else NONE,
                format_tokens(s, "input"),
                format_tokens(s, "cached_input"),
                format_tokens(s, "output"),
                format_tokens(s, "reasoning"),
                format_usd(s.known_cost, known_tokens=s.known_tokens),
                format_usd(s.cost_per_pass, known_tokens=s.known_tokens)
                if s.passes or not s.known_tokens
                else "no pass",
            )
        )
    return out


def usage_markdown(
    rows: Iterable[Mapping[str, Any] | Any],
    prices: Mapping[str, Price | None],
    *,
    limit: int = 25,
    usage: tuple[list[UsageSummary], UsageSummary] | None = None,
) -> list[str]:
    """The ``### Tokens and cost`` section of summary.md (empty when no row has usage).

    At most ``limit`` models are listed (those with the most tokens first), then the total.
    ``usage``: ``summarize_usage(rows, prices)`` when the caller has it already.
    """
    summaries, total = usage or summarize_usage(rows, prices)
    if not total.calls:
        return []
    hidden = max(0, len(summaries) - limit)
    if hidden:
        summaries = sorted(summaries, key=lambda u: -sum(u.tokens.values()))[:limit]
    lines = [
        "### Tokens and cost",
        "",
        "| " + " | ".join(_HEAD) + " |",
        "|---|" + "---:|" * (len(_HEAD) - 1),
    ]
    for cells in usage_table_rows(summaries, total):
        lines.append("| " + " | ".join(cells) + " |")
    if hidden:
        lines.append(f"| …and {hidden:,} more models | | | | | | | |")
    dated = _price_origins(prices, "{taken} ({source})")
    unpriced = [s.model for s in summaries if s.unpriced]
    lines.append("")
    if dated:
        lines.append("Prices: " + "; ".join(dated) + ".")
    if unpriced:
        lines.append(
            "No price for " + ", ".join(f"`{m}`" for m in unpriced) + ": cost unknown "
            "(set one with a suite's `prices:` file or `--prices FILE`)."
        )
    lines.append("")
    return lines


def usage_total_line(
    rows: Iterable[Mapping[str, Any] | Any],
    prices: Mapping[str, Price | None],
    *,
    usage: tuple[list[UsageSummary], UsageSummary] | None = None,
) -> str | None:
    """One sentence on a run's tokens and cost over all models (None when no row has usage):
    ``All models: 1,200 calls with usage, 900,000 input and 150,000 output tokens; cost
    $1.23, $0.0021 per passing plan (prices of 2026-12-01, https://...).``

    ``usage``: ``summarize_usage(rows, prices)`` when the caller has it already."""
    summaries, total = usage or summarize_usage(rows, prices)
    if not total.calls:
        return None
    cost = format_usd(total.known_cost)
    per_pass = format_usd(total.cost_per_pass) if total.passes else "no pass"
    dated = _price_origins(prices, "{taken}, {source}")
    unpriced = [str(s.model) for s in summaries if s.unpriced]
    text = (
        f"All models: {total.calls:,} calls with usage, {format_tokens(total, 'input')} input "
        f"and {format_tokens(total, 'output')} output tokens; cost {cost}, {per_pass} per "
        "passing plan"
    )
    if dated:
        text += " (prices of " + "; ".join(dated) + ")"
    if unpriced:
        text += "; no price for " + ", ".join(unpriced) + ", so their cost is unknown"
    return text + "."


def compare_usage(
    base: Iterable[Mapping[str, Any] | Any],
    base_prices: Mapping[str, Price | None],
    cand: Iterable[Mapping[str, Any] | Any],
    cand_prices: Mapping[str, Price | None],
    *,
    usage: tuple[tuple[list[UsageSummary], UsageSummary], tuple[list[UsageSummary], UsageSummary]]
    | None = None,
) -> dict[str, Any] | None:
    """Tokens and cost of both runs per model and in total (None when neither has usage).

    ``usage``: ``summarize_usage`` of each side at its prices when the caller has them (the
    rows are then not read)."""
    if usage is None:
        usage = summarize_usage(base, base_prices), summarize_usage(cand, cand_prices)
    (base_models, base_total), (cand_models, cand_total) = usage
    if not base_total.calls and not cand_total.calls:
        return None
    by_model: dict[str, dict[str, Any]] = {}
    for side, summaries in (("base", base_models), ("cand", cand_models)):
        for s in summaries:
            by_model.setdefault(str(s.model), {"base": None, "cand": None})[side] = s.to_dict()
    return {
        "models": by_model,
        "total": {"base": base_total.to_dict(), "cand": cand_total.to_dict()},
    }


def compare_usage_markdown(usage: dict[str, Any] | None) -> list[str]:
    """The ``### Tokens and cost`` section of ``compare --format markdown``."""
    if usage is None:
        return []
    lines = [
        "### Tokens and cost",
        "",
        "| model | tokens base | tokens candidate | cost base | cost candidate "
        "| cost / pass base | cost / pass candidate |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = [*usage["models"].items(), ("**total**", usage["total"])]
    for model, sides in rows:
        cells = [model if model.startswith("**") else f"`{model}`"]
        for key in ("tokens", "cost_usd", "cost_per_pass_usd"):
            for side in ("base", "cand"):
                data = sides.get(side)
                cells.append(_cell(data, key))
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def _cell(data: dict[str, Any] | None, key: str) -> str:
    if not data or not data.get("tokens"):
        return NONE
    if key == "tokens":
        tokens = data["tokens"]
        return f"{tokens.get('input', 0) + tokens.get('output', 0):,}"
    if key == "cost_per_pass_usd" and not data.get("passes"):
        return "no pass"
    return format_usd(data.get(key))


def _price_origins(prices: Mapping[str, Price | None], form: str) -> list[str]:
    """Where and when each distinct price was read, in ``form`` (``{taken}`` and ``{source}``);
    a price that says only one of the two shows that one, one that says neither shows nothing
    (a prices file may leave both out)."""
    out: set[str] = set()
    for p in prices.values():
        if p is None or not (p.taken or p.source):
            continue
        out.add(
            form.format(taken=p.taken, source=p.source)
            if p.taken and p.source
            else p.taken or p.source
        )
    return sorted(out)
