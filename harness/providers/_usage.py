"""Token usage as the providers report it, in one shape for recordings, rows and costs.

``{"input": n, "output": n}`` always (when the provider reported usage at all), plus
``cached_input``, ``cache_write_input`` and ``reasoning`` only when the provider reports them:

- OpenAI chat completions: ``prompt_tokens`` (cached ones included),
  ``prompt_tokens_details.cached_tokens``, ``completion_tokens`` (reasoning included),
  ``completion_tokens_details.reasoning_tokens``.
- Anthropic messages: ``input_tokens`` counts only the uncached prompt tokens, so ``input`` is
  ``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``, ``cached_input``
  is ``cache_read_input_tokens`` and ``cache_write_input`` is ``cache_creation_input_tokens``
  (billed above the input rate); ``output_tokens`` includes thinking, which the API does not
  report apart (no ``reasoning`` key).

A body without usage gives None: unknown, never zero.
"""

from __future__ import annotations

from typing import Any

__all__ = ["USAGE_KEYS", "usage_from_body"]

USAGE_KEYS: tuple[str, ...] = ("input", "output", "cached_input", "cache_write_input", "reasoning")
"""The keys a usage dict may have, in display order."""


def usage_from_body(body: Any) -> dict[str, int] | None:
    """The usage of an OpenAI chat completion or Anthropic message body, or None."""
    if not isinstance(body, dict) or not isinstance(body.get("usage"), dict):
        return None
    usage = body["usage"]
    if "prompt_tokens" in usage or "completion_tokens" in usage:
        tokens = {
            "input": _int(usage.get("prompt_tokens")),
            "output": _int(usage.get("completion_tokens")),
        }
        cached = _detail(usage, "prompt_tokens_details", "cached_tokens")
        reasoning = _detail(usage, "completion_tokens_details", "reasoning_tokens")
        if cached is not None:
            tokens["cached_input"] = cached
        if reasoning is not None:
            tokens["reasoning"] = reasoning
        return tokens
    if "input_tokens" in usage or "output_tokens" in usage:
        read = usage.get("cache_read_input_tokens")
        written = usage.get("cache_creation_input_tokens")
        tokens = {
            "input": _int(usage.get("input_tokens")) + _int(read) + _int(written),
            "output": _int(usage.get("output_tokens")),
        }
        if read is not None:
            tokens["cached_input"] = _int(read)
        if written is not None:
            tokens["cache_write_input"] = _int(written)
        return tokens
    return None


def _detail(usage: dict[str, Any], group: str, key: str) -> int | None:
    details = usage.get(group)
    if not isinstance(details, dict) or details.get(key) is None:
        return None
    return _int(details[key])


def _int(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0
