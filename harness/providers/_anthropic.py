"""The ``anthropic`` provider: the official SDK; structured output through tool use."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness.providers._http import HttpProvider, plan_json_schema
from harness.suite import ModelSpec

__all__ = ["PLAN_TOOL", "AnthropicProvider"]

PLAN_TOOL = "submit_plan"
"""The tool the model is made to call with the plan as its input."""


class AnthropicProvider(HttpProvider):
    """Messages API; the plan comes back as the input of a forced ``submit_plan`` tool call."""

    name = "anthropic"
    sdk = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    default_base_url = "https://api.anthropic.com"
    path = "/v1/messages"

    def request_body(self, model: ModelSpec, prompt: str) -> dict[str, Any]:
        """``{model, max_tokens, messages, **params, tools, tool_choice}``."""
        body: dict[str, Any] = {
            "model": model.model,
            "max_tokens": 4096,
            "messages": [{"role": "user", "content": prompt}],
            **model.params,
        }
        if model.structured_output and "tools" not in body:
            body["tools"] = [
                {
                    "name": PLAN_TOOL,
                    "description": "Submit the plan: tasks with ids, dependencies and needs.",
                    "input_schema": plan_json_schema(),
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": PLAN_TOOL}
        return body

    def _client(self, sdk: ModuleType, model: ModelSpec, api_key: str, http_client: Any) -> Any:
        return sdk.Anthropic(
            api_key=api_key,
            base_url=self.base_url(model),
            max_retries=0,
            timeout=model.timeout,
            http_client=http_client,
        )
