"""Task arguments: literal JSON values with references to earlier tasks' results.

The canonical form (docs/formats.md): a task's ``arguments`` is an object ``{name: value}``; a
value that is exactly an earlier task's result is ``{"$result": "<task id>"}``; a string that
mixes text with results is ``{"$concat": ["text ", {"$result": "t1"}, " more"]}``. References may
sit anywhere inside a value (in a list, in an object). In the model they are ``Ref`` and
``Template`` (text with references) records, never strings, so a check can tell a reference
from text that merely looks like one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Ref",
    "Template",
    "arguments_from_json",
    "arguments_to_json",
    "new_ref",
    "references",
    "split_references",
    "value_from_matches",
]

_MAX_DEPTH = 64
"""Values nested deeper than this are kept as they are (no reference is looked for inside)."""


@dataclass(frozen=True, slots=True)
class Ref:
    """A reference to an earlier task's result (``{"$result": task}``)."""

    task: str
    """The id of the producing task."""

    def to_json(self) -> dict[str, str]:
        return {"$result": self.task}


@dataclass(frozen=True, slots=True)
class Template:
    """Text mixed with references (``{"$concat": [...]}``): the value is a string."""

    parts: tuple[str | Ref, ...]
    """Text pieces and references, in order."""

    def to_json(self) -> dict[str, list[Any]]:
        return {"$concat": [p.to_json() if isinstance(p, Ref) else p for p in self.parts]}


def arguments_from_json(value: Any) -> dict[str, Any]:
    """The arguments of a canonical task (``{}`` when absent or not an object; the ``schema``
    check reports a malformed value)."""
    if not isinstance(value, dict) or not value:
        return {}
    return {str(k): _from_json(v, 0) for k, v in value.items()}


def _from_json(value: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, dict):
        if len(value) == 1:
            if "$result" in value:
                task = value["$result"]
                if isinstance(task, str) and task:
                    return Ref(task)
                return value
            if "$concat" in value:
                parts = value["$concat"]
                if isinstance(parts, list):
                    read = [_part(p) for p in parts]
                    if all(p is not None for p in read):
                        return Template(tuple(p for p in read if p is not None))
                return value
        return {k: _from_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v, depth + 1) for v in value]
    return value


def _part(value: Any) -> str | Ref | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        task = value.get("$result")
        if isinstance(task, str) and task:
            return Ref(task)
    return None


def arguments_to_json(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments in canonical JSON (references as ``$result`` / ``$concat`` objects)."""
    return {k: _to_json(v) for k, v in arguments.items()}


def _to_json(value: Any) -> Any:
    if isinstance(value, Ref | Template):
        return value.to_json()
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    return value


def references(value: Any, pointer: str = "") -> Iterator[tuple[str, Ref, bool]]:
    """``(json_pointer, ref, whole)`` for each reference inside a value; ``whole`` is False for
    a reference inside a ``$concat`` (the value is then a string, not the producer's result)."""
    stack: list[tuple[str, Any]] = [(pointer, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, Ref):
            yield where, item, True
        elif isinstance(item, Template):
            for k, part in enumerate(item.parts):
                if isinstance(part, Ref):
                    yield f"{where}/$concat/{k}", part, False
        elif isinstance(item, dict):
            stack.extend(reversed([(f"{where}/{_escape(k)}", v) for k, v in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([(f"{where}/{i}", v) for i, v in enumerate(item)]))


_SET_REF_TASK = Ref.__dict__["task"].__set__


def new_ref(task: str) -> Ref:
    """A ``Ref`` without the frozen-dataclass ``__init__`` (same object; readers build many)."""
    ref = object.__new__(Ref)
    _SET_REF_TASK(ref, task)
    return ref


def value_from_matches(text: str, matches: list[re.Match[str]], refs: list[Ref]) -> Any:
    """The value of ``text`` given its reference matches and the ``Ref`` of each: the text
    when there is none, the ``Ref`` when the whole (stripped) text is one, else a ``Template``."""
    if not matches:
        return text
    if len(matches) == 1 and matches[0].group(0) == text.strip():
        return refs[0]
    parts: list[str | Ref] = []
    at = 0
    for match, ref in zip(matches, refs, strict=True):
        if match.start() > at:
            parts.append(text[at : match.start()])
        parts.append(ref)
        at = match.end()
    if at < len(text):
        parts.append(text[at:])
    return Template(tuple(parts))


def split_references(
    text: str, pattern: re.Pattern[str], task_of: Callable[[re.Match[str]], str]
) -> Any:
    """A string with references found by ``pattern`` as a value: the text itself when there is
    none, a ``Ref`` when the whole (stripped) text is one reference, else a ``Template``.

    Args:
        text: the argument text.
        pattern: matches one reference.
        task_of: the id of the task a match refers to.
    """
    matches = list(pattern.finditer(text))
    return value_from_matches(text, matches, [new_ref(task_of(m)) for m in matches])


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
