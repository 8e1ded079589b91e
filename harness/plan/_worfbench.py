"""WorfBench workflows: ``Node:`` lines and ``Edge: (START,1) (1,2) ... (n,END)``."""

from __future__ import annotations

import re
from typing import Any

from harness._errors import NoPlanFoundError, PlanLoadError

__all__ = [
    "looks_like_worfbench",
    "worfbench_goal",
    "worfbench_item_to_dict",
    "worfbench_text_to_dict",
]

_NODE_LINE = re.compile(r"^\s*(\d+)\s*[:.)]\s*(.*?)\s*$")
_EDGE = re.compile(r"\(\s*([A-Za-z0-9_]+)\s*,\s*([A-Za-z0-9_]+)\s*\)")
# Where the task sentence of a WorfBench user turn ends and its tool / action list begins.
_GOAL_STOP = re.compile(
    r"\n\s*(?:api_list|Output:|The [\w ]*?(?:list|tables|fields))", re.IGNORECASE
)


def looks_like_worfbench(text: str) -> bool:
    """True when the text has a ``Node`` marker and an ``(a,b)`` edge."""
    return "Node" in text and _EDGE.search(text) is not None


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


def worfbench_item_to_dict(item: dict[str, Any], *, source: str) -> dict[str, Any]:
    """One item of a WorfBench data file (its last assistant turn) as a canonical plan.

    ``source`` names the item in messages (``FILE#<id>``).
    """
    turns = item.get("conversations")
    label = source
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
