"""Adapters: every supported plan format in, canonical plan documents out.

Formats: ``canonical`` (planeval / agentic gem JSON, also inside a chat-completion or Anthropic
message body or a Ruby VCR cassette), ``text`` (raw model text with the JSON in prose or code
fences), ``worfbench`` (``Node:`` / ``Edge: (START,1) (1,2)`` text, or a WorfBench data file of
conversations) and ``taskbench`` (``task_nodes`` / ``task_links``). ``auto`` detects.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from harness._errors import NoPlanFoundError, PlanLoadError
from harness._yaml import load_yaml
from harness.plan._json import parse_json

__all__ = ["FORMATS", "Document", "documents_from_json", "documents_from_text"]

FORMATS: tuple[str, ...] = ("auto", "canonical", "text", "worfbench", "taskbench")

Document = tuple[str | None, dict[str, Any] | PlanLoadError]
"""A plan document found in an input: (item label or None, canonical dict or the error)."""

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\r?\n(.*?)```", re.DOTALL)
_NODE_LINE = re.compile(r"^\s*(\d+)\s*[:.)]\s*(.*?)\s*$")
_EDGE = re.compile(r"\(\s*([A-Za-z0-9_]+)\s*,\s*([A-Za-z0-9_]+)\s*\)")
_NODE_REF = re.compile(r"<node-(\d+)>")
_MAX_CANDIDATES = 200
# Where the task sentence of a WorfBench user turn ends and its tool / action list begins.
_GOAL_STOP = re.compile(
    r"\n\s*(?:api_list|Output:|The [\w ]*?(?:list|tables|fields))", re.IGNORECASE
)


def documents_from_text(text: str, *, fmt: str, source: str) -> list[Document]:
    """Find the plan document(s) in ``text`` read in format ``fmt``.

    Returns one document for a plan; several for a WorfBench data file.

    Raises:
        PlanLoadError: the input is unusable as that format (NoPlanFoundError: no plan at all).
    """
    _check_format(fmt, source)
    stripped = text.lstrip()
    looks_json = stripped[:1] in ("{", "[")
    if fmt == "worfbench" and not looks_json:
        return [(None, worfbench_text_to_dict(text, source=source))]
    if fmt in ("canonical", "taskbench") or (fmt in ("auto", "worfbench") and looks_json):
        try:
            value = parse_json(text, source=source)
        except PlanLoadError:
            if fmt != "auto":
                raise
            return [(None, _from_prose(text, source=source, first_error=True))]
        return _from_json_value(value, fmt=fmt, source=source)
    if fmt == "auto" and _looks_like_cassette(stripped):
        return [(None, _from_cassette(text, source=source))]
    return [(None, _from_prose(text, source=source, first_error=False))]


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


def _from_json_value(value: Any, *, fmt: str, source: str) -> list[Document]:
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, dict) and "conversations" in v for v in value)
    ):
        return [
            (str(item.get("id", index)), _catch(worfbench_item_to_dict, item, source, index))
            for index, item in enumerate(value)
        ]
    if not isinstance(value, dict):
        raise PlanLoadError(
            f"expected a JSON object, got {_json_kind(value)}",
            source=source,
            location="/",
            hint='a plan is {"tasks": [...]}',
        )
    found = _plan_in_object(value, source=source)
    if found is None:
        keys = ", ".join(repr(k) for k in sorted(value)[:8]) or "none"
        raise NoPlanFoundError(
            f"the JSON object is not a plan (its keys: {keys})",
            source=source,
            location="/",
            hint="a plan has 'tasks' (or TaskBench 'task_nodes', or a chat message holding one)",
        )
    if fmt == "taskbench" and "task_nodes" not in value:
        raise PlanLoadError("no 'task_nodes' in a TaskBench plan", source=source, location="/")
    return [(None, found)]


def _plan_in_object(value: dict[str, Any], *, source: str) -> dict[str, Any] | None:
    """The canonical plan dict inside a JSON object, or None when it holds none."""
    if "tasks" in value:
        return value
    if "task_nodes" in value:
        return taskbench_to_dict(value, source=source)
    if "conversations" in value:
        return worfbench_item_to_dict(value, source=source, index=0)
    content = _envelope_content(value)
    if content is None:
        return None
    if isinstance(content, dict):
        return _plan_in_object(content, source=source)
    return _from_prose(content, source=source, first_error=False)


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


def _from_prose(text: str, *, source: str, first_error: bool) -> dict[str, Any]:
    """The first complete JSON object that looks like a plan, or a WorfBench workflow."""
    for candidate in _json_candidates(text):
        try:
            value = parse_json(candidate, source=source)
        except PlanLoadError:
            continue
        if isinstance(value, dict):
            found = _plan_in_object(value, source=source)
            if found is not None:
                return found
    if _looks_like_worfbench(text):
        return worfbench_text_to_dict(text, source=source)
    if first_error:
        # Re-raise the JSON error: input that starts like JSON deserves the parser's word.
        parse_json(text, source=source)
    raise NoPlanFoundError(
        "no plan found in the text (no JSON object with 'tasks', no Node:/Edge: workflow)",
        source=source,
        hint="check that the planner answered with a plan; pass --plan-format to force one",
    )


def _json_candidates(text: str) -> Iterator[str]:
    for match in _FENCE.finditer(text):
        yield match.group(1)
    decoder = json.JSONDecoder()
    start = text.find("{")
    tried = 0
    while start != -1 and tried < _MAX_CANDIDATES:
        tried += 1
        try:
            _, end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            start = text.find("{", start + 1)
            continue
        yield text[start:end]
        start = text.find("{", start + 1)


def _looks_like_worfbench(text: str) -> bool:
    return "Node" in text and _EDGE.search(text) is not None


def _looks_like_cassette(text: str) -> bool:
    return "http_interactions:" in text[:4096]


def _from_cassette(text: str, *, source: str) -> dict[str, Any]:
    """The plan in the first response of a Ruby VCR cassette that holds one (the gem's)."""
    data = load_yaml(text, source=source, error=PlanLoadError)
    interactions = data.get("http_interactions") if isinstance(data, dict) else None
    if not isinstance(interactions, list) or not interactions:
        raise NoPlanFoundError("the cassette has no http_interactions", source=source)
    first_error: PlanLoadError | None = None
    for index, interaction in enumerate(interactions):
        response = interaction.get("response") if isinstance(interaction, dict) else None
        body = response.get("body") if isinstance(response, dict) else None
        string = body.get("string") if isinstance(body, dict) else None
        if not isinstance(string, str) or not string.strip():
            continue
        try:
            docs = documents_from_text(string, fmt="auto", source=source)
        except PlanLoadError as exc:
            exc.location = f"/http_interactions/{index}/response/body/string"
            first_error = first_error or exc
            continue
        found = docs[0][1]
        if isinstance(found, dict):
            return found
    if first_error is not None:
        raise first_error
    raise NoPlanFoundError("no response body in the cassette holds a plan", source=source)


# --- WorfBench -------------------------------------------------------------------------------


def worfbench_text_to_dict(text: str, *, source: str, goal: str | None = None) -> dict[str, Any]:
    """A WorfBench workflow (``Node:`` lines, ``Edge: (START,1) (1,2) ...``) as a canonical plan.

    START and END are markers, not tasks; an edge ``(i, j)`` means task j depends on task i.
    The tasks with an edge to END, and edges into nodes that were never declared, are kept
    under ``workflow`` (checked by ``reaches_end`` and ``deps_resolve``).
    """
    node_part, _, edge_part = _split_edges(text)
    tasks: dict[str, dict[str, Any]] = {}
    for line in node_part.splitlines():
        match = _NODE_LINE.match(line)
        if match and match.group(1) not in tasks:
            tasks[match.group(1)] = {
                "id": match.group(1),
                "description": match.group(2).strip("{} "),
                "depends_on": [],
            }
    if not tasks:
        raise NoPlanFoundError(
            "no numbered Node: lines in the WorfBench workflow",
            source=source,
            hint="expected lines like '1: Do something' after 'Node:'",
        )
    undeclared: list[list[str]] = []
    end: list[str] = []
    for src, dst in _EDGE.findall(edge_part):
        if src.upper() in ("START", "END"):
            continue
        if dst.upper() == "END":
            if src not in end:
                end.append(src)
            continue
        target = tasks.get(dst)
        if target is None:  # an edge into a node that was never declared
            undeclared.append([src, dst])
        elif src not in target["depends_on"]:
            target["depends_on"].append(src)
    plan: dict[str, Any] = {"tasks": list(tasks.values())}
    if end or undeclared:
        plan["workflow"] = {"end": end, "undeclared_edges": undeclared}
    if goal:
        plan = {"goal": goal, **plan}
    return plan


def _split_edges(text: str) -> tuple[str, str, str]:
    match = re.search(r"^\s*Edges?\s*:", text, re.MULTILINE)
    if match is None:
        return text, "", ""
    return text[: match.start()], "Edge:", text[match.end() :]


def worfbench_item_to_dict(item: dict[str, Any], source: str, index: int) -> dict[str, Any]:
    """One item of a WorfBench data file (its last assistant turn) as a canonical plan."""
    turns = item.get("conversations")
    label = f"{source}#{item.get('id', index)}"
    if not isinstance(turns, list):
        raise PlanLoadError("'conversations' is not a list", source=label)
    answers = [
        t.get("content") for t in turns if isinstance(t, dict) and t.get("role") == "assistant"
    ]
    if not answers or not isinstance(answers[-1], str):
        raise NoPlanFoundError("the item has no assistant turn with a workflow", source=label)
    users = [t.get("content") for t in turns if isinstance(t, dict) and t.get("role") == "user"]
    goal = worfbench_goal(users[0]) if users and isinstance(users[0], str) else None
    plan = worfbench_text_to_dict(answers[-1], source=label, goal=goal)
    if isinstance(item.get("id"), str):
        plan = {"plan_id": item["id"], **plan}
    return plan


def worfbench_goal(user_turn: str) -> str:
    """The task sentence of a WorfBench user turn (the text after ``Task:``, one paragraph)."""
    match = re.search(r"Task:\s*(.*)", user_turn, re.DOTALL)
    text = match.group(1) if match else user_turn
    stop = _GOAL_STOP.search(text)
    return (text[: stop.start()] if stop else text).strip()


def _catch(
    fn: Any, item: dict[str, Any], source: str, index: int
) -> dict[str, Any] | PlanLoadError:
    try:
        result: dict[str, Any] = fn(item, source, index)
    except PlanLoadError as exc:
        return exc
    return result


# --- TaskBench -------------------------------------------------------------------------------


def taskbench_to_dict(value: dict[str, Any], *, source: str) -> dict[str, Any]:
    """A TaskBench plan (``task_nodes`` with ``task`` / ``arguments``, ``task_links`` with
    ``source`` / ``target`` tool names) as a canonical plan; ``<node-k>`` arguments are needs."""
    nodes = value.get("task_nodes")
    if not isinstance(nodes, list):
        raise PlanLoadError("'task_nodes' must be a list", source=source, location="/task_nodes")
    tasks: list[dict[str, Any]] = []
    first_by_tool: dict[str, str] = {}
    for index, node in enumerate(nodes):
        if not isinstance(node, dict) or not isinstance(node.get("task"), str):
            raise PlanLoadError(
                "a TaskBench node must be an object with a string 'task'",
                source=source,
                location=f"/task_nodes/{index}",
            )
        task_id = f"node-{index}"
        first_by_tool.setdefault(node["task"], task_id)
        needs = []
        for arg_index, arg in enumerate(node.get("arguments") or []):
            name, text = f"arg{arg_index}", arg
            if isinstance(arg, dict):
                name = str(arg.get("name", name))
                text = arg.get("value", "")
            for ref in _NODE_REF.findall(str(text)):
                needs.append({"name": name, "task": f"node-{ref}"})
        tasks.append(
            {
                "id": task_id,
                "description": node["task"],
                "capabilities": [node["task"]],
                "depends_on": [],
                "needs": needs,
            }
        )
    for link in value.get("task_links") or []:
        if not isinstance(link, dict):
            continue
        src = first_by_tool.get(str(link.get("source")), str(link.get("source")))
        dst = first_by_tool.get(str(link.get("target")))
        if dst is not None:
            target = tasks[int(dst.split("-")[1])]
            if src not in target["depends_on"]:
                target["depends_on"].append(src)
    plan: dict[str, Any] = {"tasks": tasks}
    if isinstance(value.get("user_request"), str):
        plan = {"goal": value["user_request"], **plan}
    return plan


def _json_kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )
