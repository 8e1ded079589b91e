"""Event names and the line format of an execution journal.

A journal line is one JSON object terminated by ``\\n``: ``{"event": ..., "at": ..., ...}``.
The task events and their fields follow the agentic Ruby gem's ``ExecutionJournal``
(``task_started``, ``task_succeeded`` with ``output`` and ``duration``, ``task_failed`` with
``error``, ``error_type`` and ``retryable``, ``plan_completed`` with ``status``); planeval adds
``plan_started``, ``plan_resumed``, ``plan_interrupted``, ``task_blocked``, ``journal_repaired``
and an ``attempt`` number on task events.
"""

from __future__ import annotations

import json
import math
import time
import zlib
from typing import Any, Final

import msgspec

from harness._errors import JournalError
from harness._redaction import scrub_bytes

__all__ = [
    "CHAIN_KEY",
    "CHECKSUM_KEY",
    "EVENTS",
    "JOURNAL_VERSION",
    "TASK_EVENTS",
    "EventNotSerializableError",
    "checksum_state",
    "encode_body",
    "encode_event",
    "link_of",
    "seal",
]

JOURNAL_VERSION: Final = 3
"""Version of the journal format planeval writes (recorded in ``plan_started``). Version 2
adds the ``crc32`` checksum to every line, version 3 the ``prev`` link that chains each line
to the one before it; version 1 journals (and the gem's) have neither."""

CHECKSUM_KEY: Final = "crc32"
"""The checksum field: the last key of every line planeval writes (see ``checksum_state``)."""
_CRC_INFIX = ',"crc32":"'
_CRC_SUFFIX_LEN = len(_CRC_INFIX) + 8 + 2  # ,"crc32":"xxxxxxxx"}
CHAIN_KEY: Final = "prev"
"""The chain field, just before ``crc32``: the link of the line before (see ``link_of``)."""
GENESIS: Final = "00000000"
"""The link a journal's first line carries (there is no line before it)."""

TASK_EVENTS: Final = frozenset(
    {"task_started", "task_succeeded", "task_failed", "task_blocked", "task_attempt_ended"}
)
"""Events about one task: each carries a string ``task_id``."""

EVENTS: Final = TASK_EVENTS | frozenset(
    {
        "plan_started",
        "plan_resumed",
        "plan_interrupted",
        "plan_completed",
        "journal_repaired",
    }
)
"""Every event type planeval writes and understands; other types are kept and ignored."""


class EventNotSerializableError(JournalError, TypeError):
    """An event (usually a task's output) that cannot be written as JSON.

    Attributes:
        pointer: JSON pointer to the first offending value inside the event.
    """

    def __init__(self, what: str, *, source: str | None, pointer: str) -> None:
        self.pointer = pointer
        super().__init__(
            what,
            source=source,
            location=pointer,
            hint="return JSON values only (dict, list, str, int, float, bool, None)",
        )


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_ENCODE_ASCII = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
_MSGSPEC_ENCODE = msgspec.json.Encoder().encode
_MSGSPEC_DECODE = msgspec.json.Decoder().decode
_second: list[Any] = [None, ""]  # (whole second, its formatted prefix): one strftime a second


def now_iso() -> str:
    """The current UTC time as ISO 8601 with milliseconds, like the gem's ``at`` field."""
    now = time.time()
    second = int(now)
    if _second[0] != second:
        _second[1] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _second[0] = second
    return f"{_second[1]}.{int((now - second) * 1000):03d}Z"


def encode_event(event: str, payload: dict[str, Any], *, source: str | None = None) -> bytes:
    """One journal line (UTF-8, ``\\n``-terminated) for an event, checksummed, not chained
    (a ``JournalWriter`` chains what it appends; see ``encode_body``).

    Raises:
        EventNotSerializableError: a value is not JSON (a set, an object, NaN, ...); nothing
            is written in that case.
    """
    body = encode_body(event, payload, source=source)
    return body + b',"crc32":"%08x"}\n' % zlib.crc32(body)


def encode_body(event: str, payload: dict[str, Any], *, source: str | None = None) -> bytes:
    """An event's line up to its chain and checksum fields: the JSON object without its
    closing ``}``, credentials scrubbed. ``seal`` finishes it as the writer appends it.

    Raises:
        EventNotSerializableError: as ``encode_event``.
    """
    record = {"event": event, "at": now_iso(), **payload}
    body = _encode_plain(record)
    if body is None:
        body = _encode_strict(record, event, source)
    return scrub_bytes(body)  # an agent's output echoing a key never reaches the journal


def seal(body: bytes, prev: bytes) -> bytes:
    """The whole line of ``body`` (from ``encode_body``) chained to ``prev``, the link of the
    line before it: ``,"prev":"<prev>"`` then the checksum over every byte before it.

    One CRC over the body, continued over the 17-byte link, and one formatting: what the chain
    adds to a line's cost.
    """
    link = b',"prev":"%s"' % prev
    return b'%s%s,"crc32":"%08x"}\n' % (body, link, zlib.crc32(link, zlib.crc32(body)))


