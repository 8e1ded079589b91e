"""A fake planner API on 127.0.0.1: OpenAI chat completions and Anthropic messages.

A real HTTP server on a real socket, served from a thread, so that the official SDKs, vcrpy
and the retry logic all run exactly as they do against the vendors. Answers are scripted
(``answer``) or made by a planner function; faults are scripted with ``fail``::

    with FakePlannerServer() as server:
        server.answer('{"tasks": [...]}', when="Refund")
        server.fail("rate_limit", times=2, retry_after=1)
        ...  # point base_url at server.openai_base_url or server.anthropic_base_url
"""

from __future__ import annotations

import gzip
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from harness.testing._batches import BatchBook

__all__ = ["FAULTS", "FakePlannerServer", "FaultKind", "ReceivedRequest", "default_planner"]

FaultKind = Literal[
    "rate_limit", "server_error", "slow", "drop", "not_json", "bad_key", "echo_headers", "trickle"
]
FAULTS: tuple[FaultKind, ...] = (
    "rate_limit",
    "server_error",
    "slow",
    "drop",
    "not_json",
    "bad_key",
    "echo_headers",
    "trickle",
)


def default_planner(prompt: str) -> str:
    """A sound three-task plan (JSON text) for whatever the prompt's last line asks."""
    lines = [line.strip() for line in prompt.strip().splitlines() if line.strip()]
    goal = lines[-1] if lines else "the goal"
    plan = {
        "goal": goal,
        "tasks": [
            {
                "id": "gather",
                "description": f"Gather what is needed for: {goal}",
                "depends_on": [],
                "needs": [],
            },
            {
                "id": "decide",
                "description": "Decide what to do",
                "depends_on": ["gather"],
                "needs": [{"name": "facts", "task": "gather"}],
            },
            {
                "id": "act",
                "description": "Do it",
                "depends_on": ["decide"],
                "needs": [{"name": "decision", "task": "decide"}],
            },
        ],
    }
    return json.dumps(plan)


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    """A request the server received."""

    path: str
    """The request path (``/v1/chat/completions``)."""
    headers: dict[str, str]
    """Headers, names lower-cased."""
    body: Any
    """The JSON body, or the raw text when it was not JSON."""
    prompt: str
    """The user text found in the body."""
    received_at: float = 0.0
    """``time.monotonic()`` when the request arrived."""


@dataclass(slots=True)
class _Fault:
    kind: FaultKind
    times: int
    when: str | None
    retry_after: str | None
    delay: float
    status: int = 200


@dataclass(slots=True)
class _RateLimit:
    """The server's own token bucket (GCRA), as a provider enforces its limit."""

    rate: float
    burst: float
    tat: float = 0.0

    def try_take(self, now: float) -> float | None:
        """None when a request may go now, else the seconds until it may."""
        tolerance = (self.burst - 1.0) / self.rate
        if self.tat - tolerance > now:
            return self.tat - tolerance - now
        self.tat = max(self.tat, now) + 1.0 / self.rate
        return None


