"""Published JSON Schemas (Draft 2020-12), shipped as package data."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

__all__ = ["SCHEMA_NAMES", "load_schema"]

SCHEMA_NAMES: tuple[str, ...] = ("baseline", "plan", "results-row", "suite")
"""The schemas ``planeval schema NAME`` prints."""


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema called ``name`` (``plan``, ``suite``, ...) as a dict.

    Raises:
        KeyError: there is no such schema.
    """
    from importlib import resources

    if name not in SCHEMA_NAMES:
        raise KeyError(name)
    text = resources.files(__package__).joinpath(f"{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
