"""Provider request bodies, answer extraction, and the one-line setup errors of live mode."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.plan import load_plan
from harness.providers import (
    PLAN_TOOL,
    AnthropicProvider,
    CommandProvider,
    OpenAIProvider,
    ProviderSetupError,
    answer_from_body,
)
from harness.suite import ModelSpec

GPT = ModelSpec(id="gpt", provider="openai", model="gpt-4o-mini", params={"temperature": 0.7})
PUBLISHED = Path(__file__).parent.parent / "data" / "published"
OPENAI_PARALLEL = "pydantic-ai__test_dbos_test_dbos_agent_with_hitl_tool__0.json"
ANTHROPIC_PARALLEL = "pydantic-ai__test_anthropic_test_multiple_parallel_tool_calls__0.json"
CLAUDE = ModelSpec(id="claude", provider="anthropic", model="claude-x", params={"max_tokens": 900})


class TestRequestBodies:
    def test_openai_asks_for_the_plan_schema(self) -> None:
        """OpenAI requests carry params and response_format with the plan schema."""
        body = OpenAIProvider().request_body(GPT, "plan it")
        assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.7
        assert body["messages"] == [{"role": "user", "content": "plan it"}]
        schema = body["response_format"]["json_schema"]["schema"]
        assert "tasks" in schema["properties"] and "$schema" not in schema

    def test_openai_free_text_when_structured_output_is_off(self) -> None:
        """structured_output: false sends no response_format (local servers)."""
        model = ModelSpec(id="q", provider="openai", model="qwen", structured_output=False)
        assert "response_format" not in OpenAIProvider().request_body(model, "p")

    def test_openai_base_url(self) -> None:
        """base_url points the provider at any OpenAI-compatible server."""
        model = ModelSpec(
            id="q", provider="openai", model="q", base_url="http://localhost:11434/v1/"
        )
        assert OpenAIProvider().url(model) == "http://localhost:11434/v1/chat/completions"
        assert OpenAIProvider().url(GPT) == "https://api.openai.com/v1/chat/completions"

    def test_anthropic_forces_the_plan_tool(self) -> None:
        """Anthropic requests force a tool call whose input schema is the plan schema."""
        body = AnthropicProvider().request_body(CLAUDE, "plan it")
        assert body["max_tokens"] == 900
        assert body["tool_choice"] == {"type": "tool", "name": PLAN_TOOL}
        assert body["tools"][0]["input_schema"]["type"] == "object"
        assert AnthropicProvider().url(CLAUDE) == "https://api.anthropic.com/v1/messages"


class TestAnswerFromBody:
    def test_chat_completion_content(self) -> None:
        """The message content and usage of a chat completion."""
        body = {
            "choices": [{"message": {"content": '{"tasks": []}'}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3},
        }
        answer = answer_from_body(body)
        assert answer.text == '{"tasks": []}' and answer.tokens == {"input": 10, "output": 3}

    def test_chat_completion_tool_call(self) -> None:
        """A tool call's arguments when there is no content."""
        body = {
            "choices": [
                {
                    "message": {
                        "content": None,
                        "tool_calls": [
                            {"function": {"name": "plan", "arguments": '{"tasks": [1]}'}}
                        ],
                    }
                }
            ]
        }
        assert answer_from_body(body).text == '{"tasks": [1]}'

    def test_parallel_tool_calls_keep_every_call(self) -> None:
        """Several tool calls in one answer give the whole tool_calls array (a published
        answer: two calls, provenance published), which openai_tool_calls reads call by call;
        only the first call's arguments were kept before."""
        body = json.loads((PUBLISHED / "openai_tool_calls" / OPENAI_PARALLEL).read_text())
        answer = answer_from_body(body)
        assert json.loads(answer.text) == body["choices"][0]["message"]["tool_calls"]
        plan = load_plan(answer.text)
        assert plan.task_ids == tuple(c["id"] for c in body["choices"][0]["message"]["tool_calls"])
        assert [t.capabilities for t in plan.tasks] == [("delete_file",), ("create_file",)]

    def test_parallel_tool_use_blocks_keep_every_block(self) -> None:
        """Several tool_use blocks give the blocks (published: four calls); the text block,
        the model's prose, is left out."""
        body = json.loads((PUBLISHED / "anthropic_tool_use" / ANTHROPIC_PARALLEL).read_text())
        blocks = [b for b in body["content"] if b["type"] == "tool_use"]
        answer = answer_from_body(body)
        assert json.loads(answer.text) == blocks
        plan = load_plan(answer.text)
        assert plan.task_ids == tuple(b["id"] for b in blocks)
        assert [dict(t.arguments) for t in plan.tasks] == [b["input"] for b in blocks]

    def test_anthropic_tool_use(self) -> None:
        """An Anthropic tool_use input becomes its JSON text."""
        body = {
            "type": "message",
            "content": [
                {"type": "text", "text": "Here you go"},
                {"type": "tool_use", "name": PLAN_TOOL, "input": {"tasks": []}},
            ],
            "usage": {"input_tokens": 5, "output_tokens": 7},
        }
        answer = answer_from_body(body)
        assert json.loads(answer.text) == {"tasks": []}
        assert answer.tokens == {"input": 5, "output": 7}

    def test_anthropic_text(self) -> None:
        """Text blocks are joined when no tool was used."""
        body = {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
        assert answer_from_body(body).text == "ab" and answer_from_body(body).tokens is None

    @pytest.mark.parametrize("body", [[], {"id": "x"}, {"choices": []}])
    def test_other_shapes(self, body: Any) -> None:
        """Bodies of neither shape raise ValueError (the row becomes unparseable)."""
        with pytest.raises(ValueError):
            answer_from_body(body)


class TestPreflight:
    def test_missing_key_names_the_variable(self) -> None:
        """Live mode without the key is one line naming the environment variable."""
        with pytest.raises(ProviderSetupError, match="set OPENAI_API_KEY"):
            OpenAIProvider().preflight(GPT, env={})

    def test_custom_key_variable(self) -> None:
        """api_key_env overrides the default variable."""
        model = ModelSpec(id="c", provider="anthropic", model="m", api_key_env="MY_KEY")
        with pytest.raises(ProviderSetupError, match="set MY_KEY"):
            AnthropicProvider().preflight(model, env={"ANTHROPIC_API_KEY": "x"})
        assert AnthropicProvider().preflight(model, env={"MY_KEY": "k"}) == "k"

    def test_missing_sdk_names_the_extra(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without the SDK the error says which extra to install."""
        monkeypatch.setitem(sys.modules, "anthropic", None)  # makes `import anthropic` fail
        with pytest.raises(ProviderSetupError, match=r"pip install 'planeval\[anthropic\]'"):
            AnthropicProvider().preflight(CLAUDE, env={"ANTHROPIC_API_KEY": "k"})

    def test_missing_command(self, tmp_path: Any) -> None:
        """A command planner whose program does not exist is refused before running."""
        model = ModelSpec(id="rb", provider="command", command="no-such-planner-xyz --json")
        with pytest.raises(ProviderSetupError, match="'no-such-planner-xyz' was not found"):
            CommandProvider().preflight(model, tmp_path)
