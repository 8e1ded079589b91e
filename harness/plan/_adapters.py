"""Adapters: every supported plan format in, canonical plan documents out.

Formats (docs/formats.md): ``canonical`` (planeval / agentic gem JSON, also inside a
chat-completion or Anthropic message body or a Ruby VCR cassette), ``text`` (raw model text
with the plan in prose or code fences), ``worfbench`` (``Node:`` / ``Edge:`` text, or a WorfBench
data file), ``taskbench`` (``task_nodes`` / ``task_links`` records), ``hugginggpt`` (a list of
``{"task", "id", "dep", "args"}``), ``llmcompiler`` (numbered ``tool(args)`` lines up to
``join()``), ``rewoo`` (``#E1 = Tool[input]``), ``teval`` (``[{"id", "name", "args", "prev"}]``
or T-Eval's ReWOO-type lines), ``plan_and_execute`` (LangGraph's ``{"steps": [...]}`` or
numbered steps), ``metagpt`` (``[{"task_id", "dependent_task_ids", "instruction"}]``),
``openai_tool_calls`` and ``anthropic_tool_use`` (every call of a model's answer, as parallel
tasks). ``auto`` detects. A file may hold several plans: JSON Lines (one record a line),
a JSON array of plan records, a WorfBench data file; each is its own document (``_multi``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from harness._errors import NoPlanFoundError, PlanLoadError
from harness.plan._hugginggpt import hugginggpt_to_dict, looks_like_hugginggpt
from harness.plan._json import parse_json
from harness.plan._llmcompiler import llmcompiler_to_dict, looks_like_llmcompiler
from harness.plan._metagpt import looks_like_metagpt, metagpt_to_dict
from harness.plan._model import Plan
from harness.plan._multi import Document, is_record_list, jsonl_lines, labelled
from harness.plan._plan_and_execute import (
    looks_like_numbered_steps,
    looks_like_steps,
    numbered_steps_to_dict,
    steps_to_dict,
)
from harness.plan._rewoo import looks_like_rewoo, rewoo_to_dict
from harness.plan._taskbench import taskbench_to_dict
from harness.plan._taskbench_fast import fast_taskbench_plan
from harness.plan._teval import (
    looks_like_teval,
    looks_like_teval_rewoo,
    teval_rewoo_to_dict,
    teval_to_dict,
)
from harness.plan._tool_calls import (
    anthropic_blocks_to_dict,
    looks_like_anthropic_blocks,
    looks_like_openai_calls,
    openai_calls_to_dict,
)
from harness.plan._worfbench import (
    looks_like_worfbench,
    worfbench_item_to_dict,
    worfbench_text_to_dict,
)

__all__ = [
    "FORMATS",
    "Document",
    "documents_from_json",
    "documents_from_lines",
    "documents_from_text",
]

FORMATS: tuple[str, ...] = (
    "auto",
    "canonical",
    "text",
    "worfbench",
    "taskbench",
    "hugginggpt",
    "llmcompiler",
    "rewoo",
    "teval",
    "plan_and_execute",
    "metagpt",
    "openai_tool_calls",
    "anthropic_tool_use",
)

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\r?\n(.*?)```", re.DOTALL)
_OPENER = re.compile(r"[\[{]")
_MAX_CANDIDATES = 200
_JSON_FORMATS = (
    "canonical",
    "taskbench",
    "hugginggpt",
    "metagpt",
    "openai_tool_calls",
    "anthropic_tool_use",
)
_LIST_FORMATS = ("hugginggpt", "teval", "metagpt", "openai_tool_calls", "anthropic_tool_use")
"""Formats whose plan may be a bare JSON list (read from prose by ``_from_prose``)."""


def documents_from_text(text: str, *, fmt: str, source: str) -> list[Document]:
    """Find the plan document(s) in ``text`` read in format ``fmt``.

    Returns one document for a plan; one per record for JSON Lines, an array of plan records
    or a WorfBench data file.

    Raises:
        PlanLoadError: the input is unusable as that format (NoPlanFoundError: no plan at all).
    """
    _check_format(fmt, source)
    stripped = text.lstrip()
    looks_json = stripped[:1] in ("{", "[")
    if fmt == "llmcompiler":
        return [(None, llmcompiler_to_dict(text, source=source))]
    if fmt == "rewoo":
        return [(None, rewoo_to_dict(text, source=source))]
    if fmt == "teval" and looks_like_teval_rewoo(text):
        return [(None, teval_rewoo_to_dict(text, source=source))]
    if fmt == "plan_and_execute" and not looks_json and not _FENCE.search(text):
        return [(None, numbered_steps_to_dict(text, source=source))]
    if fmt == "worfbench" and not looks_json:
        return [(None, worfbench_text_to_dict(text, source=source))]
    if looks_json and fmt != "text":
        lines = jsonl_lines(text)
        if lines is not None:
            return _from_jsonl(lines, fmt=fmt, source=source)
    if fmt in _JSON_FORMATS and (looks_json or fmt in ("canonical", "taskbench")):
        return _from_json_value(parse_json(text, source=source), fmt=fmt, source=source)
    if fmt in ("auto", "worfbench") and looks_json:
        try:
            value = parse_json(text, source=source)
        except PlanLoadError:
            if fmt != "auto":
                raise
            return [(None, _from_prose(text, source=source, first_error=True, fmt=fmt))]
        return _from_json_value(value, fmt=fmt, source=source)
    if fmt == "auto" and "http_interactions:" in stripped[:4096]:
        from harness.plan._cassette import plan_in_cassette

        return [(None, plan_in_cassette(text, source=source, read=documents_from_text))]
    return [(None, _from_prose(text, source=source, first_error=False, fmt=fmt))]


def documents_from_json(value: Any, *, fmt: str, source: str) -> list[Document]:
    """Find the plan document(s) in an already parsed JSON value (a dict from a notebook)."""
    _check_format(fmt, source)
    return _from_json_value(value, fmt=fmt, source=source)


def _check_format(fmt: str, source: str) -> None:
    if fmt not in FORMATS:
        raise PlanLoadError(
            f"unknown plan format {fmt!r}",
            source=source,
            hint=f"choose one of: {', '.join(FORMATS)}",
        )


def _from_jsonl(lines: Iterable[tuple[int, str]], *, fmt: str, source: str) -> list[Document]:
    """One document per non-empty line; a damaged line is that line's own unusable entry."""
    return list(documents_from_lines(lines, fmt=fmt, source=source))


