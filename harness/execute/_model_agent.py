"""An example agent that performs each task by asking a model (OpenAI-compatible API).

Works with the OpenAI API and any OpenAI-compatible server (Ollama, vLLM, llama.cpp) through
the official ``openai`` SDK. The SDK's own retries are off: the executor owns the retry
budget, so an attempt in the journal is one request. The idempotency key goes out as the
``Idempotency-Key`` header; the API key is read from an environment variable and never
reaches the journal.
"""

from __future__ import annotations

import json
import os
from typing import Any

from harness._redaction import credentials, redact, remember
from harness.execute._context import Agent, TaskContext, TaskError, reads

__all__ = ["make_model_agent", "model_agent"]

_SYSTEM = (
    "You carry out one task of a plan. Use the inputs you are given. "
    "Reply with the task's result only."
)
_AGENTS: dict[tuple[str, str | None, str], Agent] = {}
_NOT_RETRYABLE = frozenset(
    {
        "AuthenticationError",
        "BadRequestError",
        "PermissionDeniedError",
        "NotFoundError",
        "UnprocessableEntityError",
    }
)


def make_model_agent(
    *,
    model: str,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    temperature: float | None = None,
    max_tokens: int | None = None,
    request_timeout: float = 120.0,
) -> Agent:
    """An agent that sends each task (description, agent instructions, inputs) to a model.

    Args:
        model: the model name the server knows (``gpt-4o-mini``, ``qwen2.5:7b``, ...).
        base_url: the OpenAI-compatible endpoint (``http://localhost:11434/v1``); None for
            the OpenAI API.
        api_key_env: the environment variable that holds the API key; an empty name sends
            no key (local servers).
        temperature: sampling temperature, or the server's default.
        max_tokens: cap on the reply, or the server's default.
        request_timeout: seconds the SDK waits for a reply.

    The output of a task is ``{"text", "model", "finish_reason", "usage"}``.
    """
    clients: dict[str, Any] = {}

    @reads("task", "inputs", "goal")  # the prompt has the goal, the task and its inputs
    def agent(context: TaskContext) -> dict[str, Any]:
        client = clients.get("client")
        if client is None:
            client = clients["client"] = _client(base_url, api_key_env, request_timeout)
            key = os.environ.get(api_key_env) if api_key_env else None
            clients["secrets"] = credentials(base_url, api_key=key)
            remember(*clients["secrets"])  # the journal and the output scrub them too
        params: dict[str, Any] = {}
        if temperature is not None:
            params["temperature"] = temperature
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        try:
            response = client.chat.completions.create(
                model=model,
                messages=_messages(context),
                extra_headers={"Idempotency-Key": context.idempotency_key},
                **params,
            )
        except Exception as exc:
            kind = type(exc).__name__
            raise TaskError(  # the journal and the progress lines get it: no credential
                f"the model call failed: {redact(str(exc), clients['secrets'])}",
                retryable=kind not in _NOT_RETRYABLE,
                error_type=kind,
            ) from exc
        choice = response.choices[0] if response.choices else None
        usage = response.usage
        return {
            "text": choice.message.content if choice is not None else None,
            "model": response.model,
            "finish_reason": choice.finish_reason if choice is not None else None,
            "usage": {
                "prompt_tokens": usage.prompt_tokens if usage else None,
                "completion_tokens": usage.completion_tokens if usage else None,
            },
        }

    agent.preflight = lambda: _require_client(api_key_env)  # type: ignore[attr-defined]
    return agent


def _require_client(api_key_env: str) -> None:
    """Raise ``TaskError`` when the SDK or the API key is missing (before any task)."""
    _client(None, api_key_env, 1.0)


def _model_agent_preflight() -> None:
    if not os.environ.get("PLANEVAL_AGENT_MODEL"):
        raise TaskError(
            "set PLANEVAL_AGENT_MODEL to the model name for harness.execute:model_agent",
            retryable=False,
            error_type="ConfigurationError",
        )
    _require_client(os.environ.get("PLANEVAL_AGENT_API_KEY_ENV", "OPENAI_API_KEY"))


@reads("task", "inputs", "goal")
def model_agent(context: TaskContext) -> dict[str, Any]:
    """``--agent harness.execute:model_agent``, configured by environment variables.

    ``PLANEVAL_AGENT_MODEL`` (required), ``PLANEVAL_AGENT_BASE_URL`` (optional) and
    ``PLANEVAL_AGENT_API_KEY_ENV`` (the variable holding the key; default
    ``OPENAI_API_KEY``).
    """
    model = os.environ.get("PLANEVAL_AGENT_MODEL")
    if not model:
        raise TaskError(
            "set PLANEVAL_AGENT_MODEL to the model name for harness.execute:model_agent",
            retryable=False,
            error_type="ConfigurationError",
        )
    base_url = os.environ.get("PLANEVAL_AGENT_BASE_URL") or None
    key_env = os.environ.get("PLANEVAL_AGENT_API_KEY_ENV", "OPENAI_API_KEY")
    agent = _AGENTS.get((model, base_url, key_env))
    if agent is None:
        agent = make_model_agent(model=model, base_url=base_url, api_key_env=key_env)
        _AGENTS[(model, base_url, key_env)] = agent
    result: dict[str, Any] = agent(context)
    return result


def _client(base_url: str | None, api_key_env: str, timeout: float) -> Any:
    try:
        import openai
    except ImportError:  # pragma: no cover - openai is an optional dependency
        raise TaskError(
            "the model agent needs the openai package: pip install 'planeval[openai]'",
            retryable=False,
            error_type="ConfigurationError",
        ) from None
    if api_key_env:
        key = os.environ.get(api_key_env)
        if not key:
            raise TaskError(
                f"the environment variable {api_key_env} (the API key) is not set",
                retryable=False,
                error_type="ConfigurationError",
            )
    else:
        key = "unused"
    return openai.OpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=timeout)


def _messages(context: TaskContext) -> list[dict[str, str]]:
    task = context.task
    system = _SYSTEM
    if task.agent and isinstance(task.agent.get("instructions"), str):
        system = f"{task.agent['instructions']}\n\n{_SYSTEM}"
    parts = []
    if context.plan.goal:
        parts.append(f"Goal of the plan: {context.plan.goal}")
    parts.append(f"Your task: {task.description or task.id}")
    if task.capabilities:
        parts.append("Capabilities: " + ", ".join(task.capabilities))
    if context.inputs:
        inputs = json.dumps(dict(context.inputs), ensure_ascii=False, indent=2, default=str)
        parts.append(f"Inputs (results of earlier tasks, JSON):\n{inputs}")
    for name, failure in context.failed_inputs.items():
        parts.append(f"Input {name!r} is missing: its task failed ({failure.get('error')}).")
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


model_agent.preflight = _model_agent_preflight  # type: ignore[attr-defined]
