"""The metric columns of a results row: the answer scored against the case's reference plan.

The suite's ``metrics:`` block says which families, which TaskBench dependency type and which
WorfBench matcher; the TaskBench tool catalogue is the case's registry (a ``tool_desc.json`` as
the registry gives every tool of the domain). Matchers are built once per suite, so an
embedding model loads once per run; a case's reference is read once, and a registry becomes
a catalogue once, however many models and samples are scored against them.
"""

from __future__ import annotations

import threading
from typing import Any

from harness.suite import Case, Suite

__all__ = ["metric_columns"]

_LOCK = threading.Lock()
_MATCHERS: dict[tuple[str, str | None], Any] = {}
_KEPT = 4096
_REFERENCES: dict[int, tuple[Case, Any]] = {}
"""id(case) -> (case, its ``harness.metrics.Reference``): the case is kept, so its id is not
reused while the entry lives."""
_CATALOGUES: dict[int, tuple[Any, Any]] = {}
"""id(registry) -> (registry, its ``ToolCatalogue``)."""


def _matcher(suite: Suite) -> Any:
    from harness.metrics import DEFAULT_EMBEDDING_MODEL, EmbeddingMatcher, TextMatcher

    settings = suite.metrics
    if settings.matcher != "embeddings":
        return TextMatcher()
    key = (settings.matcher, settings.embedding_model)
    with _LOCK:
        if key not in _MATCHERS:
            _MATCHERS[key] = EmbeddingMatcher(settings.embedding_model or DEFAULT_EMBEDDING_MODEL)
        return _MATCHERS[key]


def _kept(cache: dict[int, tuple[Any, Any]], key: Any, make: Any) -> Any:
    kept = cache.get(id(key))
    if kept is not None and kept[0] is key:
        return kept[1]
    value = make(key)
    with _LOCK:
        if len(cache) >= _KEPT:
            cache.clear()
        cache[id(key)] = (key, value)
    return value


def metric_columns(suite: Suite, case: Case, answer: str) -> dict[str, Any]:
    """``{metrics, metric_status, metric_detail}`` for a row, or ``{}`` without a reference."""
    if case.reference is None:
        return {}
    from harness.metrics import Reference, ToolCatalogue, score_plan

    registry = suite.registry_for(case)
    catalogue = (
        _kept(_CATALOGUES, registry, ToolCatalogue.from_registry) if registry is not None else None
    )
    reference = _kept(_REFERENCES, case, lambda c: Reference.read(c.reference))
    result = score_plan(
        answer,
        reference,
        families=suite.metrics.families,
        matcher=_matcher(suite),
        catalogue=catalogue,
        dependency=suite.metrics.dependency,  # type: ignore[arg-type]
        unparseable="zero",
    )
    detail: dict[str, Any] = {}
    if result.detail:
        detail["detail"] = result.detail
    if result.notes:
        detail["notes"] = list(result.notes)
    if result.taskbench is not None:
        detail["taskbench"] = result.taskbench.to_dict()
        if catalogue is not None:
            detail["catalogue_size"] = len(catalogue.names)
    return {
        "metrics": dict(result.metrics) or None,
        "metric_status": result.status,
        "metric_detail": detail or None,
    }
