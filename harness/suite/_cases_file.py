"""A suite's cases in a JSON Lines file beside it (``cases_file:``): suites of any size.

A suite file is YAML read whole under a size limit (8 MiB by default), which is right for a
hand-written suite and too small for an imported benchmark: 5,000 WorfBench items are a
23.5 MiB suite. Such a suite names a cases file instead of listing ``cases``; the file holds one
case object a line, exactly as under ``cases``. It is read one line at a time, the size limit
bounding each line (one case) rather than the file, and each case is validated against the
suite schema's case definition as it is read, so a damaged line is named by its number.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from harness._errors import SuiteError
from harness._size import RAISE_HINT, open_for_reading, over_limit, skip_rest_of_line
from harness._yaml import max_bytes_limit
from harness.suite._suite_validator import validate_case

__all__ = ["read_cases_file"]


@cache
def _case_validator() -> Any:
    from jsonschema import Draft202012Validator

    from harness.suite._load import suite_schema

    schema = suite_schema()
    return Draft202012Validator({"$ref": "#/$defs/case", "$defs": schema["$defs"]})


def read_cases_file(
    path: Path, *, max_bytes: int | None = None
) -> Iterator[tuple[str, dict[str, Any]]]:
    """``("line <n>", case)`` for each case of a JSON Lines cases file, one at a time, each
    one validated.

    Raises:
        SuiteError: the file is missing or unreadable, a line is over the limit, not JSON, not
            a case (the schema's message and the line number), or the file holds no case.
    """
    source = str(path)
    limit = max_bytes_limit(max_bytes)
    try:
        handle = open_for_reading(path)
    except FileNotFoundError:
        raise SuiteError(
            "no such cases file",
            source=source,
            hint="cases_file is relative to the suite file",
        ) from None
    except OSError as exc:
        raise SuiteError(f"cannot read the cases file: {exc.strerror}", source=source) from None
    found = 0
    with handle:
        for number, raw in enumerate(iter(lambda: handle.readline(limit + 1), b""), 1):
            where = f"line {number}"
            if len(raw) > limit and not raw.endswith(b"\n"):
                size = len(raw) + skip_rest_of_line(handle)
                raise SuiteError(
                    over_limit(size, limit, what="line"),
                    source=source,
                    location=where,
                    hint=RAISE_HINT,
                )
            if not raw.strip():
                continue
            case = _parse(raw, source, where)
            try:
                validate_case(case)  # type: ignore[no-untyped-call]
            except Exception:  # invalid, or a value the compiled validator cannot judge
                message = _schema_error(case)
                if message is not None:
                    raise SuiteError(message, source=source, location=where) from None
            found += 1
            yield where, case
    if not found:
        raise SuiteError(
            "the cases file holds no case",
            source=source,
            hint="write one case object a line, as under 'cases' in a suite",
        )


def _parse(raw: bytes, source: str, where: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8 JSON text"
        raise SuiteError(
            f"not a JSON line: {why}",
            source=source,
            location=where,
            hint="a cases file holds one JSON case object a line (JSON Lines)",
        ) from None
    if not isinstance(value, dict):
        raise SuiteError(
            f"a case is a JSON object, got {type(value).__name__}",
            source=source,
            location=where,
        )
    return value


def _schema_error(case: dict[str, Any]) -> str | None:
    """jsonschema's best message for a case the compiled validator refused (None: valid)."""
    from jsonschema.exceptions import best_match

    error = best_match(_case_validator().iter_errors(case))
    if error is None:
        return None
    pointer = "/" + "/".join(str(p) for p in error.absolute_path)
    message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    return f"{message} (at {pointer})"
