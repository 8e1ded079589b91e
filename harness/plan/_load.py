"""Loading plans from files, text and dicts: the library entry points."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harness._errors import NoPlanFoundError, PlanLoadError
from harness._gc import gc_paused
from harness._size import RAISE_HINT, over_limit, read_at_most
from harness.plan._adapters import Document, documents_from_json, documents_from_text
from harness.plan._json import MAX_PLAN_BYTES, decode_text
from harness.plan._model import Plan

__all__ = ["load_plan", "load_plan_file", "read_input"]


def load_plan(
    obj: Path | str | bytes | dict[str, Any],
    *,
    format: str = "auto",
    source: str | None = None,
    max_bytes: int = MAX_PLAN_BYTES,
) -> Plan:
    """Load one plan.

    Args:
        obj: a ``Path`` (the file is read), ``str`` or ``bytes`` (text in any supported
            format), or a ``dict`` (canonical plan JSON).
        format: one of ``FORMATS``: ``auto``, ``canonical``, ``text``, ``worfbench``,
            ``taskbench``, ``hugginggpt``, ``llmcompiler``, ``rewoo``, ``teval``,
            ``plan_and_execute``, ``metagpt``, ``openai_tool_calls`` or
            ``anthropic_tool_use`` (docs/formats.md).
        source: the name used in error messages (defaults to the path or ``<text>``).
        max_bytes: inputs larger than this are refused.

    Raises:
        PlanLoadError: the input is unusable (``NoPlanFoundError`` when text holds no plan).
    """
    if isinstance(obj, dict):
        label = source or "<dict>"
        results = _plans_from_documents(documents_from_json(obj, fmt=format, source=label), label)
    elif isinstance(obj, os.PathLike):
        results = load_plan_file(Path(obj), format=format, max_bytes=max_bytes)
        label = source or str(obj)
    else:
        label = source or "<text>"
        data = obj.encode("utf-8") if isinstance(obj, str) else obj
        try:
            results = _plans_from_bytes(data, format=format, source=label, max_bytes=max_bytes)
        except NoPlanFoundError as exc:
            if isinstance(obj, str) and _names_a_file(obj):
                exc.hint = f"{obj!r} is a file name: pass Path({obj!r}) to read the file"
            raise
    if len(results) != 1:
        raise PlanLoadError(
            f"the input holds {len(results)} plans, not one",
            source=label,
            hint="use load_plan_file() to get each of them",
        )
    found = results[0][1]
    if isinstance(found, PlanLoadError):
        raise found
    return found


def load_plan_file(
    path: Path | str, *, format: str = "auto", max_bytes: int = MAX_PLAN_BYTES
) -> list[tuple[str, Plan | PlanLoadError]]:
    """Load every plan in a file: one for a plan file, one per record for JSON Lines, a JSON
    array of plan records or a WorfBench data file.

    Returns:
        ``(label, plan or error)`` pairs; labels are the path, or ``PATH#<label>`` (the
        record's id, else its line number or position).

    Raises:
        PlanLoadError: the file as a whole is unusable (missing, a directory, not UTF-8, ...).
    """
    path = Path(path)
    return _plans_from_bytes(
        read_input(path, max_bytes=max_bytes),
        format=format,
        source=str(path),
        max_bytes=max_bytes,
    )


def read_input(path: Path, *, max_bytes: int = MAX_PLAN_BYTES) -> bytes:
    """Read a file's bytes, turning every OS problem into one PlanLoadError."""
    source = str(path)
    try:
        if path.is_dir():
            raise PlanLoadError(
                "is a directory, not a plan file", source=source, hint="name the files in it"
            )
        data = read_at_most(path, max_bytes)  # bounded whatever the file: /dev/zero, a pipe
        if len(data) > max_bytes:
            size = path.stat().st_size or None  # 0: a device or a pipe, size unknown
            raise PlanLoadError(over_limit(size, max_bytes), source=source, hint=RAISE_HINT)
        return data
    except IsADirectoryError:
        raise PlanLoadError(
            "is a directory, not a plan file", source=source, hint="name the files in it"
        ) from None
    except FileNotFoundError:
        raise PlanLoadError("no such file", source=source) from None
    except PermissionError:
        raise PlanLoadError("permission denied", source=source) from None
    except OSError as exc:
        raise PlanLoadError(f"cannot read the file: {exc.strerror}", source=source) from None


def _plans_from_bytes(
    data: bytes, *, format: str, source: str, max_bytes: int
) -> list[tuple[str, Plan | PlanLoadError]]:
    text = decode_text(data, source=source, max_bytes=max_bytes)
    with gc_paused():  # many small acyclic objects for a multi-plan file (harness._gc)
        return _plans_from_documents(documents_from_text(text, fmt=format, source=source), source)


def _plans_from_documents(
    documents: Iterable[Document], source: str
) -> list[tuple[str, Plan | PlanLoadError]]:
    return list(plans_from_documents(documents, source))


def plans_from_documents(
    documents: Iterable[Document], source: str
) -> Iterator[tuple[str, Plan | PlanLoadError]]:
    """``(label, plan or error)`` for each document, lazily (labels as in load_plan_file)."""
    for label, document in documents:
        name = source if label is None else f"{source}#{label}"
        if isinstance(document, PlanLoadError | Plan):
            yield name, document
            continue
        try:
            yield name, Plan.from_dict(document, source=name)
        except PlanLoadError as exc:
            yield name, exc


def _names_a_file(text: str) -> bool:
    if "\n" in text or len(text) > 4096:
        return False
    try:
        return Path(text).is_file()
    except OSError:
        return False
