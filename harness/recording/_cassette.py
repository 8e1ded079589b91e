"""vcrpy cassettes for HTTP planners: credential filters, atomic saves, per-call transports.

vcrpy's ``use_cassette`` patches the HTTP library process-wide, which is unsafe when several
calls run at once. Instead each live call gets its own httpx transport wired to its own
``vcr.cassette.Cassette`` through vcrpy's httpx stub, so cassettes are recorded, matched
(method, URI and body) and filtered by vcrpy itself, one per call, in any number of threads.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
import ssl
import threading
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import yaml

from harness._atomic import atomic_write_text

__all__ = [
    "FILTERED_REQUEST_HEADERS",
    "FILTERED_RESPONSE_HEADERS",
    "RECORD_MODES",
    "CassetteMiss",
    "Interaction",
    "cassette_transport",
    "open_cassette",
    "read_cassette",
    "replay_response",
]

RECORD_MODES: tuple[str, ...] = ("none", "once", "new_episodes", "all")
"""vcrpy's record modes as planeval uses them (``none`` replays and never calls out)."""

FILTERED_REQUEST_HEADERS: tuple[str, ...] = (
    "authorization",
    "x-api-key",
    "api-key",
    "openai-organization",
    "openai-project",
    "anthropic-organization-id",
    "cookie",
    "proxy-authorization",
)
"""Request headers never written to a cassette."""

FILTERED_RESPONSE_HEADERS: tuple[str, ...] = (
    "set-cookie",
    "openai-organization",
    "openai-project",
    "anthropic-organization-id",
)
"""Response headers never written to a cassette."""

_NOISY_PREFIXES = ("x-stainless-",)
"""SDK telemetry headers (OS, runtime, retry count): dropped so cassettes do not churn."""
_KEYISH = re.compile(r"key|token|secret|passw|auth|sig|credential|session", re.IGNORECASE)
_MATCH_ON = ("method", "uri", "body")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CassetteMiss(Exception):
    """No recorded request matches; ``detail`` says which matchers failed."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _strip_request(request: Any) -> Any:
    """Drop credentials from a request before vcrpy stores or matches it."""
    request = copy.deepcopy(request)
    for name in list(request.headers):
        lowered = name.lower()
        if lowered in FILTERED_REQUEST_HEADERS or lowered.startswith(_NOISY_PREFIXES):
            del request.headers[name]
    parts = urlsplit(request.uri)
    if parts.query:
        kept = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not _KEYISH.search(k)
        ]
        request.uri = urlunsplit(parts._replace(query=urlencode(kept)))
    return request


def _keep_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """Record only complete answers (2xx with a JSON body), without cookies or org ids.

    Compressed bodies (vendors answer gzip) are stored decompressed, so cassettes are
    readable and diffable.
    """
    from vcr.filters import decode_response

    response = decode_response(response)
    code = int(response.get("status", {}).get("code", 0))
    if not 200 <= code < 300:
        return None
    body = response.get("body", {}).get("string", b"")
    try:
        json.loads(body)
    except (ValueError, TypeError):
        return None
    headers = response.get("headers", {})
    response["headers"] = {
        k: v for k, v in headers.items() if k.lower() not in FILTERED_RESPONSE_HEADERS
    }
    return response


class _AtomicPersister:
    """vcrpy's filesystem persister, but saving through a temp file and a rename."""

    @staticmethod
    def load_cassette(cassette_path: Any, serializer: Any) -> Any:
        from vcr.persisters.filesystem import FilesystemPersister

        return FilesystemPersister.load_cassette(cassette_path, serializer)

    @staticmethod
    def save_cassette(cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize

        atomic_write_text(Path(cassette_path), serialize(cassette_dict, serializer))


def open_cassette(path: Path, *, record_mode: str, secrets: tuple[str, ...] = ()) -> Any:
    """Load (or start) the vcrpy cassette at ``path`` in ``record_mode``.

    Args:
        path: the cassette file (``sample-<k>.yaml``).
        record_mode: ``none``, ``once``, ``new_episodes`` or ``all``.
        secrets: literal values (API keys) replaced by a placeholder wherever they appear.
    """
    from vcr import matchers
    from vcr.cassette import Cassette
    from vcr.record_mode import RecordMode
    from vcr.serializers import yamlserializer

    # "all" re-records every interaction, so the old file need not be read at all.
    make = Cassette if record_mode == "all" else Cassette.load
    return make(
        path=str(path),
        serializer=yamlserializer,
        persister=_AtomicPersister,
        record_mode=RecordMode(record_mode),
        match_on=tuple(getattr(matchers, name) for name in _MATCH_ON),
        before_record_request=_strip_request,
        before_record_response=_keep_response,
        drop_unused_requests=record_mode == "all",
        filter_sensitive_data=[(f"<SECRET-{i}>", s) for i, s in enumerate(secrets) if s],
    )


def cassette_transport(http_module: ModuleType, cassette: Any = None) -> Any:
    """An httpx (or httpx2) transport that plays from or records into its ``cassette``.

    Set ``transport.cassette`` before each request: one transport (and its connection pool)
    serves a thread's calls one after the other, each with its own cassette. Transports share
    one TLS context per process (building one costs ~0.1 s of CPU).
    """
    transport = _transport_class(http_module)(verify=_tls_context(http_module))
    transport.cassette = cassette
    return transport


_CLASSES: dict[str, type] = {}


def _transport_class(http_module: ModuleType) -> type:
    with _TLS_LOCK:
        found = _CLASSES.get(http_module.__name__)
        if found is not None:
            return found
    from vcr.stubs.httpx_stubs import vcr_handle_request

    real = http_module.HTTPTransport.handle_request

    def handle_request(self: Any, request: Any) -> Any:
        if self.cassette is None:
            raise RuntimeError("a cassette transport was used without a cassette")
        return vcr_handle_request(self.cassette, real, http_module)(self, request)

    made = type(
        "CassetteTransport", (http_module.HTTPTransport,), {"handle_request": handle_request}
    )
    with _TLS_LOCK:
        return _CLASSES.setdefault(http_module.__name__, made)


_TLS_LOCK = threading.Lock()
_TLS: dict[str, ssl.SSLContext] = {}


def _tls_context(http_module: ModuleType) -> ssl.SSLContext:
    with _TLS_LOCK:
        context = _TLS.get(http_module.__name__)
        if context is None:
            make = getattr(http_module, "create_ssl_context", None)
            context = make() if make is not None else ssl.create_default_context()
            _TLS[http_module.__name__] = context
        return context


Interaction = tuple[dict[str, Any], dict[str, Any]]
"""A recorded (request, response) pair as plain data: ``{method, uri, body, headers}``,
``{status, headers, body: {string}}``."""


def read_cassette(path: Path) -> list[Interaction]:
    """The (request, response) pairs of a vcrpy cassette, as plain data.

    A Ruby VCR cassette (``http_interactions:``, as the agentic gem records) is read too.

    Replay reads cassettes with libyaml directly: importing vcrpy (which imports every HTTP
    library it can patch) would cost more than replaying a thousand cassettes. Cassettes with
    Python-specific tags (old vcrpy versions) fall back to vcrpy's own loader.

    Raises:
        ValueError: the file is not a vcrpy cassette.
    """
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.load(text, Loader=_LOADER)
    except yaml.constructor.ConstructorError:
        from vcr.serializers import yamlserializer

        data = yamlserializer.deserialize(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"not YAML: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("http_interactions"), list):
        return _ruby_vcr_pairs(data["http_interactions"])
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise ValueError("no 'interactions' list (not a vcrpy cassette)")
    pairs: list[Interaction] = []
    for item in data["interactions"]:
        if not isinstance(item, dict) or "request" not in item or "response" not in item:
            raise ValueError("an interaction without a request and a response")
        pairs.append((item["request"], item["response"]))
    return pairs


def _ruby_vcr_pairs(items: list[Any]) -> list[Interaction]:
    """Ruby VCR's ``http_interactions`` (the agentic gem's cassettes) in vcrpy's shape."""
    pairs: list[Interaction] = []
    for item in items:
        if not isinstance(item, dict) or "request" not in item or "response" not in item:
            raise ValueError("an http_interaction without a request and a response")
        request = dict(item["request"])
        body = request.get("body")
        request["body"] = body.get("string") if isinstance(body, dict) else body
        pairs.append((request, item["response"]))
    return pairs


def replay_response(
    interactions: list[Interaction], expected: tuple[str, str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The recorded response body (JSON) for a request; without one, the first one recorded.

    Requests match on method, URI and body, JSON bodies compared as data, as vcrpy's
    ``method``, ``uri`` and ``body`` matchers (the ones live recording uses) compare them.

    Args:
        interactions: from ``read_cassette``.
        expected: ``(method, uri, json_body)`` of the request the suite sends now, or None to
            take the first recorded answer (imported recordings, dataset models).

    Raises:
        CassetteMiss: nothing recorded matches; the detail names what differs.
    """
    if not interactions:
        raise CassetteMiss("the cassette holds no interaction")
    if expected is None:
        response = interactions[0][1]  # the planner's call; later ones are follow-ups
    else:
        verdicts = [(_differences(stored, expected), r) for stored, r in interactions]
        found = [r for differs, r in verdicts if not differs]
        if not found:
            differs = min((d for d, _ in verdicts), key=len)
            raise CassetteMiss(
                "the recorded request differs from the one this suite sends now "
                f"({', '.join(differs)} differ)"
            )
        response = found[-1]
    data: dict[str, Any] = json.loads(_body_text(response))
    return data


def _body_text(response: dict[str, Any]) -> str:
    """A recorded response body as text, decompressed if it was stored compressed."""
    body = response.get("body") or {}
    raw = body.get("string", b"") if isinstance(body, dict) else body
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    headers = {str(k).lower(): v for k, v in (response.get("headers") or {}).items()}
    encoding = headers.get("content-encoding") or []
    encoding = encoding if isinstance(encoding, list) else [encoding]
    if "gzip" in encoding:
        raw = gzip.decompress(raw)
    elif "deflate" in encoding:
        raw = zlib.decompress(raw)
    return bytes(raw).decode("utf-8", "replace")


def _differences(stored: dict[str, Any], expected: tuple[str, str, dict[str, Any]]) -> list[str]:
    method, uri, body = expected
    differs = []
    if str(stored.get("method", "")).upper() != method:
        differs.append("method")
    if stored.get("uri") != uri:
        differs.append("uri")
    raw = stored.get("body")
    try:
        same = (json.loads(raw) == body) if raw else not body
    except (ValueError, TypeError):
        same = False
    if not same:
        differs.append("body")
    return differs
