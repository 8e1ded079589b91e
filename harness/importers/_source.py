"""A benchmark data file read a record at a time, as many times as an import needs.

A WorfBench file is one JSON list and a TaskBench file one JSON record a line (or one JSON
list); at 100,000 items either is hundreds of MiB. ``DataFile`` never holds the file: a JSON
list is read with ijson's incremental tokenizer (its C backend, ``yajl2_c``) and each item is
built from the tokens as they come, a JSON Lines file a line at a time. An importer makes one
pass to check every item and gather what the whole file decides (the registry, the common
prompt, the count), then a second to write the cases and recordings.

Only a regular file is read more than once; anything else (a pipe, ``/dev/zero``) is read once,
bounded by ``MAX_DATA_BYTES``, and its passes are made over those bytes. A regular file whose
size, time or inode changes between passes is refused, so the two passes see the same items.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import ijson

from harness._errors import InputError

__all__ = ["MAX_DEPTH", "DataFile"]

MAX_DEPTH = 1_000
"""Items nested deeper than this are refused (Python's ``json`` stops near here too). ijson's
own item builder keeps a prefix per level, so a file of 100,000 ``[`` would take it gigabytes."""

_BOM = b"\xef\xbb\xbf"
_SPACE = b" \t\r\n"


class DataFile:
    """A benchmark data file, opened anew for each pass.

    Args:
        path: the file.
        what: how errors name it (``the WorfBench file``).

    Raises:
        InputError: missing or unreadable; a file that is not regular and is larger than
            ``MAX_DATA_BYTES``.
    """

    def __init__(self, path: Path, *, what: str) -> None:
        from harness._size import over_limit, read_at_most
        from harness.importers._common import MAX_DATA_BYTES

        self.path = path
        self.source = str(path)
        self.what = what
        self._data: bytes | None = None
        try:
            info = os.stat(path)
            if stat.S_ISREG(info.st_mode):
                self._stamp = _stamp(info)
            else:
                self._data = read_at_most(path, MAX_DATA_BYTES)
        except OSError as exc:
            raise InputError(
                f"cannot read the file: {exc.strerror or exc}", source=self.source
            ) from None
        if self._data is not None and len(self._data) > MAX_DATA_BYTES:
            raise InputError(over_limit(None, MAX_DATA_BYTES), source=self.source)

    @contextlib.contextmanager
    def open(self) -> Iterator[BinaryIO]:
        """The file from its first byte after a UTF-8 byte order mark.

        Raises:
            InputError: the file changed since it was first looked at.
        """
        if self._data is not None:
            fh: BinaryIO = io.BytesIO(self._data)
        else:
            try:
                fh = open(self.path, "rb")  # noqa: SIM115 (closed below)
                changed = _stamp(os.fstat(fh.fileno())) != self._stamp
            except OSError as exc:
                raise InputError(
                    f"cannot read the file: {exc.strerror or exc}", source=self.source
                ) from None
            if changed:
                fh.close()
                raise InputError(
                    "the file changed during the import",
                    source=self.source,
                    hint="import it again once nothing is writing it",
                )
        with fh:
            if fh.read(3) != _BOM:
                fh.seek(0)
            yield fh

    def first_byte(self) -> bytes:
        """The first byte that is not white space (``b""`` for an empty file)."""
        with self.open() as fh:
            while chunk := fh.read(1 << 16):
                rest = chunk.lstrip(_SPACE)
                if rest:
                    return rest[:1]
        return b""

    def list_items(self) -> Iterator[Any]:
        """The items of a JSON list, one at a time, in file order.

        Raises:
            InputError: not valid JSON (anywhere in the file, trailing text included), not
                UTF-8, or nested deeper than ``MAX_DEPTH``.
        """
        with self.open() as fh:
            try:
                yield from _items(ijson.basic_parse(fh, use_float=True))
            except ijson.JSONError as exc:
                raise InputError(self._problem(exc), source=self.source) from None
            except _TooDeepError:
                raise InputError(
                    f"{self.what} is JSON nested too deeply to read", source=self.source
                ) from None

    def lines(self, *, max_bytes: int) -> Iterator[tuple[int, bytes]]:
        """``(line number, line)`` for each non-empty line, each at most ``max_bytes`` long.

        Raises:
            InputError: a line is longer.
        """
        from harness._size import over_limit

        with self.open() as fh:
            number = 0
            while line := fh.readline(max_bytes + 1):
                number += 1
                if len(line) > max_bytes and not line.endswith(b"\n"):
                    raise InputError(
                        over_limit(None, max_bytes, what="line"),
                        source=self.source,
                        location=f"line {number}",
                    )
                if line.strip():
                    yield number, line

    def whole(self) -> Any:
        """The file parsed whole (for what is small when it is not a list: one record).

        Raises:
            InputError: larger than ``MAX_DATA_BYTES``, not UTF-8, or not valid JSON.
        """
        from harness._json import loads
        from harness.importers._common import read_data_text

        text = read_data_text(self.path) if self._data is None else self._decode()
        return loads(text, source=self.source, what=self.what)

    def _decode(self) -> str:
        assert self._data is not None
        try:
            return self._data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", source=self.source) from None

    def _problem(self, exc: ijson.JSONError) -> str:
        text = str(exc)
        if "UTF8" in text:
            return f"{self.what} is not UTF-8 text"
        first = text.splitlines()[0].strip() if text.strip() else "it ends too soon"
        return f"{self.what} is not valid JSON: {first}"


class _TooDeepError(Exception):
    pass


def _items(events: Iterator[tuple[str, Any]]) -> Iterator[Any]:
    """The values at depth 1 of a JSON list given as ijson ``basic_parse`` events.

    The caller has checked that the document starts with ``[``; what follows its ``]`` is
    still read, so that trailing text is an error as ``json.loads`` would make it.
    """
    depth = 0
    builder: ijson.ObjectBuilder | None = None
    for event, value in events:
        if event == "start_map" or event == "start_array":
            depth += 1
            if depth > MAX_DEPTH:
                raise _TooDeepError
            if depth == 1:
                continue
        elif event == "end_map" or event == "end_array":
            depth -= 1
            if depth == 0:
                continue
        if builder is None:
            builder = ijson.ObjectBuilder()
        builder.event(event, value)
        if depth == 1:
            yield builder.value
            builder = None


def _stamp(info: os.stat_result) -> tuple[int, int, int]:
    return info.st_size, info.st_mtime_ns, info.st_ino
