"""Strict JSON reading for untrusted planner output and plan files.

Plain ``json.loads`` accepts NaN and Infinity, silently keeps the last of two duplicate keys and
dies with a RecursionError on deep nesting. Here each of those is one ``PlanLoadError`` that
says where the problem is.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness._errors import PlanLoadError
from harness._json import json_problem
from harness._size import RAISE_HINT, over_limit

__all__ = ["MAX_PLAN_BYTES", "decode_text", "parse_json"]

MAX_PLAN_BYTES = 32 * 1024 * 1024
"""Largest plan input accepted by default (32 MiB): a 100,000-task plan is about 15 MB."""

_BOM = "\ufeff"
# A JSON string, or one of the non-standard constants outside strings.
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')
_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|([\[\]{}])')


class _Duplicates(dict[str, Any]):
    """A JSON object in which a key occurred twice (the first duplicate is kept aside)."""

    duplicate: str = ""


def decode_text(data: bytes, *, source: str, max_bytes: int = MAX_PLAN_BYTES) -> str:
    """Decode UTF-8 bytes (a leading BOM is accepted and dropped).

    Raises:
        PlanLoadError: too large, empty, or not UTF-8 (the byte offset is named).
    """
    if len(data) > max_bytes:
        raise PlanLoadError(
            over_limit(len(data), max_bytes, what="input"), source=source, hint=RAISE_HINT
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PlanLoadError(
            f"bytes that are not UTF-8 at byte {exc.start} ({data[exc.start : exc.start + 1]!r})",
            source=source,
            location=f"line {line}",
            hint="save the file as UTF-8",
        ) from None
    if text.startswith(_BOM):
        text = text[1:]
    if not text.strip():
        raise PlanLoadError("the input is empty", source=source, hint="expected a plan")
    return text


def parse_json(text: str, *, source: str, first_line: int = 1) -> Any:
    """Parse JSON strictly: no NaN/Infinity, no duplicate keys, bounded nesting.

    Args:
        text: the JSON text.
        source: the name used in error messages.
        first_line: the line number of the text's first line in its file (JSON Lines).

    Raises:
        PlanLoadError: with the line and column (or JSON pointer) of the problem.
    """
    seen_duplicate = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal seen_duplicate
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen_duplicate = True
            marked = _Duplicates(obj)
            keys: set[str] = set()
            for key, _ in pairs:
                if key in keys:
                    marked.duplicate = key
                    break
                keys.add(key)
            return marked
        return obj

    def reject_constant(name: str) -> Any:
        raise _ConstantError(name)

    try:
        value = json.loads(text, object_pairs_hook=pairs_hook, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        raise PlanLoadError(
            f"invalid JSON: {exc.msg}",
            source=source,
            location=f"line {exc.lineno + first_line - 1} column {exc.colno}",
        ) from None
    except _ConstantError as exc:
        raise PlanLoadError(
            f"{exc.args[0]} is not valid JSON",
            source=source,
            location=_shift(_where(text, _CONSTANT), first_line),
            hint="use null or a number",
        ) from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise PlanLoadError(
            json_problem(exc, "the input")[0], source=source, hint="a plan holds no such number"
        ) from None
    except RecursionError:
        raise PlanLoadError(
            "JSON nested too deeply to be a plan",
            source=source,
            location=_shift(_too_deep(text), first_line),
            hint="a plan nests a few levels; this input is not one",
        ) from None
    if seen_duplicate:
        pointer, key = _find_duplicate(value)
        raise PlanLoadError(
            f"duplicate key {key!r} in an object",
            source=source,
            location=pointer,
            hint="keep one of them: JSON readers disagree on which one wins",
        )
    return value


class _ConstantError(ValueError):
    pass


def _shift(location: str | None, first_line: int) -> str | None:
    """``line N ...`` moved down to where the text starts in its file."""
    if location is None or first_line == 1 or not location.startswith("line "):
        return location
    number, _, rest = location[5:].partition(" ")
    return f"line {int(number) + first_line - 1} {rest}".rstrip()


def _line_col(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line} column {col}"


def _where(text: str, pattern: re.Pattern[str]) -> str | None:
    for match in pattern.finditer(text):
        if match.group(1):
            return _line_col(text, match.start(1))
    return None


def _too_deep(text: str, limit: int = 500) -> str | None:
    depth = 0
    for match in _BRACKET.finditer(text):
        bracket = match.group(1)
        if bracket in ("[", "{"):
            depth += 1
            if depth > limit:
                return _line_col(text, match.start(1)) + f" (deeper than {limit} levels)"
        elif bracket:
            depth -= 1
    return None


def _find_duplicate(value: Any) -> tuple[str, str]:
    """The JSON pointer of the first object with a duplicate key, and the key (iterative)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, _Duplicates):
            return pointer or "/", node.duplicate
        if isinstance(node, dict):
            items = [(f"{pointer}/{_escape(k)}", v) for k, v in node.items()]
        elif isinstance(node, list):
            items = [(f"{pointer}/{i}", v) for i, v in enumerate(node)]
        else:
            continue
        stack.extend(reversed(items))
    return "/", "?"


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
