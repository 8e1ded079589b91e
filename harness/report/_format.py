"""Formatting helpers shared by the writers."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["count", "interval", "md_cell", "pct"]


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pct(x: Any, digits: int = 1) -> str:
    """``0.8123`` as ``81.2%``; ``–`` for no value."""
    if _missing(x):
        return "–"
    return f"{100 * float(x):.{digits}f}%"


def interval(low: Any, high: Any) -> str:
    """A 95% interval as ``78.7–83.5%``, rounded outward (``harness._format``); ``–`` for no
    value."""
    from harness._format import format_interval

    if _missing(low) or _missing(high):
        return "–"
    return format_interval(float(low), float(high))


def count(x: Any) -> str:
    """An integer count, ``–`` for no value."""
    if _missing(x):
        return "–"
    return f"{int(x):,}"


def md_cell(text: Any, limit: int = 120) -> str:
    """Text made safe for one markdown table cell (no pipes, newlines or runaway length)."""
    s = " ".join(str(text).split()).replace("|", "\\|").replace("`", "'")
    return s if len(s) <= limit else s[: limit - 1] + "…"
