"""A total deadline for a planner call: connect, send and every read, together.

httpx's timeouts are per operation: a server that trickles its body one byte at a time can hold
a call (and a worker) for ever without any single read timing out. The cassette transport sets
a deadline for the thread's request (``deadline``); the network backend below gives every
socket operation at most the time left, so the call ends with the SDK's ordinary timeout error
once the deadline has passed, however the server paces its bytes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["DeadlineBackend", "deadline"]

_LOCAL = threading.local()
_EXPIRED = 1e-3
"""The timeout given to a socket operation once the deadline has passed (it then times out)."""


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, this thread's socket operations end ``seconds`` from now at most."""
    previous = getattr(_LOCAL, "at", None)
    _LOCAL.at = None if seconds is None else time.monotonic() + seconds
    try:
        yield
    finally:
        _LOCAL.at = previous


def _capped(timeout: float | None) -> float | None:
    at: float | None = getattr(_LOCAL, "at", None)
    if at is None:
        return timeout
    left = max(at - time.monotonic(), _EXPIRED)
    return left if timeout is None else min(timeout, left)


class _Stream:
    """A network stream whose every operation waits at most until the deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = self._inner.read(max_bytes, timeout=_capped(timeout))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout=_capped(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> _Stream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _capped(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend:
    """An httpcore network backend (wrapping the default one) that honours ``deadline``."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> _Stream:
        stream = self._inner.connect_tcp(
            host,
            port,
            timeout=_capped(timeout),
            local_address=local_address,
            socket_options=socket_options,
        )
        return _Stream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> _Stream:
        stream = self._inner.connect_unix_socket(
            path, timeout=_capped(timeout), socket_options=socket_options
        )
        return _Stream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)
