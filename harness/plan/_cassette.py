"""Ruby VCR cassettes (``http_interactions:``): the plan in the first response that holds one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from harness._errors import NoPlanFoundError, PlanLoadError

__all__ = ["plan_in_cassette"]

Reader = Callable[..., list[tuple[str | None, Any]]]
"""``documents_from_text``: how a response body is read (passed in to avoid an import cycle)."""


def plan_in_cassette(text: str, *, source: str, read: Reader) -> dict[str, Any]:
    """The plan in the first response of a Ruby VCR cassette that holds one (the gem's)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        raise PlanLoadError("invalid YAML cassette", source=source, location=where) from None
    interactions = data.get("http_interactions") if isinstance(data, dict) else None
    if not isinstance(interactions, list) or not interactions:
        raise NoPlanFoundError("the cassette has no http_interactions", source=source)
    first_error: PlanLoadError | None = None
    for index, interaction in enumerate(interactions):
        body = ((interaction or {}).get("response") or {}).get("body") or {}
        string = body.get("string") if isinstance(body, dict) else None
        if not isinstance(string, str) or not string.strip():
            continue
        try:
            docs = read(string, fmt="auto", source=source)
        except PlanLoadError as exc:
            exc.location = f"/http_interactions/{index}/response/body/string"
            first_error = first_error or exc
            continue
        found = docs[0][1]
        if isinstance(found, dict):
            return found
    if first_error is not None:
        raise first_error
    raise NoPlanFoundError("no response body in the cassette holds a plan", source=source)
