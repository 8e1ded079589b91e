"""The ``openai`` provider: the official SDK, any OpenAI-compatible server via ``base_url``."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness.providers._http import HttpProvider, plan_json_schema
from harness.suite import ModelSpec

__all__ = ["OpenAIProvider"]


class OpenAIProvider(HttpProvider):
    """Chat completions; structured output through ``response_format`` with the plan schema.

    Servers without structured output (some local ones) take ``structured_output: false``:
    the answer is then free text, which the plan loader still reads.
    """

    name = "openai"
    sdk = "openai"
    key_env = "OPENAI_API_KEY"
    default_base_url = "https://api.openai.com/v1"
    path = "/chat/completions"

    def request_body(self, model: ModelSpec, prompt: str) -> dict[str, Any]:
        """``{model, messages, **params, response_format}``."""
        body: dict[str, Any] = {
            "model": model.model,
            "messages": [{"role": "user", "content": prompt}],
            **model.params,
        }
        if model.structured_output and "response_format" not in body:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "plan", "schema": plan_json_schema(), "strict": False},
            }
        return body

    def _client(self, sdk: ModuleType, model: ModelSpec, api_key: str, http_client: Any) -> Any:
        return sdk.OpenAI(
            api_key=api_key,
            base_url=self.base_url(model),
            max_retries=0,
            timeout=model.timeout,
            http_client=http_client,
        )
