"""Per-case context and reference plans, and the suite's metric settings.

A case may carry ``context``: template variables for its prompt, and ``tools`` (the tools or
capabilities offered to the planner for this goal). When ``tools`` is present it replaces the
suite registry for that case: ``{capabilities}`` renders them and ``known_capabilities`` checks
against them. A case may also carry a reference (gold) plan, inline (``reference``) or in a file
beside the suite (``reference_file``), in any format planeval reads; it is scored by
``harness.metrics`` into the row's metric columns.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._errors import SuiteError
from harness.registry import Capability, Registry

__all__ = [
    "MetricSettings",
    "case_registry",
    "read_reference",
    "render_template",
    "tools_registry",
]

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_MAX_REFERENCE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class MetricSettings:
    """The suite's ``metrics:`` block: how case references are scored."""

    families: tuple[str, ...] | None = None
    """Metric families to compute (None: every family the reference supports)."""
    dependency: str | None = None
    """TaskBench ``resource`` or ``temporal`` (None: inferred from each reference)."""
    matcher: str = "text"
    """WorfBench node matcher: ``text`` or ``embeddings``."""
    embedding_model: str | None = None
    """sentence-transformers model for the ``embeddings`` matcher (None: WorfBench's)."""

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None, base: Path | None = None) -> MetricSettings:
        """Build from the validated ``metrics:`` mapping (or None).

        ``embedding_model`` names a model or a saved model folder; a relative folder that
        exists beside the suite file (``base``) is read from there, like ``reference_file``,
        whatever the working directory; any other value goes to sentence-transformers as is.
        """
        data = data or {}
        families = data.get("families")
        model = data.get("embedding_model")
        if model and base is not None and (base / model).is_dir():
            model = str((base / model).resolve())
        return cls(
            families=tuple(families) if families else None,
            dependency=data.get("taskbench_dependency"),
            matcher=data.get("matcher", "text"),
            embedding_model=model,
        )


def render_template(template: str, values: Mapping[str, str]) -> str:
    """Fill ``{name}`` for every name in ``values``; other braces (JSON) stay as they are.

    Plain replacement, never ``str.format``: templates contain JSON braces.
    """
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def tools_registry(tools: Any, *, source: str) -> Registry:
    """The registry of a case's ``context.tools`` (names, or capability objects).

    A list of names (every WorfBench case) takes its capabilities from one tuple per distinct
    list, since imported suites repeat the same lists (500 intercodesql cases, 20 lists); each
    case still gets its own registry, named after it (``source``) for its messages.
    """
    if isinstance(tools, list) and all(isinstance(name, str) and name for name in tools):
        return Registry(capabilities=_named_capabilities(tuple(tools)), source=source)
    return Registry.from_data(list(tools), source=source)


@functools.lru_cache(maxsize=4096)
def _named_capabilities(names: tuple[str, ...]) -> tuple[Capability, ...]:
    """The capabilities of a list of tool names, as ``Registry.from_data`` reads it (built once
    per distinct list; capabilities are immutable, so registries may share them)."""
    return Registry.from_data(list(names), source="<tools>").capabilities


def case_registry(suite_registry: Registry | None, case_tools: Registry | None) -> Registry | None:
    """The registry a case's plans are checked against: its own tools when it has them."""
    return case_tools if case_tools is not None else suite_registry


def read_reference(base: Path, relpath: str, *, source: str, location: str) -> str:
    """The text of a ``reference_file`` (relative to the suite file).

    Raises:
        SuiteError: the file is missing, too large or not UTF-8.
    """
    path = base / relpath
    try:
        if path.stat().st_size > _MAX_REFERENCE_BYTES:
            raise SuiteError(
                f"the reference file {relpath!r} is larger than {_MAX_REFERENCE_BYTES} bytes",
                source=source,
                location=location,
            )
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(
            f"cannot read the reference file {relpath!r}: {exc.__class__.__name__}",
            source=source,
            location=location,
            hint="the path is relative to the suite file",
        ) from None
