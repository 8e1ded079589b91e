"""``Row``: one results.jsonl object as the reports read it, decoded by msgspec.

A report of a 200,000-row run must cost about one ``json.loads`` pass over the file
(issue 11). Decoding every line into dicts, and each plan into nested dicts and lists, costs
about twice that on its own; msgspec decodes a line straight into a ``Row`` (a C struct, not
tracked by the garbage collector), checks the field types the results-row schema fixes while it
decodes, and keeps the plan as its raw JSON text, decoded only when a writer asks for it (the
HTML report's budgeted detail, a compare flip's plan diff).

``Row`` also answers ``row["field"]`` and ``row.get("field")`` like the dict it replaces, so
code written against results.jsonl objects reads it unchanged. It holds every ``ResultRow``
field (a test keeps the two in step); fields of other names are not kept.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import msgspec

from harness.run._records import Status

__all__ = ["FIELD_NAMES", "ROW_DECODER", "Row", "RowLike", "row_from_dict"]

_NULL = msgspec.Raw(b"null")


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
    checks: dict[str, str] | None = None
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
    "plan" if name == "plan_json" else name for name in Row.__struct_fields__
)
"""The results.jsonl field names a ``Row`` holds, in schema order."""
_FIELDS = frozenset(FIELD_NAMES) - {"plan"}
_ATTRIBUTE = {name: name for name in FIELD_NAMES}
"""results.jsonl field name -> the attribute that answers it (``plan`` decodes)."""

ROW_DECODER = msgspec.json.Decoder(Row)
"""Decodes one results.jsonl line (bytes) into a ``Row``; raises ``msgspec.DecodeError``
(a ``ValidationError`` for a wrong field type or a missing required field)."""


def row_from_dict(data: dict[str, Any]) -> Row:
    """A ``Row`` from a results.jsonl object already parsed and checked by the stdlib reader
    (the careful path, used when the fast one refused a line)."""
    values = {k: v for k, v in data.items() if k in _FIELDS}
    plan = data.get("plan")
    raw = _NULL if plan is None else msgspec.Raw(json.dumps(plan).encode("utf-8"))
    return Row(**values, plan_json=raw)
