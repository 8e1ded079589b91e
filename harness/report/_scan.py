"""One streaming pass over results.jsonl into columns, and ``RowFile``: the rows read back
from the file on demand.

A report of a million-row run must fit in 1 GiB and cost about one ``json.loads`` pass
(issue 28). Keeping every row decoded (a ``Row`` with its violations, tokens, tags and the
whole file it points into) cost about 18 KiB a row. Instead the file is read in blocks of
``BLOCK_BYTES``; each block is decoded by msgspec into ``_Scan`` structs holding only what the
aggregates need (ids, status, counts, tokens; the checks and tags as their JSON text, shared
per distinct text; the plan, answer, violations and metrics are skipped by the decoder, after
the same type checks the whole row gets), reduced to numpy columns and dropped. What a page
shows of a row (its plan, violations, answer) is read back by ``RowFile`` from the byte range
recorded for the row, only for the rows shown.

Chosen over pyarrow's or polars' JSON readers: they infer one schema for the file (a
``detail`` that is a string on one row and an object on another, a ``tags`` of mixed types,
a NaN written by the stdlib are refused or coerced), while results.jsonl rows must be checked
against the results-row schema's types and refused line by line with the stdlib's message;
msgspec checks the types as it decodes, and the few lines it refuses go through the stdlib
(the same rules and messages as before). pandas stays the reports' table library.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import filterfalse
from operator import attrgetter, itemgetter
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING, Any, overload

import msgspec
import numpy as np

from harness._errors import RunFormatError
from harness._json import json_problem
from harness.report._columns import ROW_FIELDS
from harness.report._rows import ROW_DECODER, CheckSets, Row, row_from_dict
from harness.run import STATUSES
from harness.run._records import Status

if TYPE_CHECKING:
    from harness.cost import Price, UsageSummary
    from harness.report._load import LoadedRun

__all__ = ["BLOCK_BYTES", "RowFile", "RowsAt", "Scanned", "metric_rows", "scan_results"]

BLOCK_BYTES = 16 << 20
"""Bytes of results.jsonl decoded at a time (a block ends at a line end)."""

_NULL = msgspec.Raw(b"null")
_REQUIRED = ("suite", "case", "model", "sample", "status")
_METRIC_COUNTED = ("scored", "unparseable")


class _Scan(msgspec.Struct, kw_only=True, gc=False):
    """What the aggregates read of a row; field types as in ``Row`` (the results-row
    schema's), so a line this refuses is one ``Row`` would refuse."""

    suite: str
    case: str
    model: str
    sample: int
    status: Status
    checks: msgspec.Raw = _NULL
    violations: msgspec.Raw = _NULL
    """Checked to be a list or null (``_lists``); never decoded here."""
    task_count: int | None = None
    latency_ms: int | float | None = None
    tokens: dict[str, int | float | None] | None = None
    tags: msgspec.Raw = _NULL
    detail: Any = None
    metric_status: Any = None


_SCAN = msgspec.json.Decoder(_Scan)
_CHECKS = msgspec.json.Decoder(dict[str, str] | None)


_EMPTY = msgspec.Raw(b"[]")
_LIST_OR_NULL = frozenset(b"[n")
"""The first byte of a JSON array or null."""


def _lists(rows: list[_Scan]) -> bool:
    """Every row's violations is a JSON array or null (what ``Row`` checks by decoding): by
    its first byte, once the empty lists (most rows') are set aside."""
    others = filterfalse(_EMPTY.__eq__, map(attrgetter("violations"), rows))
    views: Iterator[memoryview] = map(memoryview, others)
    return _LIST_OR_NULL.issuperset(map(itemgetter(0), views))


@dataclass
class Scanned:
    """The columns of one pass over results.jsonl (in file order, the torn line left out)."""

    starts: np.ndarray
    """Per row, the byte offset of its line."""
    ends: np.ndarray
    """Per row, the offset just past its line (before the line end)."""
    ids: dict[str, list[str]]
    """suite, case, model, status: one interned string per row."""
    sample: list[int]
    task_count: list[int | None]
    numbers: dict[str, np.ndarray]
    """The ``ROW_FIELDS`` columns (float64, NaN for none)."""
    check_sets: CheckSets
    tag_ids: np.ndarray
    """Per row, the index of its tags in ``tag_values``."""
    tag_values: list[Any]
    """The distinct tags values (each as decoded: a list, None, or whatever the row held)."""
    details: dict[int, Any]
    """Row index -> its detail, for the rows whose detail is not None."""
    metric_counted: np.ndarray
    """Per row, its ``metric_status`` is ``scored`` or ``unparseable`` (bool)."""
    usage: tuple[list[UsageSummary], UsageSummary]
    torn_line: int | None = None
    rows: int = 0

    def drop_columns(self) -> None:
        """Let go of the per-row id, sample and task count lists (once in a frame)."""
        self.ids = {name: [] for name in self.ids}
        self.sample, self.task_count = [], []
        self.numbers = {}


@dataclass
class _Builder:
    prices: dict[str, Price | None]
    starts: list[np.ndarray] = field(default_factory=list)
    ends: list[np.ndarray] = field(default_factory=list)
    ids: dict[str, list[str]] = field(
        default_factory=lambda: {k: [] for k in ("suite", "case", "model", "status")}
    )
    sample: list[int] = field(default_factory=list)
    task_count: list[int | None] = field(default_factory=list)
    numbers: dict[str, list[np.ndarray]] = field(default_factory=dict)
    check_index: dict[bytes, int] = field(default_factory=dict)
    check_keys: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = field(default_factory=dict)
    check_of_text: list[int] = field(default_factory=list)
    check_ids: list[np.ndarray] = field(default_factory=list)
    tag_index: dict[bytes, int] = field(default_factory=dict)
    tag_values: list[Any] = field(default_factory=list)
    tag_ids: list[np.ndarray] = field(default_factory=list)
    details: dict[int, Any] = field(default_factory=dict)
    metric: list[np.ndarray] = field(default_factory=list)
    count: int = 0

    def __post_init__(self) -> None:
        from harness.cost import UsageTally

        self.usage = UsageTally(self.prices)

    def add(self, rows: list[_Scan], starts: np.ndarray, ends: np.ndarray) -> None:
        """Fold a block of decoded rows (with their lines' byte ranges) into the columns.

        Raises:
            msgspec.ValidationError: some row's checks are not a mapping of strings.
        """
        check_ids = _numbered(rows, "checks", self.check_index, self._check)
        tag_ids = _numbered(rows, "tags", self.tag_index, self._tag)
        self.check_ids.append(check_ids)
        self.tag_ids.append(tag_ids)
        ids = {name: list(map(intern, map(attrgetter(name), rows))) for name in self.ids}
        for name, values in self.ids.items():
            values.extend(ids[name])
        self.sample.extend(map(attrgetter("sample"), rows))
        self.task_count.extend(map(attrgetter("task_count"), rows))
        for names, read in ROW_FIELDS.items():
            columns: np.ndarray = read(rows)  # type: ignore[arg-type]  # the same attributes
            for i, name in enumerate(names):
                self.numbers.setdefault(name, []).append(columns[:, i])
        details = self.details
        for k, detail in enumerate(map(attrgetter("detail"), rows), self.count):
            if detail is not None:
                details[k] = detail
        statuses = list(map(attrgetter("metric_status"), rows))
        if set(statuses) == {None}:  # a run without metrics: nothing to test row by row
            self.metric.append(np.zeros(len(rows), dtype=bool))
        else:
            self.metric.append(np.array([x in _METRIC_COUNTED for x in statuses], dtype=bool))
        self.usage.add_counts(ids["model"], ids["status"], list(map(attrgetter("tokens"), rows)))
        self.starts.append(starts)
        self.ends.append(ends)
        self.count += len(rows)

    def _check(self, text: bytes) -> int:
        found = self.check_index.get(text)
        if found is None:
            checks = _CHECKS.decode(text)
            key = (tuple(checks), tuple(checks.values())) if checks else ((), ())
            found = self.check_index[text] = self.check_keys.setdefault(key, len(self.check_keys))
        return found

    def _tag(self, text: bytes) -> int:
        found = self.tag_index.get(text)
        if found is None:
            self.tag_values.append(_decode_value(text))
            found = self.tag_index[text] = len(self.tag_values) - 1
        return found

    def done(self, torn: int | None) -> Scanned:
        def cat(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
            return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

        numbers = {name: cat(parts, np.float64) for name, parts in self.numbers.items()}
        if not numbers:
            numbers = {name: np.zeros(0) for names in ROW_FIELDS for name in names}
        return Scanned(
            starts=cat(self.starts, np.int64),
            ends=cat(self.ends, np.int64),
            ids=self.ids,
            sample=self.sample,
            task_count=self.task_count,
            numbers=numbers,
            check_sets=CheckSets(
                cat(self.check_ids, np.int64),
                [names for names, _ in self.check_keys],
                [outcomes for _, outcomes in self.check_keys],
            ),
            tag_ids=cat(self.tag_ids, np.int64),
            tag_values=self.tag_values,
            details=self.details,
            metric_counted=cat(self.metric, bool),
            usage=self.usage.result(),
            torn_line=torn,
            rows=self.count,
        )


def _numbered(
    rows: list[_Scan], name: str, index: dict[bytes, int], new: Callable[[bytes], int]
) -> np.ndarray:
    """The number of each row's ``name`` text in ``index`` (``new`` numbers a text not
    there yet)."""
    texts = list(map(bytes, map(attrgetter(name), rows)))
    ids = list(map(index.get, texts))
    if None in ids:
        ids = [new(t) if i is None else i for t, i in zip(texts, ids, strict=True)]
    return np.array(ids, dtype=np.int64)


def _decode_value(text: bytes) -> Any:
    """A JSON value as msgspec decodes it (the stdlib's for NaN or Infinity inside)."""
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return json.loads(text)


def _line_ranges(block: bytes | memoryview, base: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The byte ranges of the non-empty lines of ``block`` (which ends at a line end, or at
    the end of the file), as offsets into the file, and how many line ends it holds: one
    scan for the line ends."""
    buf = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(buf == 10)
    newlines = len(ends)
    if len(buf) and buf[-1] != 10:
        ends = np.append(ends, len(buf))
    starts = np.empty_like(ends)
    if len(ends):
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    keep = ends > starts
    return starts[keep] + base, ends[keep] + base, newlines


def _blocks(path: Path) -> Iterator[tuple[int, bytes | memoryview]]:
    """(byte offset, block) of results.jsonl, each ending at a line end (the last at the end
    of the file): ``BLOCK_BYTES`` read at a time, the whole lines of it given as they are (a
    view, not a copy), then the line that crosses its end, completed, as a block of its own."""
    try:
        f = path.open("rb")
    except OSError as exc:
        raise RunFormatError(f"cannot read results.jsonl ({exc})", source=str(path)) from exc
    with f:
        offset = 0
        while True:
            try:
                block = f.read(BLOCK_BYTES)
                if block and not block.endswith(b"\n"):
                    cut = block.rfind(b"\n") + 1
                    if cut:
                        yield offset, memoryview(block)[:cut]
                        offset += cut
                        block = block[cut:]
                    block += f.readline()
            except OSError as exc:
                raise RunFormatError(
                    f"cannot read results.jsonl ({exc})", source=str(path)
                ) from exc
            if not block:
                return
            yield offset, block
            offset += len(block)


def scan_results(path: Path, prices: dict[str, Price | None]) -> Scanned:
    """Read results.jsonl once, block by block, into ``Scanned`` columns.

    A block msgspec decodes whole is folded in at once; a block it refuses is read line by
    line, and a line msgspec refuses goes through the stdlib, which says what is wrong and
    where (or reads what msgspec could not: NaN, a byte that is not UTF-8).

    Raises:
        RunFormatError: a damaged line other than a torn last one, a row without the
            required fields, an unknown status or a field of the wrong type.
    """
    builder = _Builder(prices)
    torn: int | None = None
    pending: tuple[int, bytes | memoryview] | None = None
    line = 1
    for part in _blocks(path):
        # Hold each block until the next arrives: only the file's last block may end torn.
        if pending is not None:
            line = _fold(builder, path, *pending, line, last=False)[1]
        pending = part
    if pending is not None:
        torn = _fold(builder, path, *pending, line, last=True)[0]
    return builder.done(torn)


def _fold(
    builder: _Builder,
    path: Path,
    offset: int,
    block: bytes | memoryview,
    line: int,
    *,
    last: bool,
) -> tuple[int | None, int]:
    """Fold one block (its first line numbered ``line``) into ``builder``: the number of a
    torn last line or None, and the number of the line after the block."""
    starts, ends, newlines = _line_ranges(block, offset)
    try:
        rows = _SCAN.decode_lines(block)
        if len(rows) == len(starts) and _lists(rows):
            builder.add(rows, starts, ends)  # refuses checks that are not strings first
            return None, line + newlines
    except msgspec.DecodeError:  # ValidationError included
        pass
    torn = _fold_carefully(builder, path, offset, line, bytes(block), last=last)
    return torn, line + newlines


def _fold_carefully(
    builder: _Builder, path: Path, offset: int, line: int, block: bytes, *, last: bool
) -> int | None:
    lines = block.split(b"\n")
    numbered: list[tuple[int, int, bytes]] = []  # line number, offset, text
    at = offset
    for k, text in enumerate(lines):
        if text.strip():
            numbered.append((line + k, at, text))
        at += len(text) + 1
    ends_with_newline = block.endswith(b"\n")
    rows: list[_Scan] = []
    starts: list[int] = []
    for k, (number, start, text) in enumerate(numbered):
        try:
            row = _SCAN.decode(text)
            if not _lists([row]):
                raise msgspec.ValidationError("violations")
            _CHECKS.decode(bytes(row.checks))
        except msgspec.DecodeError:
            try:
                data = json.loads(text.decode("utf-8", errors="replace"))
            except (ValueError, RecursionError) as exc:
                if last and k == len(numbered) - 1 and not ends_with_newline:
                    builder.add(rows, np.array(starts, np.int64), _ends(rows, starts, numbered))
                    return number
                raise RunFormatError(
                    f"damaged line ({json_problem(exc, 'the line')[0]})",
                    source=str(path),
                    location=f"line {number}",
                    hint="only a torn last line is tolerated; repair or re-run",
                ) from exc
            _check_row(data, path, number)
            row = _scan_of(data)
        rows.append(row)
        starts.append(start)
    builder.add(rows, np.array(starts, np.int64), _ends(rows, starts, numbered))
    return None


def _ends(
    rows: list[_Scan], starts: list[int], numbered: list[tuple[int, int, bytes]]
) -> np.ndarray:
    return np.array([start + len(text) for _, start, text in numbered[: len(rows)]], np.int64)


def _check_row(row: Any, path: Path, number: int) -> None:
    """The stdlib reader's checks of one parsed row (the results-row schema's rules)."""
    where = {"source": str(path), "location": f"line {number}"}
    if not isinstance(row, dict) or any(key not in row for key in _REQUIRED):
        raise RunFormatError(f"a result row needs {', '.join(_REQUIRED)}", **where)
    if row["status"] not in STATUSES:
        raise RunFormatError(
            f"unknown status {row['status']!r} (expected one of {', '.join(STATUSES)})", **where
        )
    wrong = wrong_type(row)
    if wrong:
        raise RunFormatError(wrong, **where)


def _scan_of(data: dict[str, Any]) -> _Scan:
    """A ``_Scan`` of a row the stdlib parsed (and ``_check_row`` accepted)."""

    def raw(value: Any) -> msgspec.Raw:
        return _NULL if value is None else msgspec.Raw(json.dumps(value).encode("utf-8"))

    return _Scan(
        suite=data["suite"],
        case=data["case"],
        model=data["model"],
        sample=data["sample"],
        status=data["status"],
        checks=raw(data.get("checks")),
        violations=raw(data.get("violations")),
        task_count=data.get("task_count"),
        latency_ms=data.get("latency_ms"),
        tokens=data.get("tokens"),
        tags=raw(data.get("tags")),
        detail=data.get("detail"),
        metric_status=data.get("metric_status"),
    )


_TYPES: dict[str, tuple[type, ...]] = {
    "suite": (str,),
    "case": (str,),
    "model": (str,),
    "sample": (int,),
    "checks": (dict, type(None)),
    "task_count": (int, type(None)),
    "latency_ms": (int, float, type(None)),
    "tokens": (dict, type(None)),
    "violations": (list, type(None)),
}


def wrong_type(row: dict[str, Any]) -> str | None:
    """What is wrong with a row's field types (the results-row schema's), or None."""
    for name, types in _TYPES.items():
        value = row.get(name)
        if name in row and (isinstance(value, bool) or not isinstance(value, types)):
            return f"the row's {name!r} is a {type(value).__name__}, not a {types[0].__name__}"
    checks = row.get("checks") or {}
    if not all(isinstance(v, str) for v in checks.values()):
        return "the row's 'checks' must map check ids to outcomes (strings)"
    tokens = row.get("tokens") or {}
    if any(isinstance(v, bool) or not isinstance(v, int | float | None) for v in tokens.values()):
        return "the row's 'tokens' must map names to numbers"
    return None


def decode_row(line: bytes) -> Row:
    """A whole ``Row`` of one results.jsonl line (already read once by ``scan_results``)."""
    try:
        row = ROW_DECODER.decode(line)
        row.checks = _CHECKS.decode(bytes(row.checks_json))
        return row
    except msgspec.DecodeError:
        return row_from_dict(json.loads(line.decode("utf-8", errors="replace")))


class RowFile(Sequence[Row]):
    """The rows of results.jsonl, read back from the file when asked for (``Row`` each,
    decoded again on every access; nothing kept)."""

    def __init__(self, path: Path, starts: np.ndarray, ends: np.ndarray) -> None:
        self.path = path
        self._starts, self._ends = starts, ends

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return self.take(range(*index.indices(len(self))))
        n = len(self)
        if not -n <= index < n:
            raise IndexError(index)
        return self.take([index % n])[0]

    def take(self, indices: Sequence[int] | range) -> list[Row]:
        """The rows at ``indices``, in that order."""
        return list(map(decode_row, self.lines(indices)))

    def lines(self, indices: Sequence[int] | range) -> list[bytes]:
        """The lines (JSON text) of the rows at ``indices``, in that order, from one open
        file."""
        out: list[bytes] = []
        if not len(indices):
            return out
        starts, ends = self._starts, self._ends
        with self._open() as f:
            fd = f.fileno()
            for i in indices:
                start, end = int(starts[i]), int(ends[i])
                line = os.pread(fd, end - start, start)
                if len(line) != end - start:
                    raise self._changed()
                out.append(line)
        return out

    def __iter__(self) -> Iterator[Row]:
        """Every row, read block by block (memory bounded by ``BLOCK_BYTES``)."""
        for lines in self.blocks():
            yield from map(decode_row, lines)

    def blocks(self, rows: int = 0) -> Iterator[list[bytes]]:
        """The rows' lines (JSON text, no line end), in file order, a list of at most
        ``rows`` (0: at most ``BLOCK_BYTES`` of text) at a time, each read at once."""
        n = len(self)
        starts, ends = self._starts, self._ends
        i = 0
        with self._open() as f:
            while i < n:
                first = int(starts[i])
                if rows:
                    j = min(n, i + rows)
                else:
                    j = int(np.searchsorted(ends, first + BLOCK_BYTES, side="right"))
                    j = min(n, max(j, i + 1))
                last = int(ends[j - 1])
                f.seek(first)
                block = f.read(last - first)
                if len(block) != last - first:
                    raise self._changed()
                yield [
                    block[s - first : e - first]
                    for s, e in zip(starts[i:j].tolist(), ends[i:j].tolist(), strict=True)
                ]
                i = j

    def spans(self, rows: int) -> Iterator[tuple[int, int, bytes]]:
        """(first row, row after the last, text) of at most ``rows`` consecutive rows at a
        time, in file order: the file's bytes from the first row's line to the end of the
        last's, read at once (lines between rows are blank: JSON Lines decoders skip them)."""
        n = len(self)
        starts, ends = self._starts, self._ends
        with self._open() as f:
            for i in range(0, n, rows):
                j = min(n, i + rows)
                first, last = int(starts[i]), int(ends[j - 1])
                f.seek(first)
                text = f.read(last - first)
                if len(text) != last - first:
                    raise self._changed()
                yield i, j, text

    def split(self, first: int, stop: int, text: bytes) -> list[bytes]:
        """The lines of rows ``first`` to ``stop`` (not included) in ``text``, a span read by
        ``spans``."""
        base = int(self._starts[first])
        starts = (self._starts[first:stop] - base).tolist()
        ends = (self._ends[first:stop] - base).tolist()
        return [text[s:e] for s, e in zip(starts, ends, strict=True)]

    def _open(self) -> Any:
        try:
            return self.path.open("rb")
        except OSError as exc:
            raise RunFormatError(
                f"cannot read results.jsonl again ({exc})", source=str(self.path)
            ) from exc

    def _changed(self) -> RunFormatError:
        return RunFormatError(
            "results.jsonl changed while it was being reported",
            source=str(self.path),
            hint="report the run once nothing writes to it",
        )


class RowsAt(Sequence[Row]):
    """The rows of a ``RowFile`` at ascending ``indices``, read back from the file when
    iterated (a block of ``BLOCK_BYTES`` at a time, only the rows asked for decoded; nothing
    kept): a view to read once, not a list of every row (300,000 metric rows with their
    details were about 2 GiB as ``Row`` objects)."""

    def __init__(self, rows: RowFile, indices: np.ndarray) -> None:
        self._rows = rows
        self._indices = np.asarray(indices, dtype=np.int64)

    def __len__(self) -> int:
        return len(self._indices)

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return self._rows.take(self._indices[index].tolist())
        return self._rows[int(self._indices[index])]

    def __iter__(self) -> Iterator[Row]:
        if not len(self._indices):
            return
        wanted = np.zeros(len(self._rows), dtype=bool)
        wanted[self._indices] = True
        first = 0
        for lines in self._rows.blocks():
            for i in np.flatnonzero(wanted[first : first + len(lines)]).tolist():
                yield decode_row(lines[i])
            first += len(lines)


def metric_rows(run: LoadedRun) -> Sequence[Row]:
    """The rows of ``run`` whose ``metric_status`` is ``scored`` or ``unparseable``, in file
    order: ``LoadedRun.metric_rows`` as a view read from the file when iterated (``RowsAt``)
    for a scanned run, so the metric readers (report's metrics section, ``compare``,
    ``gate --min-metric``) hold one block of rows at a time, not all of them."""
    rows, scanned = run.rows, run.scanned
    if scanned is None or not isinstance(rows, RowFile):
        return run.metric_rows()
    return RowsAt(rows, np.flatnonzero(scanned.metric_counted))