def documents_from_lines(
    lines: Iterable[tuple[int, str | PlanLoadError]],
    *,
    fmt: str,
    source: str,
    seen: set[str] | None = None,
) -> Iterator[Document]:
    """The documents of JSON Lines given as ``(line number, line)`` pairs, lazily: one per
    non-empty line, a damaged line (or one the reader could not read, given as its error)
    being that line's own unusable entry. ``seen``: the labels given so far, when a file's
    lines come in more than one call."""
    fast = fmt in ("auto", "canonical", "taskbench")
    for label, value in labelled(_line_values(lines, fast=fast, source=source), seen):
        name = f"{source}#{label}"
        if isinstance(value, PlanLoadError | Plan):
            yield label, value
            continue
        try:
            inner = _from_json_value(value, fmt=fmt, source=name)
        except PlanLoadError as exc:
            yield label, exc
            continue
        for sub, document in inner:
            yield (label if sub is None else f"{label}/{sub}", document)


def _line_values(
    lines: Iterable[tuple[int, str | PlanLoadError]], *, fast: bool, source: str
) -> Iterator[tuple[int, Any]]:
    """Each line's value: a Plan (TaskBench fast lane), a parsed JSON value or the error."""
    for number, line in lines:
        if isinstance(line, PlanLoadError):
            yield number, line
            continue
        if not line.strip():
            continue
        if fast and '"task_nodes"' in line:
            plan = fast_taskbench_plan(line)
            if plan is not None:
                yield number, plan
                continue
        try:
            yield number, parse_json(line, source=f"{source}#{number}", first_line=number)
        except PlanLoadError as exc:
            yield number, exc


