"""The fake server's batch endpoints: OpenAI Files + Batches, Anthropic Message Batches.

Batches are answered when they are created (with the server's planner and scripted answers)
but report ``in_progress`` until they have been polled ``polls_until_done`` times and are not
held, as a real batch takes a while. Scripted trouble:

- ``fail_when``: requests whose prompt contains one of these strings fail inside the batch
  (OpenAI: a line in the error file with a 500 body; Anthropic: an ``errored`` result);
- ``echo_credentials``: the failures' error messages quote the credential header the batch
  was created with (as a careless gateway does: what redaction must catch);
- ``poll_failures``: the next status checks answer 500 (a vendor's bad minute);
- ``expire_after``: the batch expires with only that many requests done (OpenAI ``expired``
  with the rest as ``batch_expired`` errors; Anthropic results of type ``expired``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

__all__ = ["BatchBook"]

Reply = tuple[int, Any, str]
"""(status, payload, content type): JSON payloads are dicts, JSONL payloads are str."""


@dataclass(slots=True)
class _Batch:
    id: str
    flavour: str
    created: int
    requests: list[dict[str, Any]]
    results: list[dict[str, Any]] = field(default_factory=list)
    polls: int = 0
    input_file_id: str | None = None
    expired: bool = False
    metadata: dict[str, Any] | None = None


@dataclass
class BatchBook:
    """The batch state of one fake server (thread-safe)."""

    answer: Callable[[str, dict[str, Any]], dict[str, Any]]
    """Makes the reply body for a request body (``(flavour, body) -> reply``)."""
    base_url: Callable[[], str]
    polls_until_done: int = 1
    held: bool = False
    fail_when: list[str] = field(default_factory=list)
    echo_credentials: bool = False
    poll_failures: int = 0
    expire_after: int | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, _Batch] = field(default_factory=dict)
    created: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    # -- routing -------------------------------------------------------------------------------
    def handles(self, method: str, path: str) -> bool:
        """True for the batch routes."""
        return path.startswith(("/v1/files", "/v1/batches", "/v1/messages/batches"))

    def serve(self, method: str, path: str, headers: Any, raw: bytes) -> Reply:
        """Answer one batch-route request."""
        parts = path.strip("/").split("/")
        with self.lock:
            polling = method == "GET" and "files" not in parts and "results" not in parts
            if polling and self.poll_failures > 0:
                self.poll_failures -= 1
                return 500, {"error": {"message": "internal error"}}, "application/json"
            if method == "GET" and parts == ["v1", "batches"]:
                listed = [self._openai_object(b, self._status(b)) for b in self._newest()]
                return 200, _page(listed), "application/json"
            if method == "GET" and parts == ["v1", "messages", "batches"]:
                listed = [self._anthropic_object(b, ended=self._ended(b)) for b in self._newest()]
                return 200, _page(listed), "application/json"
            if method == "POST" and path == "/v1/files":
                return self._upload(headers, raw)
            if method == "POST" and path == "/v1/batches":
                return self._openai_create(json.loads(raw or b"{}"), headers)
            if method == "GET" and len(parts) == 3 and parts[1] == "batches":
                return self._openai_status(parts[2])
            if method == "GET" and len(parts) == 4 and parts[1] == "files":
                data = self.files.get(parts[2])
                if data is None:
                    return 404, {"error": {"message": "no such file"}}, "application/json"
                return 200, data.decode("utf-8"), "application/jsonl"
            if method == "POST" and path == "/v1/messages/batches":
                return self._anthropic_create(json.loads(raw or b"{}"), headers)
            if method == "GET" and len(parts) == 4 and parts[2] == "batches":
                return self._anthropic_status(parts[3])
            if method == "GET" and len(parts) == 5 and parts[4] == "results":
                return self._anthropic_results(parts[3])
        return 404, {"error": {"message": f"no route {method} {path}"}}, "application/json"

    # -- shared ----------------------------------------------------------------------------------
    def _error_message(self, headers: Any) -> str:
        if not self.echo_credentials:
            return "internal error"
        sent = headers.get("Authorization") or headers.get("x-api-key") or ""
        return f"internal error (credentials: {sent})"

    def _new(
        self, flavour: str, requests: list[dict[str, Any]], message: str = "internal error"
    ) -> _Batch:
        self.created += 1
        prefix = "batch_" if flavour == "openai" else "msgbatch_"
        batch = _Batch(f"{prefix}{self.created:04d}", flavour, int(time.time()), requests)
        for index, request in enumerate(requests):
            body = request["body"] if flavour == "openai" else request["params"]
            prompt = json.dumps(body)
            if self.expire_after is not None and index >= self.expire_after:
                batch.expired = True
                batch.results.append({"custom_id": request["custom_id"], "kind": "expired"})
            elif any(w in prompt for w in self.fail_when):
                batch.results.append(
                    {"custom_id": request["custom_id"], "kind": "errored", "message": message}
                )
            else:
                reply = self.answer(flavour, body)
                batch.results.append(
                    {"custom_id": request["custom_id"], "kind": "ok", "body": reply}
                )
        self.batches[batch.id] = batch
        return batch

    def _done(self, batch: _Batch) -> bool:
        batch.polls += 1
        return self._ended(batch)

    def _ended(self, batch: _Batch) -> bool:
        return not self.held and batch.polls > self.polls_until_done

    def _status(self, batch: _Batch) -> str:
        if not self._ended(batch):
            return "in_progress"
        return "expired" if batch.expired else "completed"

    def _newest(self) -> list[_Batch]:
        return sorted(self.batches.values(), key=lambda b: b.id, reverse=True)

    # -- OpenAI ----------------------------------------------------------------------------------
    def _upload(self, headers: Any, raw: bytes) -> Reply:
        head = f"Content-Type: {headers.get('Content-Type')}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(head + raw)
        fields = {
            part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
            for part in message.iter_parts()
        }
        file_id = f"file-{len(self.files) + 1:04d}"
        data = fields.get("file")
        self.files[file_id] = data if isinstance(data, bytes) else b""
        return 200, _file_object(file_id, len(self.files[file_id])), "application/json"

    def _openai_create(self, body: dict[str, Any], headers: Any) -> Reply:
        data = self.files.get(body.get("input_file_id", ""))
        if data is None:
            return 400, {"error": {"message": "unknown input_file_id"}}, "application/json"
        lines = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
        batch = self._new("openai", lines, self._error_message(headers))
        batch.input_file_id = body["input_file_id"]
        batch.metadata = body.get("metadata")
        return 200, self._openai_object(batch, "validating"), "application/json"

    def _openai_status(self, batch_id: str) -> Reply:
        batch = self.batches.get(batch_id)
        if batch is None:
            return 404, {"error": {"message": "no such batch"}}, "application/json"
        if not self._done(batch):
            return 200, self._openai_object(batch, "in_progress"), "application/json"
        status = "expired" if batch.expired else "completed"
        return 200, self._openai_object(batch, status), "application/json"

    def _openai_object(self, batch: _Batch, status: str) -> dict[str, Any]:
        done = status in ("completed", "expired")
        ok = [r for r in batch.results if r["kind"] == "ok"]
        bad = [r for r in batch.results if r["kind"] != "ok"]
        output_id = error_id = None
        if done:
            output_id = f"file-out-{batch.id}"
            self.files[output_id] = "".join(
                json.dumps(
                    {
                        "id": f"batch_req_{r['custom_id']}",
                        "custom_id": r["custom_id"],
                        "response": {"status_code": 200, "request_id": "req", "body": r["body"]},
                        "error": None,
                    }
                )
                + "\n"
                for r in ok
            ).encode()
            if bad:
                error_id = f"file-err-{batch.id}"
                errors = "".join(json.dumps(_openai_error(r)) + "\n" for r in bad)
                self.files[error_id] = errors.encode()
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "status": status,
            "output_file_id": output_id,
            "error_file_id": error_id,
            "created_at": batch.created,
            "request_counts": {
                "total": len(batch.results),
                "completed": len(ok) if done else 0,
                "failed": len(bad) if done else 0,
            },
            "metadata": batch.metadata,
        }

    # -- Anthropic -------------------------------------------------------------------------------
    def _anthropic_create(self, body: dict[str, Any], headers: Any) -> Reply:
        requests = list(body.get("requests") or [])
        batch = self._new("anthropic", requests, self._error_message(headers))
        return 200, self._anthropic_object(batch, ended=False), "application/json"

    def _anthropic_status(self, batch_id: str) -> Reply:
        batch = self.batches.get(batch_id)
        if batch is None:
            return 404, {"error": {"message": "no such batch"}}, "application/json"
        return 200, self._anthropic_object(batch, ended=self._done(batch)), "application/json"

    def _anthropic_results(self, batch_id: str) -> Reply:
        batch = self.batches.get(batch_id)
        if batch is None:
            return 404, {"error": {"message": "no such batch"}}, "application/json"
        lines = []
        for r in batch.results:
            if r["kind"] == "ok":
                result: dict[str, Any] = {"type": "succeeded", "message": r["body"]}
            elif r["kind"] == "errored":
                result = {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": "api_error", "message": r.get("message", "boom")},
                    },
                }
            else:
                result = {"type": "expired"}
            lines.append(json.dumps({"custom_id": r["custom_id"], "result": result}) + "\n")
        return 200, "".join(lines), "application/binary"

    def _anthropic_object(self, batch: _Batch, *, ended: bool) -> dict[str, Any]:
        kinds = [r["kind"] for r in batch.results]
        counts = {
            "processing": 0 if ended else len(kinds),
            "succeeded": kinds.count("ok") if ended else 0,
            "errored": kinds.count("errored") if ended else 0,
            "canceled": 0,
            "expired": kinds.count("expired") if ended else 0,
        }
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch.created)),
            "expires_at": "2026-12-02T00:00:00Z",
            "ended_at": "2026-12-01T01:00:00Z" if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.base_url()}/v1/messages/batches/{batch.id}/results"
            if ended
            else None,
        }


def _page(items: list[dict[str, Any]]) -> dict[str, Any]:
    """One page of a list (both vendors' shape: ``data``, ``has_more``, first and last ids)."""
    return {
        "object": "list",
        "data": items,
        "has_more": False,
        "first_id": items[0]["id"] if items else None,
        "last_id": items[-1]["id"] if items else None,
    }


def _file_object(file_id: str, size: int) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": size,
        "created_at": int(time.time()),
        "filename": "batch.jsonl",
        "purpose": "batch",
        "status": "processed",
    }


def _openai_error(r: dict[str, Any]) -> dict[str, Any]:
    if r["kind"] == "expired":
        return {
            "id": f"batch_req_{r['custom_id']}",
            "custom_id": r["custom_id"],
            "response": None,
            "error": {"code": "batch_expired", "message": "This request could not be executed"},
        }
    return {
        "id": f"batch_req_{r['custom_id']}",
        "custom_id": r["custom_id"],
        "response": {
            "status_code": 500,
            "request_id": "req",
            "body": {
                "error": {"message": r.get("message", "internal error"), "type": "server_error"}
            },
        },
        "error": None,
    }
