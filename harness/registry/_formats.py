"""Registries from the tool definitions teams already write, read without conversion by hand.

One entry of a registry document is recognised by its own shape, so a list may mix forms:

* planeval YAML/JSON: ``{name, version?, description?, inputs?, outputs?, parameters?,
  output_type?, output_schema?}`` (``parameters``: a JSON Schema of the arguments object);
* OpenAI function tools: ``{"type": "function", "function": {name, description, parameters}}``
  (Chat Completions) or ``{"type": "function", name, description, parameters}`` (Responses);
  built-in tools without a name (``{"type": "web_search"}``) are not capabilities and are left
  out;
* Anthropic tools: ``{name, description, input_schema}``;
* MCP tools (an entry of a ``tools/list`` result): ``{name, title?, description, inputSchema,
  outputSchema?}``;
* TaskBench ``tool_desc.json`` nodes: ``{id, desc, parameters: [{name, type, desc}]}`` (a schema
  with every listed parameter required and no other) or ``{id, desc, input-type: [...],
  output-type: [...]}`` (positional arguments ``arg0``, ``arg1``, ... each declaring its
  TaskBench type under ``x-planeval-type``, and the output types).

The document around the entries: ``{"capabilities": [...]}``, ``{"tools": [...]}`` (an OpenAI or
Anthropic request body, an MCP ``tools/list`` result), a JSON-RPC response ``{"result":
{"tools": [...]}}``, TaskBench ``{"nodes": [...]}``, or a bare list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness._errors import RegistryError

__all__ = ["DATA_TYPE", "entries", "entry_fields"]

DATA_TYPE = "x-planeval-type"
"""The JSON Schema annotation that declares a parameter's data type for ``dataflow_types``
(TaskBench's ``text``, ``image``, ``audio``, ``video``, ``url``...)."""

_TASKBENCH_TYPES = {
    "string": {"type": "string"},
    "date": {"type": "string", "format": "date"},
    "integer": {"type": "integer"},
    "int": {"type": "integer"},
    "number": {"type": "number"},
    "float": {"type": "number"},
    "boolean": {"type": "boolean"},
    "bool": {"type": "boolean"},
    "array": {"type": "array"},
    "list": {"type": "array"},
    "object": {"type": "object"},
}


def entries(data: Any, source: str) -> tuple[list[Any], str]:
    """The capability entries of a registry document and the JSON pointer of their list."""
    if isinstance(data, dict) and "capabilities" in data:
        items, base = data["capabilities"], "/capabilities"
    elif isinstance(data, dict) and "nodes" in data:
        items, base = data["nodes"], "/nodes"
    elif isinstance(data, dict) and "tools" in data:
        items, base = data["tools"], "/tools"
    elif (
        isinstance(data, dict)
        and isinstance(data.get("result"), dict)
        and "tools" in data["result"]
    ):
        items, base = data["result"]["tools"], "/result/tools"
    elif isinstance(data, list):
        items, base = data, ""
    else:
        raise RegistryError(
            "a registry must be {'capabilities': [...]}, a list, TaskBench {'nodes': [...]}, "
            "or a tools list (OpenAI, Anthropic, MCP {'tools': [...]})",
            source=source,
            location="/",
        )
    if not isinstance(items, list):
        raise RegistryError("the capabilities must be a list", source=source, location=base)
    return items, base


def entry_fields(item: dict[str, Any], where: str, source: str) -> dict[str, Any] | None:
    """The capability fields of one entry (None for an OpenAI built-in tool, which has no
    name and no arguments a plan could pass)."""
    kind = item.get("type")
    if kind == "function" and isinstance(item.get("function"), dict):  # OpenAI Chat Completions
        function = item["function"]
        return _fields(
            function.get("name"),
            function.get("description"),
            _schema(function.get("parameters"), f"{where}/function/parameters", source),
        )
    if isinstance(kind, str) and "name" not in item and "id" not in item:
        return None  # an OpenAI built-in tool ({"type": "web_search"})
    if "inputSchema" in item:  # MCP
        return _fields(
            item.get("name"),
            item.get("description", item.get("title")),
            _schema(item["inputSchema"], f"{where}/inputSchema", source),
            output_schema=_schema(item.get("outputSchema"), f"{where}/outputSchema", source),
        )
    if "input_schema" in item:  # Anthropic
        return _fields(
            item.get("name"),
            item.get("description"),
            _schema(item["input_schema"], f"{where}/input_schema", source),
        )
    parameters = item.get("parameters")
    if isinstance(parameters, list):  # TaskBench tool_desc.json with named parameters
        fields = _fields(
            item.get("name", item.get("id")),
            item.get("description", item.get("desc")),
            _taskbench_schema(parameters, f"{where}/parameters", source),
        )
        fields["inputs"] = _names(parameters)
        fields["outputs"] = _names(item.get("outputs", item.get("output-type")))
        fields["output_types"] = _types(item.get("output_type", item.get("output-type")))
        return fields
    if "input-type" in item and parameters is None:  # TaskBench multimedia / huggingface
        types = _types(item.get("input-type"))
        fields = _fields(
            item.get("name", item.get("id")),
            item.get("description", item.get("desc")),
            _positional_schema(types) if types else None,
        )
        fields["inputs"] = types
        fields["outputs"] = _names(item.get("outputs", item.get("output-type")))
        fields["output_types"] = _types(item.get("output-type"))
        return fields
    # planeval's own form (kind == "function" here is the OpenAI Responses form)
    fields = _fields(
        item.get("name", item.get("id")),
        item.get("description", item.get("desc")),
        _schema(parameters, f"{where}/parameters", source),
        output_schema=_schema(item.get("output_schema"), f"{where}/output_schema", source),
    )
    if "inputs" in item or "input-type" in item:
        fields["inputs"] = _names(item.get("inputs", item.get("input-type")))
    fields["outputs"] = _names(item.get("outputs", item.get("output-type")))
    fields["output_types"] = _types(item.get("output_type", item.get("output-type")))
    return fields


def _fields(
    name: Any, description: Any, parameters: dict[str, Any] | None, **more: Any
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "name": name,
        "description": description if isinstance(description, str) else "",
        "parameters": parameters,
    }
    if parameters is not None:
        fields["inputs"] = tuple(str(k) for k in parameters.get("properties", {}) or {})
    fields.update(more)
    return fields


def _schema(value: Any, where: str, source: str) -> dict[str, Any] | None:
    """A JSON Schema given in a definition, checked against its metaschema."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RegistryError(
            f"a parameter schema must be a JSON Schema object, got {type(value).__name__}",
            source=source,
            location=where,
            hint='write {"type": "object", "properties": {...}}',
        )
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    cls = validator_for(value, default=_draft())
    try:
        cls.check_schema(value)
    except SchemaError as exc:
        inner = "".join(f"/{p}" for p in exc.absolute_path)
        raise RegistryError(
            f"not a valid JSON Schema: {exc.message}",
            source=source,
            location=where + inner,
        ) from None
    return value


def _draft() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator


def _taskbench_schema(parameters: list[Any], where: str, source: str) -> dict[str, Any]:
    """TaskBench's ``[{name, type, desc}]`` as an object schema: each parameter required, no
    other allowed (TaskBench's tool graph gives no optional parameters)."""
    properties: dict[str, Any] = {}
    for k, parameter in enumerate(parameters):
        if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str):
            raise RegistryError(
                "a TaskBench parameter must be an object with a string 'name'",
                source=source,
                location=f"{where}/{k}",
            )
        kind = parameter.get("type")
        schema = dict(_TASKBENCH_TYPES.get(kind, {})) if isinstance(kind, str) else {}
        if isinstance(kind, str) and kind not in _TASKBENCH_TYPES:
            schema[DATA_TYPE] = kind
        if isinstance(parameter.get("desc"), str):
            schema["description"] = parameter["desc"]
        properties[parameter["name"]] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _positional_schema(types: tuple[str, ...]) -> dict[str, Any]:
    """TaskBench's ``input-type`` list: one string argument per type, in order."""
    properties = {f"arg{k}": {"type": "string", DATA_TYPE: t} for k, t in enumerate(types)}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _types(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def _names(value: Any) -> tuple[str, ...]:
    if isinstance(value, dict):
        return tuple(str(k) for k in value)
    if isinstance(value, Iterable) and not isinstance(value, str):
        out = []
        for v in value:
            if isinstance(v, dict):
                out.append(str(v.get("name", v.get("id", ""))))
            else:
                out.append(str(v))
        return tuple(out)
    return ()