def _from_json_value(value: Any, *, fmt: str, source: str) -> list[Document]:
    if fmt == "hugginggpt" or (fmt in ("auto", "text") and looks_like_hugginggpt(value)):
        if isinstance(value, dict):
            return [(None, _plan_in_object(value, source=source, fmt=fmt, required=True))]
        return [(None, hugginggpt_to_dict(value, source=source))]
    if isinstance(value, list):
        found = _plan_in_list(value, fmt=fmt, source=source)
        if found is not None:
            return [(None, found)]
    if is_record_list(value):
        return [
            (label, _record(item, fmt=fmt, source=f"{source}#{label}"))
            for label, item in labelled(enumerate(value, 1))
        ]
    if not isinstance(value, dict):
        raise PlanLoadError(
            f"expected a JSON object, got {_json_kind(value)}",
            source=source,
            location="/",
            hint='a plan is {"tasks": [...]}',
        )
    return [(None, _plan_in_object(value, source=source, fmt=fmt, required=True))]


def _plan_in_list(value: list[Any], *, fmt: str, source: str) -> dict[str, Any] | None:
    """The plan a bare JSON list states in one of the list formats (``fmt`` or detected)."""
    detect = fmt in ("auto", "text")
    if fmt == "teval" or (detect and looks_like_teval(value)):
        return teval_to_dict(value, source=source)
    if fmt == "metagpt" or (detect and looks_like_metagpt(value)):
        return metagpt_to_dict(value, source=source)
    if fmt == "openai_tool_calls" or (detect and looks_like_openai_calls(value)):
        return openai_calls_to_dict(value, source=source)
    if fmt == "anthropic_tool_use" or (detect and looks_like_anthropic_blocks(value)):
        return anthropic_blocks_to_dict(value, source=source)
    if detect and looks_like_hugginggpt(value):
        return hugginggpt_to_dict(value, source=source)
    return None


def _record(item: Any, *, fmt: str, source: str) -> dict[str, Any] | PlanLoadError:
    """One record of a multi-plan file, or the error that makes it unusable."""
    if isinstance(item, PlanLoadError):
        return item
    if not isinstance(item, dict):
        return PlanLoadError(
            f"expected a plan record (a JSON object), got {_json_kind(item)}", source=source
        )
    try:
        return _plan_in_object(item, source=source, fmt=fmt, required=True)
    except PlanLoadError as exc:
        return exc


def _plan_in_object(
    value: dict[str, Any], *, source: str, fmt: str, required: bool = False
) -> dict[str, Any]:
    """The canonical plan dict inside a JSON object.

    Raises:
        NoPlanFoundError: the object holds no plan of the requested format.
    """
    found = _find_in_object(value, source=source, fmt=fmt)
    if found is not None:
        return found
    keys = ", ".join(repr(k) for k in sorted(value)[:8]) or "none"
    if fmt == "taskbench":
        raise PlanLoadError("no 'task_nodes' in a TaskBench plan", source=source, location="/")
    if fmt in ("hugginggpt", "teval"):
        reader = hugginggpt_to_dict if fmt == "hugginggpt" else teval_to_dict
        return reader(value, source=source)  # raises: an object is not a task list
    if fmt == "plan_and_execute":
        return steps_to_dict(value, source=source)  # raises: no list of steps
    raise NoPlanFoundError(
        f"the JSON object is not a plan (its keys: {keys})",
        source=source,
        location="/",
        hint="a plan has 'tasks' (or TaskBench 'task_nodes', or a chat message holding one)",
    )


