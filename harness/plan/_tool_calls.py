"""Tool calls as plans: OpenAI ``tool_calls`` arrays and Anthropic ``tool_use`` content blocks.

A model that answers with several tool calls at once states a plan of parallel, independent
calls (OpenAI's "parallel function calling"; Anthropic's several ``tool_use`` blocks in one
message): neither format lets a call cite another call's result, so every call is a task with
no dependency. Each call is read, not just the first. A task's id is the call's ``id``
(``call_...``, ``toolu_...``; ``call_N`` by position when it has none), its tool the capability
and the description, its arguments the call's JSON arguments (OpenAI sends them as a JSON
string: text that is not a JSON object is kept as ``arguments_text`` and reported by ``schema``).
"""

from __future__ import annotations

import json
from typing import Any

from harness._errors import NoPlanFoundError, PlanLoadError

__all__ = [
    "anthropic_blocks_to_dict",
    "looks_like_anthropic_blocks",
    "looks_like_openai_calls",
    "openai_calls_to_dict",
]


def looks_like_openai_calls(value: Any) -> bool:
    """A non-empty list of ``{"type": "function", "function": {...}}`` objects."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(c, dict) and isinstance(c.get("function"), dict) for c in value)
    )


def looks_like_anthropic_blocks(value: Any) -> bool:
    """A list of content blocks with at least one ``tool_use`` block."""
    return (
        isinstance(value, list)
        and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in value)
        and any(b.get("type") == "tool_use" for b in value)
    )


def openai_calls_to_dict(calls: Any, *, source: str) -> dict[str, Any]:
    """An OpenAI ``tool_calls`` array as a plan of independent tasks.

    Raises:
        PlanLoadError: not a list of calls with a ``function`` holding a string ``name``.
    """
    if not isinstance(calls, list):
        raise PlanLoadError("'tool_calls' must be a list", source=source, location="/")
    tasks = []
    for index, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise PlanLoadError(
                "a tool call must be an object whose 'function' has a string 'name'",
                source=source,
                location=f"/{index}",
                hint='expected {"id": "call_1", "type": "function", "function": {"name": ..., '
                '"arguments": "{...}"}}',
            )
        task = _task(call.get("id"), index, function["name"])
        arguments = function.get("arguments")
        parsed = _json_object(arguments) if isinstance(arguments, str) else arguments
        if isinstance(parsed, dict):
            task["arguments"] = parsed
        elif arguments not in (None, ""):
            task["arguments_text"] = arguments
        tasks.append(task)
    return {"tasks": tasks}


def anthropic_blocks_to_dict(blocks: Any, *, source: str) -> dict[str, Any]:
    """The ``tool_use`` blocks of an Anthropic message's content as a plan of independent
    tasks (text blocks are the model's prose, not tasks).

    Raises:
        NoPlanFoundError: no ``tool_use`` block.
        PlanLoadError: a ``tool_use`` block without a string ``name``.
    """
    if not looks_like_anthropic_blocks(blocks):
        raise NoPlanFoundError(
            "no tool_use content block",
            source=source,
            hint='expected content blocks like {"type": "tool_use", "id": ..., "name": ..., '
            '"input": {...}}',
        )
    tasks: list[dict[str, Any]] = []
    for index, block in enumerate(blocks if isinstance(blocks, list) else []):
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        if not isinstance(block.get("name"), str):
            raise PlanLoadError(
                "a tool_use block must have a string 'name'",
                source=source,
                location=f"/{index}",
            )
        task = _task(block.get("id"), len(tasks), block["name"])
        tool_input = block.get("input")
        if isinstance(tool_input, dict):
            task["arguments"] = tool_input
        elif tool_input is not None:
            task["arguments_text"] = tool_input
        tasks.append(task)
    return {"tasks": tasks}


def _task(call_id: Any, index: int, name: str) -> dict[str, Any]:
    task_id = call_id if isinstance(call_id, str) and call_id.strip() else f"call_{index + 1}"
    return {"id": task_id, "description": name, "capabilities": [name], "depends_on": []}


def _json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
