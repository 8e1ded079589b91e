"""The two vendors' batch APIs through their official SDKs: submit, poll, read results.

OpenAI: a JSONL file of ``{custom_id, method, url, body}`` uploaded with ``files.create``
(purpose ``batch``), then ``batches.create``; ``batches.retrieve`` until ``completed``,
``failed``, ``expired`` or ``cancelled``; answers in the output file, failures in the error
file. Anthropic: ``messages.batches.create`` with ``{custom_id, params}``;
``messages.batches.retrieve`` until ``ended``; ``messages.batches.results`` streams one result
per request (``succeeded``, ``errored``, ``canceled``, ``expired``).

Every batch carries the run's client-side tag, so that a run killed between creating a batch
and writing its id down finds it again (``find``): OpenAI keeps it as the batch's
``metadata`` (``{"planeval_tag": tag}``) and lists it with ``batches.list``; Anthropic batches
have no metadata, so the tag prefixes every ``custom_id`` (``<tag>-r0``) and ``find`` matches
the batches ``messages.batches.list`` shows by creation time and request count.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["TAG_KEY", "BatchStatus", "Outcome", "find", "poll", "results", "submit"]

TAG_KEY = "planeval_tag"
"""The OpenAI batch metadata key holding the run's tag."""


@dataclass(frozen=True, slots=True)
class BatchStatus:
    """Where a batch is."""

    state: str
    """The vendor's status (``in_progress``, ``completed``, ``ended``, ``expired``, ...)."""
    done: int
    """Requests finished (answered or failed)."""
    total: int
    """Requests in the batch."""
    ended: bool
    """True once results can be read."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One request's result."""

    body: dict[str, Any] | None
    """The response body (a chat completion or a message), or None."""
    error: str | None = None
    """Why there is no body (one line)."""
    expired: bool = False
    """The batch expired (or was cancelled) before this request ran."""


_OPENAI_ENDED = ("completed", "failed", "expired", "cancelled")


def submit(
    provider: str,
    client: Any,
    path: str,
    requests: list[tuple[str, dict[str, Any]]],
    *,
    tag: str | None = None,
    step: Callable[[str], None] = lambda _step: None,
) -> str:
    """Create a batch of ``(custom_id, body)`` requests tagged ``tag``; return its id.

    ``step`` is called after each vendor call that changes something (``uploaded``,
    ``created``), so a test can stop the process exactly there.
    """
    if provider == "openai":
        lines = "".join(
            json.dumps({"custom_id": cid, "method": "POST", "url": "/v1" + path, "body": body})
            + "\n"
            for cid, body in requests
        )
        upload = client.files.create(
            file=("planeval-batch.jsonl", io.BytesIO(lines.encode("utf-8"))), purpose="batch"
        )
        step("uploaded")
        batch = client.batches.create(
            input_file_id=upload.id,
            endpoint="/v1" + path,
            completion_window="24h",
            metadata={TAG_KEY: tag} if tag else None,
        )
        step("created")
        return str(batch.id)
    batch = client.messages.batches.create(
        requests=[{"custom_id": cid, "params": body} for cid, body in requests]
    )
    step("created")
    return str(batch.id)


def find(
    provider: str, client: Any, tag: str, *, requests: int, since: float, taken: set[str]
) -> str | None:
    """The id of the batch created with ``tag`` (None: none was created).

    OpenAI: the batch whose metadata holds the tag. Anthropic (no metadata): a batch created
    at or after ``since`` (a POSIX time, less a minute of clock skew) with ``requests``
    requests that no other entry of the run has ``taken``; when several fit, the oldest.
    """
    if provider == "openai":
        for batch in client.batches.list(limit=100):
            if (batch.metadata or {}).get(TAG_KEY) == tag:
                return str(batch.id)
        return None
    found = []
    for batch in client.messages.batches.list(limit=100):
        created = batch.created_at
        stamp = created.timestamp() if isinstance(created, datetime) else float(created)
        c = batch.request_counts
        total = c.processing + c.succeeded + c.errored + c.canceled + c.expired
        if stamp >= since - 60 and total == requests and str(batch.id) not in taken:
            found.append((stamp, str(batch.id)))
    return min(found)[1] if found else None


def poll(provider: str, client: Any, batch_id: str) -> BatchStatus:
    """The batch's status now."""
    if provider == "openai":
        batch = client.batches.retrieve(batch_id)
        counts = batch.request_counts
        done = (counts.completed + counts.failed) if counts is not None else 0
        total = counts.total if counts is not None else 0
        return BatchStatus(str(batch.status), done, total, batch.status in _OPENAI_ENDED)
    batch = client.messages.batches.retrieve(batch_id)
    c = batch.request_counts
    done = c.succeeded + c.errored + c.canceled + c.expired
    return BatchStatus(
        str(batch.processing_status), done, done + c.processing, batch.processing_status == "ended"
    )


def results(provider: str, client: Any, batch_id: str) -> dict[str, Outcome]:
    """Every request's outcome by custom id (requests without a result are absent)."""
    out: dict[str, Outcome] = {}
    if provider == "openai":
        batch = client.batches.retrieve(batch_id)
        expired = batch.status in ("expired", "cancelled")
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            for line in client.files.content(file_id).text.splitlines():
                if line.strip():
                    item = json.loads(line)
                    out[str(item["custom_id"])] = _openai_outcome(item, expired)
        return out
    for item in client.messages.batches.results(batch_id):
        data = item.to_dict() if hasattr(item, "to_dict") else dict(item)
        out[str(data["custom_id"])] = _anthropic_outcome(data["result"])
    return out


def _openai_outcome(item: dict[str, Any], expired: bool) -> Outcome:
    response = item.get("response") or {}
    error = item.get("error")
    if response.get("status_code") == 200 and isinstance(response.get("body"), dict):
        return Outcome(response["body"])
    if error:
        code = str(error.get("code") or "")
        message = f"{code}: {error.get('message', '')}".strip(": ")
        return Outcome(None, message, expired=code in ("batch_expired", "batch_cancelled"))
    body = response.get("body") or {}
    detail = (body.get("error") or {}).get("message") if isinstance(body, dict) else None
    return Outcome(None, f"HTTP {response.get('status_code')}: {detail or 'no body'}")


def _anthropic_outcome(result: dict[str, Any]) -> Outcome:
    kind = result.get("type")
    if kind == "succeeded":
        return Outcome(result["message"])
    if kind in ("expired", "canceled"):
        return Outcome(None, f"request {kind}", expired=True)
    error = (result.get("error") or {}).get("error") or {}
    return Outcome(None, f"{error.get('type', 'error')}: {error.get('message', '')}")
