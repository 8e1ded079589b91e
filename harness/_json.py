"""Reading JSON that a user handed over (results, run.json, baselines, response files...).

``json.loads`` fails in three ways that are not ``JSONDecodeError``: an integer of more than
4,300 digits (``ValueError``, Python's int max str digits), nesting deeper than the
interpreter's recursion limit (``RecursionError``), and text that is not a ``str``. ``loads``
turns each into one ``InputError`` (or the subclass a caller asks for) that names the file and,
when there is one, the line and column.
"""

from __future__ import annotations

import json
from typing import Any

from harness._errors import InputError

__all__ = ["json_problem", "loads"]


def json_problem(exc: BaseException, what: str = "the text") -> tuple[str, str | None]:
    """What went wrong in ``json.loads`` and where (``line L column C`` or None).

    ``what`` names the text at the start of the message (``the response body is ...``).
    """
    if isinstance(exc, json.JSONDecodeError):
        return f"{what} is not valid JSON: {exc.msg}", f"line {exc.lineno} column {exc.colno}"
    if isinstance(exc, RecursionError):
        return f"{what} is JSON nested too deeply to read", None
    text = str(exc)
    if "digits" in text and "int" in text:
        return f"{what} holds an integer of more than 4300 digits", None
    first = text.splitlines()[0] if text else exc.__class__.__name__
    return f"{what} is not valid JSON: {first}", None


def loads(
    text: str | bytes,
    *,
    source: str,
    location: str | None = None,
    what: str = "the file",
    hint: str | None = None,
    error: type[InputError] = InputError,
    **options: Any,
) -> Any:
    """``json.loads(text, **options)``, with every failure as one ``error``.

    Args:
        text: the JSON text.
        source: the file (or label) it came from.
        location: where the text sits in its file (``line 12`` of a JSONL file), used when
            the error has no position of its own.
        what: the text, as the message names it (``the response body``).
        hint: what the user can do, added to the message.
        error: the ``InputError`` subclass to raise.
        **options: passed to ``json.loads`` (``object_pairs_hook``, ``parse_constant``...).

    Raises:
        InputError: (or ``error``) the text is not JSON or cannot be held in memory as data.
    """
    try:
        return json.loads(text, **options)
    except (ValueError, RecursionError) as exc:
        problem, where = json_problem(exc, what)
        if location and location.startswith("line ") and where and where.startswith("line 1 col"):
            where = f"{location} column {where.rsplit(' ', 1)[-1]}"  # a line of a JSONL file
        elif location:
            where = location
        raise error(problem, source=source, location=where, hint=hint) from None
