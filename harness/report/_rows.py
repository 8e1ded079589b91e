"""``Row``: one results.jsonl object as the reports read it, decoded by msgspec.

A report of a 200,000-row run must cost about one ``json.loads`` pass over the file
(issue 11). Decoding every line into dicts, and each plan into nested dicts and lists, costs
about twice that on its own; msgspec decodes a line straight into a ``Row`` (a C struct, not
tracked by the garbage collector), checks the field types the results-row schema fixes while it
decodes, and keeps the plan as its raw JSON text, decoded only when a writer asks for it (the
HTML report's budgeted detail, a compare flip's plan diff). Each row's ``checks`` is also kept as
its JSON text while decoding, and each distinct text is decoded once (``share_checks``): most
rows of a run share a handful of check outcomes, and rows with the same text then share one
dict (read, never changed, by every consumer).

``Row`` also answers ``row["field"]`` and ``row.get("field")`` like the dict it replaces, so
code written against results.jsonl objects reads it unchanged. It holds every ``ResultRow``
field (a test keeps the two in step); fields of other names are not kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec
import numpy as np

from harness.run._records import Status

__all__ = [
    "FIELD_NAMES",
    "ROW_DECODER",
    "CheckSets",
    "Row",
    "RowLike",
    "number_checks",
    "row_from_dict",
    "share_checks",
]

_NULL = msgspec.Raw(b"null")
_UNREAD = "\ufffechecks"
"""The JSON key of ``Row.checks`` for msgspec: none (results.jsonl's ``checks`` is decoded as
``Row.checks_json`` and shared by ``share_checks``)."""


class RowLike(Protocol):
    """A result row read by name: a results.jsonl dict or a ``Row``."""

    def get(self, key: str, default: Any = None, /) -> Any: ...

    def __getitem__(self, key: str, /) -> Any: ...


class Row(msgspec.Struct, kw_only=True, gc=False):
    """One result row (a results.jsonl object); field types as in the results-row schema."""

    suite: str
    case: str
    model: str
    sample: int
    status: Status
    """One of ``STATUSES``: msgspec refuses any other while it decodes."""
    checks: dict[str, str] | None = msgspec.field(default=None, name=_UNREAD)
    """Check id -> outcome; set from ``checks_json`` by ``share_checks`` (the fast reader) or
    from the parsed row (``row_from_dict``)."""
    violations: list[Any] | None = None
    task_count: int | None = None
    latency_ms: int | float | None = None
    tokens: dict[str, int | float | None] | None = None
    tags: Any = None
    detail: Any = None
    recording: Any = None
    plan_json: msgspec.Raw = msgspec.field(default=_NULL, name="plan")
    """The plan's JSON text, as written (``plan`` decodes it)."""
    answer: Any = None
    metrics: Any = None
    metric_status: Any = None
    metric_detail: Any = None
    checks_json: msgspec.Raw = msgspec.field(default=_NULL, name="checks")
    """The checks' JSON text, as written (the fast reader only; ``checks`` holds them)."""

    @property
    def plan(self) -> Any:
        """The parsed plan (None when the row has none), decoded on each call."""
        raw = bytes(self.plan_json)
        if raw == b"null":
            return None
        try:
            return msgspec.json.decode(raw)
        except msgspec.DecodeError:  # NaN or Infinity inside: only the stdlib reads those
            return json.loads(raw)

    def get(self, key: str, default: Any = None) -> Any:
        """``dict.get``: the field's value, or ``default`` for a name that is not a field."""
        name = _ATTRIBUTE.get(key)
        return default if name is None else getattr(self, name)

    def __getitem__(self, key: str) -> Any:
        if key == "plan":
            return self.plan
        if key in _FIELDS:
            return getattr(self, key)
        raise KeyError(key)

    def to_dict(self) -> dict[str, Any]:
        """The row as the results.jsonl object it was read from (known fields only)."""
        return {name: self[name] for name in FIELD_NAMES}


FIELD_NAMES: tuple[str, ...] = tuple(
    "plan" if name == "plan_json" else name
    for name in Row.__struct_fields__
    if name != "checks_json"
)
"""The results.jsonl field names a ``Row`` holds, in schema order."""
_FIELDS = frozenset(FIELD_NAMES) - {"plan"}
_ATTRIBUTE = {name: name for name in FIELD_NAMES}
"""results.jsonl field name -> the attribute that answers it (``plan`` decodes)."""

ROW_DECODER = msgspec.json.Decoder(Row)
"""Decodes one results.jsonl line (bytes) into a ``Row`` (``checks`` then still to be set by
``share_checks``); raises ``msgspec.DecodeError`` (a ``ValidationError`` for a wrong field type
or a missing required field)."""
_CHECKS_DECODER = msgspec.json.Decoder(dict[str, str] | None)


@dataclass(frozen=True, slots=True)
class CheckSets:
    """The distinct check outcomes of a run's rows and which one each row has."""

    ids: np.ndarray
    """Per row (in file order), the index of its outcomes in ``names`` / ``outcomes``."""
    names: list[tuple[str, ...]]
    """The check ids of each distinct set, in the row's order (empty: no checks)."""
    outcomes: list[tuple[str, ...]]
    """Their outcomes (``pass``, ``fail``, ``warn``, ``skip``, ...)."""


class _Sets:
    """Distinct (names, outcomes) sets, numbered in order of first appearance."""

    def __init__(self) -> None:
        self.index: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}

    def id(self, checks: dict[str, str] | None) -> int:
        key = (tuple(checks), tuple(checks.values())) if checks else ((), ())
        return self.index.setdefault(key, len(self.index))

    def done(self, ids: list[int]) -> CheckSets:
        return CheckSets(
            np.array(ids, dtype=np.int64),
            [names for names, _ in self.index],
            [outcomes for _, outcomes in self.index],
        )


def share_checks(rows: list[Row]) -> CheckSets:
    """Set each decoded row's ``checks`` from its ``checks_json``: each distinct text decoded
    once, rows with the same text sharing one dict; and number the distinct outcomes.

    Raises:
        msgspec.ValidationError: some row's checks are not a mapping of strings to strings.
    """
    sets = _Sets()
    seen: dict[bytes, tuple[dict[str, str] | None, int]] = {}
    ids: list[int] = []
    for row in rows:
        text = bytes(row.checks_json)
        found = seen.get(text)
        if found is None:
            checks = _CHECKS_DECODER.decode(text)
            found = seen[text] = (checks, sets.id(checks))
        row.checks = found[0]
        ids.append(found[1])
    return sets.done(ids)


def number_checks(rows: list[Row]) -> CheckSets:
    """The distinct outcomes of rows whose ``checks`` are set (the careful reader's rows)."""
    sets = _Sets()
    return sets.done([sets.id(row.checks) for row in rows])


def row_from_dict(data: dict[str, Any]) -> Row:
    """A ``Row`` from a results.jsonl object already parsed and checked by the stdlib reader
    (the careful path, used when the fast one refused a line)."""
    values = {k: v for k, v in data.items() if k in _FIELDS}
    plan = data.get("plan")
    raw = _NULL if plan is None else msgspec.Raw(json.dumps(plan).encode("utf-8"))
    return Row(**values, plan_json=raw)
