"""Credentials in cassettes and URLs, found so that none of them is written or printed.

``redact_url`` is what every place that prints or stores a URL (provider errors, result rows)
uses: a password in the userinfo and key-like query values become ``<REDACTED>``.

The importers write only what they choose (a planner's answer, its model and parameters, the
prompt), never headers. These helpers are the second line of defence: every value of a
credential-bearing header or key-like query parameter is collected and redacted from the text
about to be written, should it appear there (a planner echoing its key, an organization id in
a prompt).

One layer at every sink: each credential the process learns (an API key read for a call, a
``base_url``'s password and its HTTP Basic form, key-like query values, environment variables
named like credentials) is ``remember``-ed here, and every sink scrubs what it writes with
``scrub``: atomic file writes (recordings, run.json, batch.json, reports), the rows of
results.jsonl, journal lines, and the CLI's stdout and stderr (``ScrubbingStream``). Values
shorter than ``MIN_SECRET`` characters are not treated as secrets: replacing them would mangle
ordinary text and they protect nothing.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, TextIO
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlencode, urlsplit, urlunsplit

__all__ = [
    "CREDENTIAL_VARIABLE",
    "MIN_SECRET",
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_QUERY_NAME",
    "ScrubbingStream",
    "credentials",
    "known_secrets",
    "redact",
    "redact_url",
    "remember",
    "remember_environment",
    "remember_url",
    "scrub",
    "scrub_bytes",
    "secrets_of",
    "url_secrets",
]

SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key",
     "openai-organization", "openai-project", "anthropic-organization-id"}
)  # fmt: skip
"""Headers whose values are credentials or identify an account."""
SECRET_QUERY_NAME = re.compile(r"key|token|secret|passw|auth|sig|credential|session", re.IGNORECASE)
"""Query parameter names whose values are credentials: never recorded, always redacted."""
REDACTED = "<REDACTED>"


def secrets_of(interactions: list[dict[str, Any]]) -> set[str]:
    """Every credential-looking value in the cassette (header values, key-like query params)."""
    found: set[str] = set()
    for interaction in interactions:
        for part in (interaction.get("request") or {}, interaction.get("response") or {}):
            for key, value in (part.get("headers") or {}).items():
                header = str(key).lower()
                if header in SECRET_HEADERS:
                    for item in value if isinstance(value, list) else [value]:
                        found.update(_values(header, str(item)))
        uri = str((interaction.get("request") or {}).get("uri", ""))
        for key, value in parse_qsl(urlsplit(uri).query):
            if SECRET_QUERY_NAME.search(key):
                found.add(value)
    return {s for s in found if len(s) >= 8}


def _values(header: str, value: str) -> list[str]:
    """The secret parts of a header value: the token after ``Bearer``, the cookie values (not
    cookie attributes such as ``path`` or ``expires``), else the whole value."""
    value = value.strip()
    if header.endswith("authorization"):
        return [value, value.split(None, 1)[-1]]
    if header == "cookie":
        pairs = [p.strip() for p in value.split(";")]
    elif header == "set-cookie":
        pairs = [value.split(";", 1)[0].strip()]
    else:
        return [value]
    return [v for pair in pairs for v in (pair, pair.partition("=")[2]) if v]


def redact(text: str, secrets: set[str]) -> str:
    """``text`` with every secret (longest first) replaced by ``<REDACTED>``."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def redact_url(url: str) -> str:
    """``url`` fit to print or store: a password in its userinfo and the values of key-like
    query parameters (``api_key``, ``token``, ``sig``...) replaced by ``<REDACTED>``.

    ``https://user:pw@host/v1?key=abc&x=1`` becomes
    ``https://user:<REDACTED>@host/v1?key=<REDACTED>&x=1``.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, sep, _ = userinfo.partition(":")
        netloc = f"{user}:{REDACTED}@{host}" if sep else f"{REDACTED}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(SECRET_QUERY_NAME.search(k) for k, _ in pairs):
            query = urlencode(
                [(k, REDACTED if SECRET_QUERY_NAME.search(k) else v) for k, v in pairs], safe="<>"
            )
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def url_secrets(url: str) -> set[str]:
    """The credentials in ``url``: the userinfo password (or bare token), key-like query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return set()
    found = {v for k, v in parse_qsl(parts.query) if SECRET_QUERY_NAME.search(k) and v}
    if parts.password:
        found.add(parts.password)
    elif parts.username and "@" in parts.netloc:
        found.add(parts.username)
    return {s for s in found if len(s) >= 4}


