"""A suite's cases in a JSON Lines file beside it (``cases_file:``): suites of any size.

A suite file is YAML read whole under a size limit (8 MiB by default), which is right for a
hand-written suite and too small for an imported benchmark: 5,000 WorfBench items are a
23.5 MiB suite. Such a suite names a cases file instead of listing ``cases``; the file holds one
case object a line, exactly as under ``cases``. It is read one line at a time, the size limit
bounding each line (one case) rather than the file, and each case is validated against the
suite schema's case definition as it is read, so a damaged line is named by its number.

Loading the suite reads the whole file once (every error is found before anything runs) and
keeps none of it: ``Suite.cases`` is then a ``StreamedCases``, which reads the file again each
time it is iterated, so a run holds one case at a time however many the file has.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from harness._errors import SuiteError
from harness._size import RAISE_HINT, open_for_reading, over_limit, skip_rest_of_line
from harness._yaml import max_bytes_limit
from harness.suite._suite_validator import validate_case

if TYPE_CHECKING:
    from harness.suite._model import Case

__all__ = ["StreamedCases", "read_cases_file"]


@cache
def _case_validator() -> Any:
    from jsonschema import Draft202012Validator

    from harness.suite._load import suite_schema

    schema = suite_schema()
    return Draft202012Validator({"$ref": "#/$defs/case", "$defs": schema["$defs"]})


def read_cases_file(
    path: Path, *, max_bytes: int | None = None, validate: bool = True
) -> Iterator[tuple[str, dict[str, Any]]]:
    """``("line <n>", case)`` for each case of a JSON Lines cases file, one at a time, each
    one validated (``validate=False``: a file already checked whole, read again).

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
            if not validate:
                found += 1
                yield where, case
                continue
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


class StreamedCases(Sequence["Case"]):
    """A suite's cases, read from its cases file each time they are iterated (one case in
    memory at a time); ``len`` is known from the load, which read and checked every line.

    Indexing reads the file up to that case: it is there for occasional use (a test, one
    case's lookup), not for walking the cases (iterate instead).
    """

    __slots__ = ("_convert", "_count", "_max_bytes", "_path", "_stamp")

    def __init__(
        self,
        path: Path,
        count: int,
        convert: Callable[[dict[str, Any], int], Case],
        *,
        max_bytes: int | None = None,
    ) -> None:
        self._path = path
        self._count = count
        self._convert = convert
        self._max_bytes = max_bytes
        self._stamp = _stamp(path)

    @property
    def path(self) -> Path:
        """The cases file."""
        return self._path

    def __len__(self) -> int:
        return self._count

    def check_unchanged(self) -> None:
        """Raise when the file is no longer the one the load read and checked.

        Raises:
            SuiteError: the file was rewritten, grew, shrank or was removed since the load.
        """
        try:
            same = _stamp(self._path) == self._stamp
        except OSError:
            same = False
        if not same:
            raise SuiteError(
                "the cases file changed after the suite was loaded",
                source=str(self._path),
                hint="run again: a suite's cases must not change while it runs",
            )

    def __iter__(self) -> Iterator[Case]:
        self.check_unchanged()
        limit = self._max_bytes
        again = read_cases_file(self._path, max_bytes=limit, validate=False)  # checked at load
        count = 0
        for index, (_where, data) in enumerate(again):
            yield self._convert(data, index)
            count += 1
        self.check_unchanged()  # a rewrite during the walk is not met in silence
        if count != self._count:
            raise SuiteError(
                f"the cases file held {self._count} cases when the suite was loaded and "
                f"{count} now",
                source=str(self._path),
                hint="run again: a suite's cases must not change while it runs",
            )

    @overload
    def __getitem__(self, index: int) -> Case: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Case, ...]: ...

    def __getitem__(self, index: int | slice) -> Case | tuple[Case, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        position = index + self._count if index < 0 else index
        if not 0 <= position < self._count:
            raise IndexError("case index out of range")
        return next(itertools.islice(self, position, None))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StreamedCases) and other._path == self._path:
            return True
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StreamedCases({str(self._path)!r}, {self._count} cases)"


def _stamp(path: Path) -> tuple[int, int, int]:
    """Size, modification time and inode: what tells a rewritten cases file."""
    found = os.stat(path)
    return (found.st_size, found.st_mtime_ns, found.st_ino)


def is_regular_file(path: Path) -> bool:
    """True for a file that can be read again (not a pipe or a device)."""
    try:
        return Path(path).is_file() and not Path(path).is_fifo()
    except OSError:
        return False