def _encode_plain(record: dict[str, Any]) -> bytes | None:
    """The record's JSON without its closing ``}``, by msgspec, when it reads back equal.

    The fast path (msgspec writes and reads a line several times faster than the ``json``
    module): the line is kept only when decoding it gives back a value equal to ``record``.
    What msgspec writes differently from ``json`` does not read back equal: sets, bytes,
    dates, decimals, UUIDs, plain enums and dataclasses become other values, NaN and
    infinities become ``null``, non-string keys become strings, tuples become lists; and
    msgspec refuses lone surrogates, over-long integers, circular and very deep values. All
    of those go through ``_encode_strict`` and are written or refused as before.
    """
    try:
        data = _MSGSPEC_ENCODE(record)
        same = _MSGSPEC_DECODE(data) == record
    except (TypeError, ValueError, RecursionError):
        return None
    return data[:-1] if same else None


def _encode_strict(record: dict[str, Any], event: str, source: str | None) -> bytes:
    """The record's JSON without its closing ``}`` by the ``json`` module, or the error."""
    try:
        text = _ENCODE(record)
    except (TypeError, ValueError) as exc:
        pointer, found = _first_bad_value(record)
        raise EventNotSerializableError(
            f"a {event} event cannot be written as JSON: {found} ({exc})",
            source=source,
            pointer=pointer,
        ) from None
    try:
        return text[:-1].encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate in a string: escape it as \udxxx so the line stays valid UTF-8.
        return _ENCODE_ASCII(record)[:-1].encode()


def checksum_state(line: str) -> str:
    """Whether a line (its ``\n`` removed) carries a checksum and whether it matches.

    The checksum is CRC-32 (``zlib.crc32``) of the line's UTF-8 bytes before
    ``,"crc32":"`` , written as 8 lowercase hex digits in the last field. Readers that do
    not know it see one more field and ignore it.

    Returns:
        ``"ok"`` (present and matching), ``"bad"`` (present, not matching) or ``"none"``.
    """
    if line[-_CRC_SUFFIX_LEN : -_CRC_SUFFIX_LEN + len(_CRC_INFIX)] != _CRC_INFIX or not (
        line.endswith('"}')
    ):
        return "none"
    body = line[:-_CRC_SUFFIX_LEN]
    try:
        crc = zlib.crc32(body.encode("utf-8"))
    except UnicodeEncodeError:
        return "bad"
    return "ok" if f"{crc:08x}" == line[-10:-2] else "bad"


def link_of(line: str | bytes | None) -> str:
    """The link a line passes to the next one: its ``crc32`` field when it has one, else the
    CRC-32 of its bytes (its ``\\n`` removed), for lines written before checksums (version 1,
    the gem); ``GENESIS`` before the first line (None)."""
    if line is None:
        return GENESIS
    if isinstance(line, str):
        if line[-21:-11] == _CRC_INFIX:
            return line[-11:-3]
        if line[-20:-10] == _CRC_INFIX and line[-2:] == '"}':  # a last line without \n
            return line[-10:-2]
        data = line.encode("utf-8", "surrogateescape")
    else:
        data = line
        if data[-21:-11] == _CRC_INFIX.encode():
            return data[-11:-3].decode("ascii", "replace")
        if data[-20:-10] == _CRC_INFIX.encode() and data[-2:] == b'"}':
            return data[-10:-2].decode("ascii", "replace")
    if data[-1:] == b"\n":
        data = data[:-1]
    return f"{zlib.crc32(data):08x}"


def _first_bad_value(value: Any, pointer: str = "") -> tuple[str, str]:
    """The JSON pointer and a description of the first non-JSON value (iterative walk).

    A container met again inside itself is a circular reference (the walk would never end).
    """
    stack: list[tuple[str | None, Any]] = [(pointer, value)]
    inside: set[int] = set()  # ids of the containers on the path being walked
    while stack:
        where, item = stack.pop()
        if where is None:  # done with that container
            inside.discard(item)
            continue
        if isinstance(item, dict | list | tuple):
            if id(item) in inside:
                return where or "/", "a value that contains itself (a circular reference)"
            inside.add(id(item))
            stack.append((None, id(item)))
        if isinstance(item, dict):
            for key, sub in reversed(list(item.items())):
                if not isinstance(key, str | int | float | bool) and key is not None:
                    return where or "/", f"a key of type {type(key).__name__}"
                try:
                    name = str(key)
                except ValueError:  # an int past sys.get_int_max_str_digits()
                    return where or "/", "a key that is an integer too long to write"
                stack.append((f"{where}/{_escape(name)}", sub))
        elif isinstance(item, list | tuple):
            for index in reversed(range(len(item))):
                stack.append((f"{where}/{index}", item[index]))
        elif isinstance(item, float) and not math.isfinite(item):
            return where or "/", f"the number {item!r}, which JSON cannot hold"
        elif isinstance(item, int) and not _writable_int(item):
            return where or "/", "an integer too long to write"
        elif not (item is None or isinstance(item, str | int | float | bool)):
            return where or "/", f"a value of type {type(item).__name__}"
    return pointer or "/", "a value that cannot be serialised"


def _writable_int(number: int) -> bool:
    try:
        int.__repr__(number)
    except ValueError:  # more digits than sys.get_int_max_str_digits() allows
        return False
    return True


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
