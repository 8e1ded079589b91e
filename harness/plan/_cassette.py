"""Ruby VCR cassettes (``http_interactions:``): the plan in the first response that holds one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness._errors import NoPlanFoundError, PlanLoadError
from harness._yaml import load_yaml

__all__ = ["plan_in_cassette"]

Reader = Callable[..., list[tuple[str | None, Any]]]
"""``documents_from_text``: how a response body is read (passed in to avoid an import cycle)."""


def plan_in_cassette(text: str, *, source: str, read: Reader) -> dict[str, Any]:
    """The plan in the first response of a Ruby VCR cassette that holds one (the gem's)."""
    data = load_yaml(text, source=source, error=PlanLoadError)
    interactions = data.get("http_interactions") if isinstance(data, dict) else None
    if not isinstance(interactions, list) or not interactions:
        raise NoPlanFoundError("the cassette has no http_interactions", source=source)
    first_error: PlanLoadError | None = None
    for index, interaction in enumerate(interactions):
        response = interaction.get("response") if isinstance(interaction, dict) else None
        body = response.get("body") if isinstance(response, dict) else None
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
