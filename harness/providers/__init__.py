"""Planner providers: who answers a prompt in live mode, and how answers are read back.

``openai`` and ``anthropic`` go through the official SDKs (optional extras) and are recorded as
vcrpy cassettes; ``command`` runs an executable and is recorded as response files; ``dataset``
has recordings only (imported answers) and can never be re-recorded.
"""

from __future__ import annotations

from harness.providers._anthropic import PLAN_TOOL, AnthropicProvider
from harness.providers._base import Answer, ProviderError, ProviderSetupError, answer_from_body
from harness.providers._command import CommandProvider
from harness.providers._http import HttpProvider, close_thread_clients, plan_json_schema
from harness.providers._openai import OpenAIProvider
from harness.providers._retry import RetryPolicy, parse_retry_after, with_retries

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

_HTTP: dict[str, HttpProvider] = {"openai": OpenAIProvider(), "anthropic": AnthropicProvider()}


def http_provider(name: str) -> HttpProvider | None:
    """The HTTP provider called ``name`` (``openai``, ``anthropic``), or None."""
    return _HTTP.get(name)