def _find_in_object(value: dict[str, Any], *, source: str, fmt: str) -> dict[str, Any] | None:
    if fmt == "taskbench":
        if "task_nodes" in value or isinstance(value.get("result"), dict):
            return taskbench_to_dict(value, source=source)
        return None
    if fmt in ("openai_tool_calls", "anthropic_tool_use") or _has_tool_calls(value):
        found = _tool_call_plan(value, source=source, fmt=fmt)
        if found is not None or fmt in ("openai_tool_calls", "anthropic_tool_use"):
            return found
    if (
        "tasks" in value
        and fmt in ("metagpt", "auto", "text")
        and looks_like_metagpt(value["tasks"])
    ):
        return metagpt_to_dict(value["tasks"], source=source, goal=value.get("goal"))
    if fmt in ("metagpt", "auto", "text"):  # MetaGPT RoleZero: one command, or {"commands"}
        commands = value.get("commands", [value])
        if looks_like_metagpt(commands) and "task_id" not in value:
            return metagpt_to_dict(commands, source=source)
    if fmt in ("plan_and_execute", "auto", "text"):
        if looks_like_steps(value):
            return steps_to_dict(value, source=source)
        if looks_like_steps(value.get("action")):  # the replanner's Act(action=Plan(...))
            return steps_to_dict(value["action"], source=source)
    if fmt in ("metagpt", "plan_and_execute", "teval"):
        content = _envelope_content(value)
        if isinstance(content, dict):
            return _find_in_object(content, source=source, fmt=fmt)
        if isinstance(content, str):
            return _from_prose(content, source=source, first_error=False, fmt=fmt)
        return None
    if "tasks" in value and fmt != "hugginggpt":
        return value
    if "task_nodes" in value or (
        isinstance(value.get("result"), dict) and "task_nodes" in value["result"]
    ):
        return taskbench_to_dict(value, source=source)
    if "conversations" in value:
        return worfbench_item_to_dict(value, source=source)
    content = _envelope_content(value)
    if content is None:
        return None
    if isinstance(content, dict):
        return _find_in_object(content, source=source, fmt=fmt)
    return _from_prose(content, source=source, first_error=False, fmt=fmt)


def _has_tool_calls(value: dict[str, Any]) -> bool:
    """A chat completion, assistant message or Anthropic message that calls tools."""
    message = _chat_message(value)
    if message is not None and message.get("tool_calls"):
        return True
    blocks = value.get("content")
    return (value.get("type") == "message" or value.get("role") == "assistant") and (
        looks_like_anthropic_blocks(blocks)
    )


def _chat_message(value: dict[str, Any]) -> dict[str, Any] | None:
    """The message of a chat completion (its first choice), or the value when it is one."""
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        return message if isinstance(message, dict) else None
    return value if value.get("role") == "assistant" and "tool_calls" in value else None


def _tool_call_plan(value: dict[str, Any], *, source: str, fmt: str) -> dict[str, Any] | None:
    """The plan a model's tool calls state.

    A plan delivered *through* a tool (a call whose arguments hold a plan, as planeval's own
    structured-output prompts ask for) is that plan, unless a tool-call format is forced;
    otherwise every call is a task (OpenAI ``tool_calls``, Anthropic ``tool_use`` blocks).
    """
    forced = fmt in ("openai_tool_calls", "anthropic_tool_use")
    reads_calls = forced or fmt in ("auto", "text")
    message = _chat_message(value)
    calls = message.get("tool_calls") if message is not None else None
    if isinstance(calls, list) and calls and fmt != "anthropic_tool_use":
        if not forced:
            for call in calls:
                function = call.get("function") if isinstance(call, dict) else None
                text = function.get("arguments") if isinstance(function, dict) else None
                delivered = _delivered_plan(text, source=source)
                if delivered is not None:
                    return delivered
        return openai_calls_to_dict(calls, source=source) if reads_calls else None
    blocks = value.get("content")
    if isinstance(blocks, list) and fmt != "openai_tool_calls":
        if not forced:
            for block in blocks:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    delivered = _delivered_plan(block.get("input"), source=source)
                    if delivered is not None:
                        return delivered
        if reads_calls and (forced or looks_like_anthropic_blocks(blocks)):
            return anthropic_blocks_to_dict(blocks, source=source)
    return None


