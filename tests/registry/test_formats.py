"""Registries from tool definitions as the ecosystem writes them, read without conversion.

The OpenAI, Anthropic and MCP documents are hand-written (provenance: handwritten) in the shapes
their documentation publishes (OpenAI function calling guide, Anthropic tool use guide, MCP
specification 2025-06-18 "Tools"); TaskBench's tool_desc.json files are read in place from
../shared/data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import RegistryError
from harness.registry import Registry, load_registry

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "City and country e.g. Bogota, Colombia"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["location"],
    "additionalProperties": False,
}

OPENAI_CHAT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get current temperature for a given location.",
            "parameters": WEATHER_SCHEMA,
            "strict": True,
        },
    },
    {"type": "web_search_preview"},  # a built-in tool: not a capability
]
OPENAI_RESPONSES_TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Get current temperature for a given location.",
        "parameters": WEATHER_SCHEMA,
    }
]
ANTHROPIC_TOOLS = [
    {
        "name": "get_weather",
        "description": "Get the current weather in a given location",
        "input_schema": WEATHER_SCHEMA,
    }
]
MCP_TOOLS_LIST = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "tools": [
            {
                "name": "get_weather",
                "title": "Weather Information Provider",
                "description": "Get current weather information for a location",
                "inputSchema": WEATHER_SCHEMA,
                "outputSchema": {
                    "type": "object",
                    "properties": {"temperature": {"type": "number"}},
                },
            }
        ],
        "nextCursor": "next-page-cursor",
    },
}


def _load(tmp_path: Path, data: Any, name: str = "tools.json") -> Registry:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return load_registry(path)


class TestToolDefinitionForms:
    @pytest.mark.parametrize(
        "document",
        [
            OPENAI_CHAT_TOOLS,  # a tools array as sent to Chat Completions
            {"model": "gpt-4.1", "tools": OPENAI_CHAT_TOOLS},  # a whole request body
            OPENAI_RESPONSES_TOOLS,  # the Responses API's flat form
            ANTHROPIC_TOOLS,
            {"tools": ANTHROPIC_TOOLS},
            MCP_TOOLS_LIST,  # a JSON-RPC response to tools/list
            MCP_TOOLS_LIST["result"],  # the result alone
        ],
    )
    def test_each_form_gives_the_same_capability(self, tmp_path: Path, document: Any) -> None:
        """Name, description and the parameter schema come through unchanged."""
        registry = _load(tmp_path, document)
        assert registry.names == ("get_weather",)
        capability = registry.capabilities[0]
        assert capability.parameters == WEATHER_SCHEMA
        assert capability.inputs == ("location", "unit")
        assert capability.description

    def test_mcp_output_schema(self, tmp_path: Path) -> None:
        registry = _load(tmp_path, MCP_TOOLS_LIST)
        assert registry.capabilities[0].output_schema == {
            "type": "object",
            "properties": {"temperature": {"type": "number"}},
        }

    def test_yaml_form_with_a_schema(self, tmp_path: Path) -> None:
        """planeval's own YAML: parameters (a JSON Schema), output_type, output_schema."""
        path = tmp_path / "r.yaml"
        path.write_text(
            "capabilities:\n"
            "  - name: caption\n"
            "    version: '1.2'\n"
            "    parameters: {type: object, properties: {image: {type: string,"
            " x-planeval-type: image}}, required: [image]}\n"
            "    output_type: text\n"
        )
        capability = load_registry(path).capabilities[0]
        assert capability.parameters is not None
        assert capability.parameters["required"] == ["image"]
        assert capability.output_types == ("text",)
        assert capability.version == "1.2"

    def test_invalid_schema_is_one_clear_error(self, tmp_path: Path) -> None:
        """A schema that breaks the metaschema names the tool's entry and the keyword."""
        bad = [{"name": "t", "input_schema": {"type": "object", "required": "location"}}]
        with pytest.raises(RegistryError) as info:
            _load(tmp_path, bad)
        assert info.value.location == "/0/input_schema/required"
        assert "not a valid JSON Schema" in str(info.value)

    def test_validator_is_compiled_once(self) -> None:
        """The registry hands out the same compiled validator for a tool every time."""
        registry = Registry.from_data(ANTHROPIC_TOOLS)
        capability = registry.capabilities[0]
        assert registry.validator(capability) is registry.validator(capability)


class TestTaskBench:
    def test_named_parameters_become_a_schema(self, shared_data: Path) -> None:
        """dailylifeapis: [{name, type, desc}] -> every parameter required, no other."""
        registry = load_registry(shared_data / "taskbench" / "dailylifeapis_tool_desc.json")
        weather = registry.resolve("get_weather")
        assert weather is not None and weather.parameters is not None
        assert weather.parameters["required"] == ["location", "date"]
        assert weather.parameters["additionalProperties"] is False
        assert weather.parameters["properties"]["date"]["format"] == "date"
        assert weather.inputs == ("location", "date")

    @pytest.mark.parametrize("domain", ["huggingface", "multimedia"])
    def test_input_types_become_positional_parameters(self, shared_data: Path, domain: str) -> None:
        """input-type [t0, t1] -> arg0, arg1 declaring their TaskBench type; output-type kept."""
        registry = load_registry(shared_data / "taskbench" / f"{domain}_tool_desc.json")
        raw = json.loads((shared_data / "taskbench" / f"{domain}_tool_desc.json").read_text())
        for node in raw["nodes"]:
            capability = registry.resolve(node["id"])
            assert capability is not None and capability.parameters is not None
            properties = capability.parameters["properties"]
            assert [p["x-planeval-type"] for p in properties.values()] == node["input-type"]
            assert capability.output_types == tuple(node["output-type"])
