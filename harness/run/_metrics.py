"""The metric columns of a results row: the answer scored against the case's reference plan.

The suite's ``metrics:`` block says which families, which TaskBench dependency type and which
WorfBench matcher; the TaskBench tool catalogue is the case's registry (a ``tool_desc.json`` as
the registry gives every tool of the domain). Matchers are built once per suite, so an
embedding model loads once per run; a case's reference is read once, and a registry becomes
a catalogue once, however many samples are scored against them (the last ``RECENT_CASES``
cases are kept, so memory stays flat however many cases a run has).
"""

from __future__ import annotations

import threading
from typing import Any

from harness._identity import IdentityCache
from harness.suite import Case, ModelSpec, Suite

__all__ = [
    "is_unpredicted_gold",
    "metric_columns",
    "unpredicted_gold",
    "unpredicted_gold_columns",
]

RECENT_CASES = 64
"""Cases whose reference and tool catalogue are kept: the samples of a case (and the cases in
flight at once) share them, and nothing of a case is kept much longer, so a run's memory does
not grow with its cases (each entry holds its case, tool list and all)."""

_LOCK = threading.Lock()
_MATCHERS: dict[tuple[str, str | None], Any] = {}
_REFERENCES: IdentityCache[Case, Any] = IdentityCache(RECENT_CASES)
"""Each recent case's ``harness.metrics.Reference``."""
_CATALOGUES: IdentityCache[Any, Any] = IdentityCache(RECENT_CASES)
"""Each recent registry's ``ToolCatalogue`` (a case with its own tools has its own)."""


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


def metric_columns(suite: Suite, case: Case, answer: str) -> dict[str, Any]:
    """``{metrics, metric_status, metric_detail}`` for a row, or ``{}`` without a reference.

    Never raises: a failure inside scoring makes this row's ``metric_status`` ``error`` (its
    detail names the case and the failure), and every other row of the run is kept."""
    if case.reference is None:
        return {}
    try:
        return _scored_columns(suite, case, answer)
    except Exception as exc:  # one row's scoring must never lose the run
        return {
            "metrics": None,
            "metric_status": "error",
            "metric_detail": {
                "detail": f"case {case.id}: scoring failed ({type(exc).__name__}: {exc}); "
                "the other rows are scored. Please report it with this case's answer."
            },
        }


def _scored_columns(suite: Suite, case: Case, answer: str) -> dict[str, Any]:
    source = case.reference
    assert source is not None  # metric_columns returned early
    from harness.metrics import Reference, ToolCatalogue, score_plan

    registry = suite.registry_for(case)
    catalogue = (
        _CATALOGUES.get(registry, ToolCatalogue.from_registry) if registry is not None else None
    )
    reference = _REFERENCES.get(case, lambda _: Reference.read(source))
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


def is_unpredicted_gold(suite: Suite, model_id: str, case_id: str) -> bool:
    """Whether a ``dataset`` model (imported answers) has no answer for a case that carries a
    reference plan: a gold id without a prediction, which TaskBench's ``evaluate.py`` leaves
    out (``exclude``) and the ``zero`` convention counts as an empty plan."""
    model, case = suite.model(model_id), suite.case(case_id)
    return model is not None and case is not None and unpredicted_gold(model, case)


def unpredicted_gold(model: ModelSpec, case: Case) -> bool:
    """``is_unpredicted_gold`` for the model and case at hand (no look-up by id: a suite
    with a cases file finds a case by reading the file)."""
    return model.provider == "dataset" and case.reference is not None


def unpredicted_gold_columns(suite: Suite, case: Case) -> dict[str, Any]:
    """The metric columns of a gold id without a prediction: an empty answer's (unparseable,
    zero values under ``zero``, none under ``exclude``), saying why."""
    columns = metric_columns(suite, case, "")
    detail = dict(columns.get("metric_detail") or {})
    detail["detail"] = (
        "no answer recorded for this case (a gold id without a prediction): left out under "
        "exclude, an empty plan under zero"
    )
    return {**columns, "metric_detail": detail}
