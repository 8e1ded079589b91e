"""Planner providers: who answers a prompt in live mode, and how answers are read back.

``openai`` and ``anthropic`` go through the official SDKs (optional extras) and are recorded as
vcrpy cassettes; ``command`` runs an executable and is recorded as response files; ``dataset``
has recordings only (imported answers) and can never be re-recorded.

The providers load on first use, so that reading a run's token counts (``harness.cost``, and
through it ``planeval report``) does not import the HTTP and recording machinery.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from harness._lazy import lazy_attributes

if TYPE_CHECKING:
    from harness.providers._anthropic import PLAN_TOOL, AnthropicProvider
    from harness.providers._base import (
        Answer,
        ProviderError,
        ProviderSetupError,
        answer_from_body,
    )
    from harness.providers._command import CommandProvider
    from harness.providers._http import HttpProvider, close_thread_clients, plan_json_schema
    from harness.providers._openai import OpenAIProvider
    from harness.providers._retry import RetryPolicy, parse_retry_after, with_retries

_LAZY = {
    "_anthropic": ("PLAN_TOOL", "AnthropicProvider"),
    "_base": ("Answer", "ProviderError", "ProviderSetupError", "answer_from_body"),
    "_command": ("CommandProvider",),
    "_http": ("HttpProvider", "close_thread_clients", "plan_json_schema"),
    "_openai": ("OpenAIProvider",),
    "_retry": ("RetryPolicy", "parse_retry_after", "with_retries"),
}
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())

__all__ = [
    "PLAN_TOOL",
    "Answer",
    "AnthropicProvider",
    "CommandProvider",
    "HttpProvider",
    "OpenAIProvider",
    "ProviderError",
    "ProviderSetupError",
    "RetryPolicy",
    "answer_from_body",
    "close_thread_clients",
    "http_provider",
    "parse_retry_after",
    "plan_json_schema",
    "with_retries",
]

_HTTP: dict[str, HttpProvider] = {}
_HTTP_LOCK = threading.Lock()


def http_provider(name: str) -> HttpProvider | None:
    """The HTTP provider called ``name`` (``openai``, ``anthropic``), or None."""
    with _HTTP_LOCK:
        if not _HTTP:
            from harness.providers._anthropic import AnthropicProvider
            from harness.providers._openai import OpenAIProvider

            _HTTP.update(openai=OpenAIProvider(), anthropic=AnthropicProvider())
    return _HTTP.get(name)