@dataclass(slots=True)
class _State:
    latency: float
    planner: Callable[[str], str]
    gzip: bool = False
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    whole_request: bool = False
    billed: list[tuple[str, int, int]] = field(default_factory=list)
    limit: _RateLimit | None = None
    batches: Any = None
    rejected: int = 0
    served: int = 0
    answers: list[tuple[str | None, str]] = field(default_factory=list)
    bodies: list[tuple[str | None, dict[str, Any]]] = field(default_factory=list)
    faults: list[_Fault] = field(default_factory=list)
    requests: list[ReceivedRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class FakePlannerServer:
    """A scripted OpenAI / Anthropic-compatible planner server in a background thread.

    Args:
        latency: seconds every answer waits before it is sent (the ``bench_live`` model).
        planner: makes the answer text from the prompt (default: ``default_planner``).
        gzip: compress answers when the client accepts gzip (as the vendors' APIs do).
    """

    def __init__(
        self,
        *,
        latency: float = 0.0,
        planner: Callable[[str], str] = default_planner,
        gzip: bool = False,
    ) -> None:
        self._state = _State(latency=latency, planner=planner, gzip=gzip)
        self._state.batches = BatchBook(answer=self._batch_answer, base_url=lambda: self.url)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> FakePlannerServer:
        """Bind a free port on 127.0.0.1 and serve from a daemon thread."""
        handler = type("_BoundHandler", (_Handler,), {"state": self._state})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.request_queue_size = 128
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (later requests are refused)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakePlannerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        if self._httpd is None:
            raise RuntimeError("the server is not running")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        """The ``base_url`` for the OpenAI SDK (``.../v1``)."""
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The ``base_url`` for the Anthropic SDK."""
        return self.url

    @property
    def batch_api(self) -> BatchBook:
        """The batch endpoints' state: set ``held``, ``polls_until_done``, ``fail_when``,
        ``expire_after``; read ``created`` and ``batches`` (see ``harness.testing._batches``)."""
        book: BatchBook = self._state.batches
        return book

    def _batch_answer(self, flavour: str, body: dict[str, Any]) -> dict[str, Any]:
        state = self._state
        prompt = _prompt_of(body)
        with state.lock:
            text = next((t for w, t in state.answers if w is None or w in prompt), None)
        text = text if text is not None else state.planner(prompt)
        return _reply(state, flavour, body, text)

    # -- scripting -------------------------------------------------------------------------
    def answer(self, text: str, *, when: str | None = None) -> None:
        """Answer ``text`` to prompts containing ``when`` (every prompt when None).

        Later rules are tried first, so a specific rule can override a general one.
        """
        with self._state.lock:
            self._state.answers.insert(0, (when, text))

    def answer_body(self, body: dict[str, Any], *, when: str | None = None) -> None:
        """Answer the whole response ``body`` as it is (a recorded chat completion or Anthropic
        message, e.g. one with parallel tool calls) to prompts containing ``when`` (every
        prompt when None). Whole bodies are tried before ``answer`` texts; later rules first.
        """
        with self._state.lock:
            self._state.bodies.insert(0, (when, body))

    def fail(
        self,
        kind: FaultKind,
        *,
        times: int = 1,
        when: str | None = None,
        retry_after: float | str | None = None,
        delay: float = 5.0,
        status: int = 200,
    ) -> None:
        """Make the next ``times`` requests (whose prompt contains ``when``) fail.

        Kinds: ``rate_limit`` (429 with ``Retry-After``), ``server_error`` (500), ``slow``
        (wait ``delay`` seconds, then answer), ``drop`` (close the connection without a reply),
        ``not_json`` (200 with an HTML body), ``bad_key`` (401 whose message quotes the API
        key and the request path, as some servers do: what redaction must catch),
        ``echo_headers`` (a plain-text body of HTTP ``status`` that quotes the request line
        and every request header, as a misconfigured proxy's debug page does), ``trickle``
        (a 200 whose body arrives one byte every 0.2 s for ``delay`` seconds, then the rest:
        no single read ever waits long).
        """
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; choose one of {', '.join(FAULTS)}")
        after = None if retry_after is None else str(retry_after)
        with self._state.lock:
            self._state.faults.append(_Fault(kind, times, when, after, delay, status))

    def usage(
        self, *, cached_tokens: int = 0, reasoning_tokens: int = 0, whole_request: bool = False
    ) -> None:
        """Report ``cached_tokens`` cache hits and ``reasoning_tokens`` in every answer's usage
        (OpenAI ``*_tokens_details``; Anthropic ``cache_read_input_tokens``).

        With ``whole_request``, usage is what a vendor bills: input counts the whole request
        body (the response schema and tools too, one token per three bytes) and output counts
        the reasoning tokens as well as the answer's, capped at the request's ``max_tokens``
        (or ``max_completion_tokens``)."""
        with self._state.lock:
            self._state.cached_tokens = cached_tokens
            self._state.reasoning_tokens = reasoning_tokens
            self._state.whole_request = whole_request

    def billed_usd(self, prices: dict[str, tuple[float, float]]) -> float:
        """What the server billed: the usage of every answer it produced (direct or in a batch,
        delivered or not: a client that timed out is billed all the same) at ``prices``
        (model name -> USD per million input and output tokens; batches at the full rate)."""
        with self._state.lock:
            billed = list(self._state.billed)
        return sum(
            (tokens_in * prices[model][0] + tokens_out * prices[model][1]) / 1e6
            for model, tokens_in, tokens_out in billed
        )

    @property
    def billed_calls(self) -> int:
        """Answers the server produced and billed."""
        with self._state.lock:
            return len(self._state.billed)

    def limit_rate(self, requests_per_second: float | None, *, burst: float | None = None) -> None:
        """Answer 429 (with ``Retry-After``) to model calls beyond ``requests_per_second``.

        The server's token bucket holds ``burst`` requests (default: one second's worth, i.e.
        at most ``requests_per_second`` in any second), as a provider's limiter does; None
        removes the limit. ``rejected`` counts the 429s sent.
        """
        with self._state.lock:
            self._state.limit = (
                None
                if requests_per_second is None
                else _RateLimit(
                    rate=requests_per_second,
                    burst=max(burst if burst is not None else requests_per_second, 1.0),
                )
            )

    @property
    def rejected(self) -> int:
        """429s sent by the rate limit (``limit_rate``)."""
        with self._state.lock:
            return self._state.rejected

    @property
    def served(self) -> int:
        """Model calls answered with 200."""
        with self._state.lock:
            return self._state.served

    def reset(self) -> None:
        """Forget scripted answers, faults, limits, usage settings and received requests."""
        with self._state.lock:
            self._state.answers.clear()
            self._state.bodies.clear()
            self._state.faults.clear()
            self._state.requests.clear()
            self._state.max_in_flight = 0
            self._state.limit = None
            self._state.rejected = 0
            self._state.served = 0
            self._state.cached_tokens = 0
            self._state.reasoning_tokens = 0
            self._state.whole_request = False
            self._state.billed.clear()
        book = self._state.batches
        with book.lock:
            book.held = False
            book.polls_until_done = 1
            book.fail_when.clear()
            book.echo_credentials = False
            book.poll_failures = 0
            book.expire_after = None
            book.batches.clear()
            book.files.clear()
            book.created = 0

    @property
    def requests(self) -> list[ReceivedRequest]:
        """Every request received so far, in order."""
        with self._state.lock:
            return list(self._state.requests)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no model call is being handled (slow answers finished and billed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._state.lock:
                if not self._state.in_flight:
                    return True
            time.sleep(0.02)
        return False

    @property
    def max_in_flight(self) -> int:
        """The most requests the server was handling at the same moment."""
        with self._state.lock:
            return self._state.max_in_flight

    @property
    def latency(self) -> float:
        """Seconds every answer waits."""
        return self._state.latency

    @latency.setter
    def latency(self, value: float) -> None:
        self._state.latency = value


class _Handler(BaseHTTPRequestHandler):
    state: _State
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/_stats":
            with self.state.lock:
                stats = {"served": self.state.served, "rejected": self.state.rejected}
            self._send(200, stats)
            return
        if self.state.batches.handles("GET", path):
            self._send_batch(self.state.batches.serve("GET", path, self.headers, b""))
            return
        self._send(404, {"error": {"message": f"no route {path}"}})

    def _send_batch(self, reply: tuple[int, Any, str]) -> None:
        code, payload, kind = reply
        if isinstance(payload, str):
            data = payload.encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self._send(code, payload)

    def do_POST(self) -> None:
        state = self.state
        path = self.path.split("?", 1)[0]
        if state.batches.handles("POST", path):
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._send_batch(state.batches.serve("POST", path, self.headers, raw))
            return
        with state.lock:
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
        try:
            self._serve()
        finally:
            with state.lock:
                state.in_flight -= 1

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        try:
            body: Any = json.loads(raw)
        except json.JSONDecodeError:
            body = raw
        path = self.path.split("?", 1)[0]
        flavour = "anthropic" if path == "/v1/messages" else "openai"
        if path not in ("/v1/chat/completions", "/v1/messages"):  # quoting it, as OpenAI does
            self._send(404, {"error": {"message": f"Invalid URL (POST {self.path})"}})
            return
        prompt = _prompt_of(body)
        state = self.state
        with state.lock:
            state.requests.append(
                ReceivedRequest(
                    path,
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                    prompt,
                    time.monotonic(),
                )
            )
            fault: _Fault | None = None
            text: str | None = None
            recorded: dict[str, Any] | None = None
            wait = state.limit.try_take(time.monotonic()) if state.limit is not None else None
            if wait is not None:
                state.rejected += 1
            else:
                fault = _take_fault(state, prompt)
                text = next((t for w, t in state.answers if w is None or w in prompt), None)
                recorded = next((b for w, b in state.bodies if w is None or w in prompt), None)
        if wait is not None:
            after = str(max(1, math.ceil(wait)))
            body_429 = {"error": {"message": "rate limit exceeded", "type": "rate_limit"}}
            self._send(429, body_429, {"Retry-After": after, "retry-after-ms": f"{wait * 1e3:.0f}"})
            return
        if state.latency:
            time.sleep(state.latency)
        try:
            if fault is not None and fault.kind == "drop":  # the work was done, and is billed
                _reply(state, flavour, body, text if text is not None else state.planner(prompt))
            if fault is not None and fault.kind == "trickle":
                answer = text if text is not None else state.planner(prompt)
                self._trickle(_reply(state, flavour, body, answer), fault.delay)
                return
            if fault is not None and self._fault(fault):
                return
            if recorded is not None:
                self._send(200, recorded)
                with state.lock:
                    state.served += 1
                return
            if text is None:
                text = state.planner(prompt)
            reply = _reply(state, flavour, body, text)
            self._send(200, reply)
            with state.lock:
                state.served += 1
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
            pass

    def _trickle(self, reply: dict[str, Any], seconds: float) -> None:
        data = json.dumps(reply).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.flush()
        until = time.monotonic() + seconds
        sent = 0
        while sent < len(data) and time.monotonic() < until:
            self.wfile.write(data[sent : sent + 1])
            self.wfile.flush()
            sent += 1
            time.sleep(0.2)
        self.wfile.write(data[sent:])

    def _fault(self, fault: _Fault) -> bool:
        """Act out a fault; True when no normal answer must follow."""
        if fault.kind == "slow":
            time.sleep(fault.delay)
            return False
        if fault.kind == "drop":
            self.close_connection = True
            return True
        if fault.kind == "rate_limit":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            self._send(429, {"error": {"message": "rate limited", "type": "rate_limit"}}, headers)
            return True
        if fault.kind == "bad_key":
            auth = self.headers.get("Authorization") or self.headers.get("x-api-key") or ""
            key = auth.split(None, 1)[-1] if auth else ""
            message = f"Incorrect API key provided: {key} (POST {self.path})"
            self._send(401, {"error": {"message": message, "type": "invalid_request_error"}})
            return True
        if fault.kind == "echo_headers":
            lines = [f"POST {self.path}", *(f"{k}: {v}" for k, v in self.headers.items())]
            echoed = "\n".join(lines).encode("utf-8")
            self.send_response(fault.status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(echoed)))
            self.end_headers()
            self.wfile.write(echoed)
            return True
        if fault.kind == "server_error":
            self._send(500, {"error": {"message": "internal error", "type": "server_error"}})
            return True
        data = b"<html><body>502 Bad Gateway</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return True

    def _send(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(code)
        if self.state.gzip and "gzip" in self.headers.get("Accept-Encoding", ""):
            data = gzip.compress(data)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _take_fault(state: _State, prompt: str) -> _Fault | None:
    for fault in state.faults:
        if fault.times > 0 and (fault.when is None or fault.when in prompt):
            fault.times -= 1
            if fault.times == 0:
                state.faults.remove(fault)
            return fault
    return None


def _prompt_of(body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    parts: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "\n".join(parts)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _reply(state: _State, flavour: str, body: Any, text: str) -> dict[str, Any]:
    """The answer's body, its usage as configured; the usage is billed."""
    if flavour == "openai":
        reply = _openai_reply(body, text, state.cached_tokens, state.reasoning_tokens)
    else:
        reply = _anthropic_reply(body, text, state.cached_tokens)
    usage = reply["usage"]
    model = str(reply.get("model"))
    if state.whole_request and isinstance(body, dict):
        tokens_in = max(1, len(json.dumps(body).encode("utf-8")) // 3)
        tokens_out = _tokens(text) + state.reasoning_tokens
        cap = body.get("max_completion_tokens") or body.get("max_tokens")
        if isinstance(cap, int):
            tokens_out = min(tokens_out, cap)
        if flavour == "openai":
            usage.update(
                prompt_tokens=tokens_in,
                completion_tokens=tokens_out,
                total_tokens=tokens_in + tokens_out,
            )
        else:
            usage.update(input_tokens=tokens_in, output_tokens=tokens_out)
            usage.update(cache_read_input_tokens=0)
    if flavour == "openai":
        billed = (usage["prompt_tokens"], usage["completion_tokens"])
    else:
        billed = (usage["input_tokens"] + usage["cache_read_input_tokens"], usage["output_tokens"])
    with state.lock:
        state.billed.append((model, *billed))
    return reply


def _openai_reply(body: Any, text: str, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    prompt = _prompt_of(body)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": body.get("model", "fake") if isinstance(body, dict) else "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": _tokens(prompt),
            "completion_tokens": _tokens(text),
            "total_tokens": _tokens(prompt) + _tokens(text),
            "prompt_tokens_details": {"cached_tokens": min(cached, _tokens(prompt))},
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        },
    }


def _anthropic_reply(body: Any, text: str, cached: int = 0) -> dict[str, Any]:
    body = body if isinstance(body, dict) else {}
    forced = body.get("tool_choice", {}).get("name") if body.get("tools") else None
    content: list[dict[str, Any]]
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if forced and isinstance(value, dict):
        content = [{"type": "tool_use", "id": "toolu_fake", "name": forced, "input": value}]
    else:
        content = [{"type": "text", "text": text}]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": content,
        "stop_reason": "tool_use" if content[0]["type"] == "tool_use" else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": _tokens(_prompt_of(body)) - min(cached, _tokens(_prompt_of(body))),
            "output_tokens": _tokens(text),
            "cache_read_input_tokens": min(cached, _tokens(_prompt_of(body))),
            "cache_creation_input_tokens": 0,
        },
    }
