"""What the HTTP providers (OpenAI, Anthropic) share: keys, SDK import, error mapping."""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from harness._redaction import credentials, redact, redact_url, remember, remember_url
from harness.providers._base import ProviderError, ProviderSetupError
from harness.providers._retry import parse_retry_after
from harness.recording import cassette_transport
from harness.suite import ModelSpec

__all__ = ["HttpProvider", "close_thread_clients", "plan_json_schema"]

_LOCAL = threading.local()
"""Per-thread SDK clients (and their cassette transports), reused across calls."""


def close_thread_clients() -> None:
    """Close the SDK clients (and their connections) this thread has opened."""
    clients: dict[tuple[object, ...], tuple[Any, Any]] = _LOCAL.__dict__.pop("clients", {})
    for client, _transport in clients.values():
        client.close()


def plan_json_schema() -> dict[str, Any]:
    """The plan schema as structured-output requests carry it (no ``$schema`` / ``$id``)."""
    from harness.schemas import load_schema

    schema = dict(load_schema("plan"))
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    return schema


class HttpProvider(ABC):
    """A provider reached over HTTP through its official SDK and recorded as a cassette."""

    name: str = ""
    """The provider name in suite files."""
    sdk: str = ""
    """The SDK's import name (also the planeval extra that installs it)."""
    key_env: str = ""
    """The default environment variable of the API key."""
    default_base_url: str = ""
    """The vendor's endpoint."""
    path: str = ""
    """The endpoint path under the base URL."""

    # -- what a request is ------------------------------------------------------------------
    def base_url(self, model: ModelSpec) -> str:
        """The base URL requests go to."""
        return (model.base_url or self.default_base_url).rstrip("/")

    def url(self, model: ModelSpec) -> str:
        """The full URL of the request (what the cassette matches on)."""
        return self.base_url(model) + self.path

    @abstractmethod
    def request_body(self, model: ModelSpec, prompt: str) -> dict[str, Any]:
        """The JSON body sent for ``prompt`` (what the cassette matches on)."""

    # -- before any request -----------------------------------------------------------------
    def key_variable(self, model: ModelSpec) -> str:
        """The environment variable that must hold the API key."""
        return model.api_key_env or self.key_env

    def preflight(self, model: ModelSpec, env: Mapping[str, str] | None = None) -> str:
        """Check the SDK is installed and the API key is set; return the key.

        Raises:
            ProviderSetupError: one line naming what to install or which variable to set.
        """
        self.import_sdk(model)
        variable = self.key_variable(model)
        key = (os.environ if env is None else env).get(variable, "")
        if not key:
            raise ProviderSetupError(
                f"model {model.id!r} needs an API key for live mode: set {variable}",
                hint=f"or replay the recordings without --live (key variable: {variable})",
            )
        remember(key)  # from now on no sink writes or prints it
        remember_url(self.url(model))
        return key

    def import_sdk(self, model: ModelSpec) -> ModuleType:
        """Import the SDK or raise a one-line ``ProviderSetupError`` naming the extra."""
        try:
            return importlib.import_module(self.sdk)
        except ImportError:
            raise ProviderSetupError(
                f"model {model.id!r} uses provider {self.name!r}, which needs the {self.sdk!r} "
                f"package: pip install 'planeval[{self.sdk}]'",
            ) from None

    # -- the call ---------------------------------------------------------------------------
    def http_module(self, model: ModelSpec) -> ModuleType:
        """The httpx-compatible module the SDK is built on (``httpx`` or ``httpx2``)."""
        sdk = self.import_sdk(model)
        client_class = sdk.DefaultHttpxClient
        base = next(c for c in client_class.__mro__ if c.__name__ == "Client")
        return sys.modules[base.__module__.split(".")[0]]

    def send(
        self, model: ModelSpec, body: dict[str, Any], *, api_key: str, cassette: Any
    ) -> dict[str, Any]:
        """Send ``body`` through the SDK (no SDK retries) and return the JSON response body.

        The call goes through ``cassette`` (a vcrpy cassette: it records or plays back).
        Each thread keeps one client per endpoint and key, so connections are reused.

        Raises:
            ProviderError: a status error, timeout, dropped connection or non-JSON body.
        """
        sdk = self.import_sdk(model)
        client, transport = self._thread_client(sdk, model, api_key)
        transport.cassette = cassette
        url = self.url(model)
        shown = redact_url(url)  # what messages print: never a password or key from the URL
        secrets = credentials(url, self.base_url(model), api_key=api_key)  # servers quote them
        try:
            # the SDK's documented call for any endpoint: our exact body, the SDK's auth,
            # headers, timeouts and error types (its typed methods re-walk the body's types)
            raw = client.post(self.path, body=body, cast_to=self.http_module(model).Response)
        except sdk.APIStatusError as exc:
            status = exc.status_code
            raise ProviderError(
                f"HTTP {status} from {shown}: {_short(_scrubbed(exc.message, url, secrets))}",
                retryable=status in (408, 409, 429) or status >= 500,
                retry_after=parse_retry_after(exc.response.headers),
                status=status,
            ) from None
        except sdk.APITimeoutError:
            raise ProviderError(
                f"timed out after {model.timeout:g}s waiting for {shown}",
                retryable=True,
            ) from None
        except sdk.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise ProviderError(
                f"connection to {shown} failed: {_short(_scrubbed(str(cause), url, secrets))}",
                retryable=True,
            ) from None
        finally:
            transport.cassette = None
        text = raw.text
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise ProviderError(
                f"{shown} answered with a body that is not JSON: "
                f"{_short(_scrubbed(text, url, secrets))!r}",
                retryable=True,
            ) from None
        if not isinstance(data, dict):
            raise ProviderError(
                f"{shown} answered with a JSON {type(data).__name__}, not an object",
                retryable=True,
            )
        return data

    def _thread_client(self, sdk: ModuleType, model: ModelSpec, api_key: str) -> tuple[Any, Any]:
        clients: dict[tuple[object, ...], tuple[Any, Any]] = _LOCAL.__dict__.setdefault(
            "clients", {}
        )
        key = (self.name, self.base_url(model), api_key, model.timeout)
        found = clients.get(key)
        if found is None:
            transport = cassette_transport(self.http_module(model))
            http_client = sdk.DefaultHttpxClient(transport=transport, timeout=model.timeout)
            found = clients[key] = (self._client(sdk, model, api_key, http_client), transport)
        return found

    def batch_client(self, model: ModelSpec, api_key: str) -> Any:
        """A plain SDK client (no cassette) for the vendor's batch API (``harness.batch``)."""
        sdk = self.import_sdk(model)
        remember(api_key)
        remember_url(self.url(model))
        http_client = sdk.DefaultHttpxClient(timeout=model.timeout)
        return self._client(sdk, model, api_key, http_client)

    @abstractmethod
    def _client(self, sdk: ModuleType, model: ModelSpec, api_key: str, http_client: Any) -> Any:
        """The SDK client for ``model`` over ``http_client``."""


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _scrubbed(text: str, url: str, secrets: set[str]) -> str:
    """``text`` with the URL redacted and every credential in ``secrets`` removed."""
    return redact(text.replace(url, redact_url(url)), secrets)
