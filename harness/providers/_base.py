"""What every provider shares: the answer record, the errors and the body readers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness._errors import InfrastructureError, InputError
from harness.providers._usage import usage_from_body

__all__ = ["Answer", "ProviderError", "ProviderSetupError", "answer_from_body"]


@dataclass(frozen=True, slots=True)
class Answer:
    """What a planner answered for one prompt."""

    text: str
    """The answer as text (for structured output: the plan's JSON)."""
    tokens: dict[str, int] | None = None
    """Token usage when the provider reported it: ``input`` (every prompt token, cached ones
    included) and ``output`` (reasoning included), plus ``cached_input`` and ``reasoning``
    when the provider reports them (see ``harness.cost.usage_from_body``)."""
    latency_ms: float | None = None
    """How long the planner took, when measured."""


class ProviderError(InfrastructureError):
    """A planner call that failed for reasons that are nobody's plan (network, 5xx, ...).

    Attributes:
        retryable: True for 429, 5xx, timeouts, dropped connections and garbled bodies.
        retry_after: seconds the server asked us to wait (``Retry-After``), or None.
        status: the HTTP status, when there was a response.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status


class ProviderSetupError(InputError):
    """A live call that cannot even start: a missing SDK, API key or executable."""


def answer_from_body(body: Any) -> Answer:
    """The answer inside an OpenAI chat completion or an Anthropic message body.

    Structured answers (a tool call, Anthropic ``tool_use``) become their JSON text, so that
    replay and live runs parse exactly the same string. One call gives its arguments (a plan
    delivered through a tool); several calls in one answer are parallel calls, each a task:
    they give the whole OpenAI ``tool_calls`` array or the Anthropic ``tool_use`` blocks, which
    the ``openai_tool_calls`` / ``anthropic_tool_use`` readers read call by call.

    Raises:
        ValueError: the body is neither shape.
    """
    if not isinstance(body, dict):
        raise ValueError(f"the response body is a JSON {type(body).__name__}, not an object")
    if isinstance(body.get("choices"), list):
        return _from_chat_completion(body)
    if isinstance(body.get("content"), list):
        return _from_anthropic_message(body)
    raise ValueError("the response body is neither a chat completion nor an Anthropic message")


def _from_chat_completion(body: dict[str, Any]) -> Answer:
    if not body["choices"]:
        raise ValueError("the chat completion has no choices")
    message = body["choices"][0].get("message") or {}
    calls = message.get("tool_calls") or []
    if isinstance(calls, list) and len(calls) > 1:
        return Answer(text=json.dumps(calls, ensure_ascii=False), tokens=usage_from_body(body))
    text = message.get("content")
    if not text and calls and isinstance(calls[0], dict):
        text = (calls[0].get("function") or {}).get("arguments")
    if not text:
        text = message.get("refusal") or ""
    return Answer(text=str(text), tokens=usage_from_body(body))


def _from_anthropic_message(body: dict[str, Any]) -> Answer:
    blocks = [b for b in body["content"] if isinstance(b, dict)]
    tools = [b for b in blocks if b.get("type") == "tool_use"]
    if len(tools) > 1:
        text = json.dumps(tools, ensure_ascii=False)
    elif tools:
        text = json.dumps(tools[0].get("input"), ensure_ascii=False)
    else:
        text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    return Answer(text=text, tokens=usage_from_body(body))