def credentials(*urls: str | None, api_key: str | None = None) -> set[str]:
    """Every credential a call carries, to redact from what a server answers.

    Each URL's (``url_secrets``, and the HTTP Basic token its userinfo becomes) and the API
    key: a server may quote them back (an error naming the key it refused, a 404 quoting the
    requested path and its query).
    """
    found = {secret for url in urls if url for secret in url_secrets(url)}
    for url in urls:  # userinfo goes out as HTTP Basic auth: its base64 is the password too
        parts = urlsplit(url or "")
        if parts.password:
            userinfo = f"{unquote(parts.username or '')}:{unquote(parts.password)}"
            found.add(base64.b64encode(userinfo.encode()).decode())
    if api_key and len(api_key) >= 4:
        found.add(api_key)
    return found


# -- the process-wide book of known credentials, and the sinks' scrubber -----------------------

MIN_SECRET = 8
"""Shorter values are never scrubbed from output (they would mangle ordinary text)."""
CREDENTIAL_VARIABLE = re.compile(
    r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(?:$|_)", re.IGNORECASE
)
"""Environment variable names whose values are credentials (``OPENAI_API_KEY``, ``HF_TOKEN``)."""

_BOOK_LOCK = threading.Lock()
_KNOWN: frozenset[str] = frozenset()
_TEXT: re.Pattern[str] | None = None
_BYTES: re.Pattern[bytes] | None = None


def _forms(secret: str) -> set[str]:
    """How ``secret`` may appear in text: as is, URL-quoted, and escaped inside JSON."""
    return {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1]}


def remember(*values: str | None) -> None:
    """Add credentials to the process's book: every sink scrubs them from then on."""
    global _KNOWN, _TEXT, _BYTES
    fresh = {
        form
        for value in values
        if value and len(value) >= MIN_SECRET and value not in _KNOWN
        for form in _forms(value)
    }
    if not fresh:
        return
    with _BOOK_LOCK:
        known = _KNOWN | fresh
        ordered = sorted(known, key=len, reverse=True)  # the longest form wins an overlap
        _TEXT = re.compile("|".join(map(re.escape, ordered)))
        _BYTES = re.compile(b"|".join(re.escape(s.encode("utf-8")) for s in ordered))
        _KNOWN = frozenset(known)


def remember_url(url: str | None) -> None:
    """Remember the credentials ``url`` carries: its password (as written and decoded), its
    HTTP Basic form, key-like query values (as written and decoded)."""
    if not url:
        return
    found = credentials(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    raw = [
        value
        for pair in parts.query.split("&")
        for name, _, value in [pair.partition("=")]
        if SECRET_QUERY_NAME.search(unquote(name))
    ]
    if parts.password:
        found.add(unquote(parts.password))
    remember(*found, *raw, *(unquote(v) for v in found | set(raw)))


def remember_environment(environ: Mapping[str, str]) -> None:
    """Remember the values of environment variables named like credentials."""
    remember(*(v for k, v in environ.items() if CREDENTIAL_VARIABLE.search(k)))


def known_secrets() -> frozenset[str]:
    """Every credential form the book holds (for tests and per-call redaction)."""
    return _KNOWN


def scrub(text: str) -> str:
    """``text`` with every remembered credential replaced by ``<REDACTED>``."""
    pattern = _TEXT
    return text if pattern is None else pattern.sub(REDACTED, text)


def scrub_bytes(data: bytes) -> bytes:
    """``scrub`` for UTF-8 bytes (journal lines, files written by other code)."""
    pattern = _BYTES
    return data if pattern is None else pattern.sub(REDACTED.encode(), data)


class ScrubbingStream:
    """A text stream (stdout, stderr) that scrubs remembered credentials from each write.

    It has no ``buffer``: whoever writes to the console writes text, through ``write``.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    @property
    def wrapped(self) -> TextIO:
        """The underlying stream."""
        return self._stream

    def write(self, text: str) -> int:
        """Write ``text`` with every remembered credential replaced."""
        self._stream.write(scrub(text) if isinstance(text, str) else text)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        """Write each line through ``write``."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":  # raw bytes would bypass the scrubbing
            raise AttributeError(name)
        return getattr(self._stream, name)
