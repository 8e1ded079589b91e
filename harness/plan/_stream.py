"""Reading a many-plan file plan by plan: JSON Lines streamed, one line in memory at a time.

``load_plan_file`` reads a file whole and returns every plan, which is right for a plan file
and wrong for a 100,000-line TaskBench ``data.json``: all the plans (and the file's bytes and
text) would be held at once. ``iter_plan_file`` gives the same ``(label, plan or error)`` pairs
one at a time. A JSON Lines file (the same test as ``jsonl_lines``, made on its first two
non-empty lines) is read line by line, and the size limit then bounds each line, the unit that
is held in memory (a line is one plan); any other file goes through ``load_plan_file``
unchanged, the limit bounding the whole file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import BinaryIO

from harness._errors import PlanLoadError
from harness._size import RAISE_HINT, open_for_reading, over_limit, skip_rest_of_line
from harness.plan._adapters import documents_from_lines
from harness.plan._json import MAX_PLAN_BYTES
from harness.plan._load import load_plan_file, plans_from_documents
from harness.plan._model import Plan
from harness.plan._multi import label_of
from harness.plan._taskbench_record import TaskBenchRecord, read_taskbench_record

__all__ = ["iter_plan_entries", "iter_plan_file"]

_STREAMED = frozenset({"auto", "canonical", "taskbench", "hugginggpt", "worfbench"})
"""Formats whose JSON Lines files are read one record a line (``text`` and ``llmcompiler``
read a file as one answer)."""
_RECORD_FORMATS = frozenset({"auto", "canonical", "taskbench"})
"""Formats whose lines may be plain TaskBench records (``iter_plan_entries``)."""
_BOM = "\ufeff"

Line = tuple[int, str | PlanLoadError]
"""A line number and its text, or why that line cannot be read."""


def iter_plan_file(
    path: Path | str, *, format: str = "auto", max_bytes: int = MAX_PLAN_BYTES
) -> Iterator[tuple[str, Plan | PlanLoadError]]:
    """Every plan in a file, one at a time: the pairs ``load_plan_file`` returns, lazily.

    A JSON Lines file is read line by line, ``max_bytes`` bounding each line (a longer line
    is that line's own unusable entry); any other file is read whole, ``max_bytes`` bounding
    the file.

    Raises:
        PlanLoadError: the file as a whole is unusable (missing, a directory, over the limit,
            not UTF-8, ...), before any pair is given.
    """
    for label, entry in _entries(Path(path), format, max_bytes, records=False):
        yield label, entry.plan() if isinstance(entry, TaskBenchRecord) else entry


def iter_plan_entries(
    path: Path | str, *, format: str = "auto", max_bytes: int = MAX_PLAN_BYTES
) -> Iterator[tuple[str, Plan | PlanLoadError | TaskBenchRecord]]:
    """``iter_plan_file``, a plain TaskBench line given as its ``TaskBenchRecord`` (a graph of
    node positions; ``.plan()`` builds its plan): for checks that need no ``Plan``.

    Raises:
        PlanLoadError: as ``iter_plan_file``.
    """
    return _entries(Path(path), format, max_bytes, records=True)


def _entries(
    path: Path, format: str, max_bytes: int, *, records: bool
) -> Iterator[tuple[str, Plan | PlanLoadError | TaskBenchRecord]]:
    source = str(path)
    if format not in _STREAMED:
        yield from load_plan_file(path, format=format, max_bytes=max_bytes)
        return
    with _open(path) as fh:
        head = _head(fh, max_bytes)
        if head is None:
            fh.close()
            yield from load_plan_file(path, format=format, max_bytes=max_bytes)
            return
        lines = chain(head, _rest(fh, max_bytes, first=head[-1][0] + 1, source=source))
        if not records or format not in _RECORD_FORMATS:
            documents = documents_from_lines(lines, fmt=format, source=source)
            yield from plans_from_documents(documents, source)
            return
        # One loop for the plain TaskBench line (without the general path's layers per line);
        # any other line goes through documents_from_lines, the labels seen shared.
        seen: set[str] = set()
        for number, line in lines:
            if type(line) is str and '"task_nodes"' in line:
                record = read_taskbench_record(line)
                if record is not None:
                    yield f"{source}#{label_of(number, record, seen)}", record
                    continue
            documents = documents_from_lines(
                ((number, line),), fmt=format, source=source, seen=seen
            )
            yield from plans_from_documents(documents, source)


def _open(path: Path) -> BinaryIO:
    """The file opened for reading, every OS problem one PlanLoadError (as ``read_input``)."""
    source = str(path)
    try:
        if path.is_dir():
            raise PlanLoadError(
                "is a directory, not a plan file", source=source, hint="name the files in it"
            )
        return open_for_reading(path)
    except FileNotFoundError:
        raise PlanLoadError("no such file", source=source) from None
    except PermissionError:
        raise PlanLoadError("permission denied", source=source) from None
    except OSError as exc:
        raise PlanLoadError(f"cannot read the file: {exc.strerror}", source=source) from None


def _head(fh: BinaryIO, max_bytes: int) -> list[tuple[int, str]] | None:
    """The lines up to the second non-empty one when the file is JSON Lines, else None.

    JSON Lines, as ``jsonl_lines`` decides it: the first non-empty line is a complete JSON
    object or array on its own, and the next non-empty line starts like JSON. A file that
    fails the test here (also one whose later lines would pass it) is read whole, as before.
    """
    lines: list[tuple[int, str]] = []
    filled: list[str] = []
    number = 0
    while len(filled) < 2:
        raw = fh.readline(max_bytes + 1)
        if not raw or (len(raw) > max_bytes and not raw.endswith(b"\n")):
            return None  # one line or none, or a line over the limit: the whole-file path
        number += 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if number == 1 and text.startswith(_BOM):
            text = text[1:]
        text = text.removesuffix("\n")
        lines.append((number, text))
        if text.strip():
            filled.append(text.strip())
    first, second = filled
    if first[:1] not in ("{", "[") or second[:1] not in ("{", "["):
        return None
    try:
        _, end = json.JSONDecoder().raw_decode(first)
    except (ValueError, RecursionError):
        return None
    return lines if end == len(first) else None


def _rest(fh: BinaryIO, max_bytes: int, *, first: int, source: str) -> Iterator[Line]:
    """The lines after the head, each decoded, or the error of a line over the limit or not
    UTF-8."""
    offset = fh.tell()
    readline = fh.readline
    for number in range(first, 1 << 62):
        raw = readline(max_bytes + 1)
        if not raw:
            return
        start, offset = offset, offset + len(raw)
        if len(raw) > max_bytes and not raw.endswith(b"\n"):
            size = len(raw) + skip_rest_of_line(fh)
            offset = start + size
            where = f"{source}#{number}"
            yield (
                number,
                PlanLoadError(
                    over_limit(size, max_bytes, what="line"), source=where, hint=RAISE_HINT
                ),
            )
            continue
        try:
            yield number, raw.decode("utf-8").removesuffix("\n")
        except UnicodeDecodeError as exc:
            yield (
                number,
                PlanLoadError(
                    f"bytes that are not UTF-8 at byte {start + exc.start} "
                    f"({raw[exc.start : exc.start + 1]!r})",
                    source=f"{source}#{number}",
                    location=f"line {number}",
                    hint="save the file as UTF-8",
                ),
            )
