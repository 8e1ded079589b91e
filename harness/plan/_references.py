"""Argument values that cite earlier results, in the canonical ``arguments`` form.

A value that is exactly a reference to task ``t``'s result is ``{"$result": "t"}``; a string that
mixes text with references is ``{"$concat": ["text ", {"$result": "t"}, " more"]}``; a string
without a reference stays a string.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["cited_value"]


def cited_value(text: str, pattern: re.Pattern[str], task_of: Callable[[str], str]) -> Any:
    """``text`` with each match of ``pattern`` turned into ``{"$result": task_of(match)}``."""
    parts: list[Any] = []
    at = 0
    for match in pattern.finditer(text):
        if match.start() > at:
            parts.append(text[at : match.start()])
        parts.append({"$result": task_of(match.group(0))})
        at = match.end()
    if not parts:
        return text
    if at < len(text):
        parts.append(text[at:])
    return parts[0] if len(parts) == 1 else {"$concat": parts}