def _delivered_plan(arguments: Any, *, source: str) -> dict[str, Any] | None:
    """The plan inside one tool call's arguments (JSON text or an object), if it holds one."""
    if isinstance(arguments, str):
        try:
            arguments = parse_json(arguments, source=source)
        except PlanLoadError:
            return None
    if isinstance(arguments, dict):
        if _has_tool_calls(arguments):
            return None
        return _find_in_object(arguments, source=source, fmt="auto")
    if isinstance(arguments, list) and looks_like_hugginggpt(arguments):
        return hugginggpt_to_dict(arguments, source=source)
    return None


def _envelope_content(value: dict[str, Any]) -> str | dict[str, Any] | None:
    """The model's answer inside a chat-completion or Anthropic message body."""
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message") or {}
        if isinstance(message, dict):
            for call in message.get("tool_calls") or []:
                arguments = (call or {}).get("function", {}).get("arguments")
                if isinstance(arguments, str):
                    return arguments
            if isinstance(message.get("content"), str):
                return str(message["content"])
    blocks = value.get("content")
    if value.get("type") == "message" and isinstance(blocks, list):
        for block in blocks:
            is_tool = isinstance(block, dict) and block.get("type") == "tool_use"
            if is_tool and isinstance(block.get("input"), dict):
                return dict(block["input"])
        texts = [
            b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        ]
        return "\n".join(t for t in texts if isinstance(t, str)) or None
    return None


def _from_prose(text: str, *, source: str, first_error: bool, fmt: str) -> dict[str, Any]:
    """The first complete JSON value that is a plan, else a WorfBench workflow, else an
    LLMCompiler plan (the format ``fmt`` narrows what counts)."""
    for candidate in _json_candidates(text):
        try:
            value = parse_json(candidate, source=source)
        except PlanLoadError:
            continue
        if looks_like_hugginggpt(value) and fmt in ("auto", "text", "hugginggpt"):
            return hugginggpt_to_dict(value, source=source)
        if isinstance(value, list) and fmt in ("auto", "text", *_LIST_FORMATS):
            found = _plan_in_list(value, fmt=fmt, source=source)
            if found is not None:
                return found
        if isinstance(value, dict) and fmt != "hugginggpt":
            found = _find_in_object(value, source=source, fmt=fmt)
            if found is not None:
                return found
    detect = fmt in ("auto", "text")
    if (detect or fmt == "worfbench") and looks_like_worfbench(text):
        return worfbench_text_to_dict(text, source=source)
    if (detect or fmt == "teval") and looks_like_teval_rewoo(text):
        return teval_rewoo_to_dict(text, source=source)
    if detect and looks_like_rewoo(text):
        return rewoo_to_dict(text, source=source)
    if detect and looks_like_llmcompiler(text):
        return llmcompiler_to_dict(text, source=source)
    if (detect or fmt == "plan_and_execute") and looks_like_numbered_steps(text):
        return numbered_steps_to_dict(text, source=source)
    if first_error:
        # Re-raise the JSON error: input that starts like JSON deserves the parser's word.
        parse_json(text, source=source)
    raise NoPlanFoundError(
        "no plan found in the text (no JSON plan, no Node:/Edge: workflow, no ReWOO #E steps, "
        "no numbered LLMCompiler actions or steps)",
        source=source,
        hint="check that the planner answered with a plan; pass --plan-format to force one",
    )


def _json_candidates(text: str) -> Iterator[str]:
    for match in _FENCE.finditer(text):
        yield match.group(1)
    decoder = json.JSONDecoder()
    tried = 0
    for match in _OPENER.finditer(text):
        if tried >= _MAX_CANDIDATES:
            return
        tried += 1
        start = match.start()
        try:
            _, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # not JSON, an int past 4,300 digits, too deep
            continue
        yield text[start:end]


def _json_kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )
