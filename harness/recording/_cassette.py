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
import ssl
import threading
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from harness._atomic import atomic_write_text
from harness._errors import InputError
from harness._json import loads
from harness._redaction import SECRET_QUERY_NAME
from harness._yaml import SafeLoader, load_yaml_file
from harness.recording._deadline import DeadlineBackend, deadline
from harness.recording._modes import RECORD_MODES

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
_MATCH_ON = ("method", "uri", "body")


class _CassetteLoader(SafeLoader):  # type: ignore[misc]
    """Safe YAML plus the benign Python tags old vcrpy versions wrote (as vcrpy reads them)."""


def _python_str(loader: Any, node: Any) -> Any:
    return loader.construct_scalar(node)


def _python_tuple(loader: Any, node: Any) -> Any:
    return tuple(loader.construct_sequence(node))


for _tag, _make in (("str", _python_str), ("unicode", _python_str), ("tuple", _python_tuple)):
    _CassetteLoader.add_constructor(f"tag:yaml.org,2002:python/{_tag}", _make)


class _AsIs:
    """A vcrpy "serializer" that hands over data the YAML helper has already read."""

    @staticmethod
    def deserialize(data: Any) -> Any:
        return data


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
    request.uri = _recorded_uri(request.uri)
    return request


def _recorded_uri(uri: str) -> str:
    """``uri`` as a cassette keeps it: no userinfo, no key-like query parameter."""
    parts = urlsplit(uri)
    if "@" in parts.netloc:  # a password in the base_url: never recorded
        parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])
        uri = urlunsplit(parts)
    if parts.query:
        kept = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not SECRET_QUERY_NAME.search(k)
        ]
        uri = urlunsplit(parts._replace(query=urlencode(kept)))
    return uri


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
    except (ValueError, TypeError, RecursionError):
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
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.serialize import deserialize

        path = Path(cassette_path)
        if not path.is_file():
            raise CassetteNotFoundError()
        data = load_yaml_file(path, loader=_CassetteLoader)
        if not data:  # an empty file is a missing cassette, as in vcrpy and Ruby VCR
            raise CassetteNotFoundError()
        _vcrpy_pairs(data, str(path))  # refuses a malformed cassette with one clear error
        try:
            return deserialize(data, _AsIs)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"not a vcrpy cassette: {exc}", source=str(path)) from None

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
    pool = getattr(transport, "_pool", None)  # httpcore's pool: every socket under a deadline
    if pool is not None and hasattr(pool, "_network_backend"):
        pool._network_backend = DeadlineBackend(pool._network_backend)
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
        # the client's timeout is the call's total deadline: connect and every read together
        total = (request.extensions.get("timeout") or {}).get("read")
        with deadline(total):
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


def read_cassette(path: Path, *, max_bytes: int | None = None) -> list[Interaction]:
    """The (request, response) pairs of a vcrpy cassette, as plain data.

    A Ruby VCR cassette (``http_interactions:``, as the agentic gem records) is read too.
    Replay reads cassettes through the YAML helper (LibYAML) directly: importing vcrpy (which
    imports every HTTP library it can patch) would cost more than replaying a thousand
    cassettes. The benign Python tags of old vcrpy versions are read as vcrpy reads them.

    Raises:
        InputError: the file is unreadable, larger than ``max_bytes`` (default: the limit in
            force) or not a cassette.
    """
    data = load_yaml_file(path, max_bytes=max_bytes, loader=_CassetteLoader)
    if isinstance(data, dict) and "http_interactions" in data:
        return _ruby_vcr_pairs(data["http_interactions"], str(path))
    return _vcrpy_pairs(data, str(path))


def _vcrpy_pairs(data: Any, source: str) -> list[Interaction]:
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise InputError("no 'interactions' list (not a vcrpy cassette)", source=source)
    pairs: list[Interaction] = []
    for index, item in enumerate(data["interactions"]):
        pairs.append(_pair(item, source, f"/interactions/{index}"))
    return pairs


def _ruby_vcr_pairs(items: Any, source: str) -> list[Interaction]:
    """Ruby VCR's ``http_interactions`` (the agentic gem's cassettes) in vcrpy's shape."""
    if not isinstance(items, list):
        raise InputError("'http_interactions' is not a list", source=source)
    pairs: list[Interaction] = []
    for index, item in enumerate(items):
        request, response = _pair(item, source, f"/http_interactions/{index}")
        request = dict(request)
        body = request.get("body")
        request["body"] = body.get("string") if isinstance(body, dict) else body
        pairs.append((request, response))
    return pairs


def _pair(item: Any, source: str, where: str) -> Interaction:
    """The request and response mappings of one recorded interaction."""
    if not isinstance(item, dict):
        raise InputError(
            f"an interaction is a {type(item).__name__}, not a mapping with a request and a "
            "response",
            source=source,
            location=where,
        )
    for part in ("request", "response"):
        if not isinstance(item.get(part), dict):
            raise InputError(
                f"the {part} is missing or not a mapping", source=source, location=where
            )
    return item["request"], item["response"]


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
    data = loads(_body_text(response), source="cassette", what="the recorded response body")
    if not isinstance(data, dict):
        raise InputError(
            f"the recorded response body is a JSON {type(data).__name__}, not an object",
            source="cassette",
        )
    return data


def _body_text(response: dict[str, Any]) -> str:
    """A recorded response body as text, decompressed if it was stored compressed."""
    body = response.get("body") or {}
    raw = body.get("string", b"") if isinstance(body, dict) else body
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    if not isinstance(raw, bytes | bytearray):
        raise InputError("the recorded response body is not text", source="cassette")
    found = response.get("headers")
    headers = {str(k).lower(): v for k, v in found.items()} if isinstance(found, dict) else {}
    encoding = headers.get("content-encoding") or []
    encoding = encoding if isinstance(encoding, list) else [encoding]
    try:
        if "gzip" in encoding:
            raw = gzip.decompress(raw)
        elif "deflate" in encoding:
            raw = zlib.decompress(raw)
    except (OSError, EOFError, zlib.error):
        raise InputError(
            "the recorded response body cannot be decompressed", source="cassette"
        ) from None
    return bytes(raw).decode("utf-8", "replace")


def _differences(stored: dict[str, Any], expected: tuple[str, str, dict[str, Any]]) -> list[str]:
    method, uri, body = expected
    differs = []
    if str(stored.get("method", "")).upper() != method:
        differs.append("method")
    if stored.get("uri") not in (uri, _recorded_uri(uri)):  # a recording never holds credentials
        differs.append("uri")
    raw = stored.get("body")
    try:
        same = (json.loads(raw) == body) if raw else not body
    except (ValueError, TypeError, RecursionError):
        same = False
    if not same:
        differs.append("body")
    return differs
