"""WorfBench workflows, read as WorfBench's own evaluator reads them.

``node_eval.py:workflow_to_graph_list`` (zjunlp/WorfBench at
38a6455557128dffceae9a08ffd745f04a4a9d03) reads a workflow with two regular expressions over
the whole answer text: every match of
``\\d+[:.] (.+)`` is a node, numbered by its position (1, 2, ...), and every match of
``\\(\\s*(\\d+|START)\\s*,\\s*(\\d+|END)\\s*\\)`` is an edge between positions (START is 0,
END the position after the last node). So edges written in markdown (``- **Edge**: (START, 1),
(1, 2)``, ``- (1, 2)``, ``(1,2) -> (2,3)``) are edges, and a text without ``Node`` has no
workflow. planeval reads the same nodes and edges, with one difference it reports: numbered
lines outside the workflow's node block (prose that restates the nodes, ``6. **Edge**: (4, 5)``)
are nodes to node_eval.py but not tasks here; they are kept under ``workflow.prose_nodes`` and
the ``schema`` check warns that WorfBench counts them (docs/formats.md).
"""

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

_NODE = re.compile(r"\d+[:.] (.+)")
"""node_eval.py's node pattern (``node_pattern``), verbatim."""
_EDGE = re.compile(r"\(\s*(\d+|START)\s*,\s*(\d+|END)\s*\)")
"""node_eval.py's edge pattern (``edge_pattern``), verbatim: START and END in capitals only."""
# Where the task sentence of a WorfBench user turn ends and its tool / action list begins.
_GOAL_STOP = re.compile(
    r"\n\s*(?:api_list|Output:|The [\w ]*?(?:list|tables|fields))", re.IGNORECASE
)


def looks_like_worfbench(text: str) -> bool:
    """True when node_eval.py would read a workflow: ``Node`` and at least one edge."""
    return "Node" in text and _EDGE.search(text) is not None


def worfbench_text_to_dict(text: str, *, source: str, goal: str | None = None) -> dict[str, Any]:
    """A WorfBench workflow as a canonical plan, nodes and edges as node_eval.py reads them.

    A task's id is its node position (as node_eval.py numbers nodes); an edge ``(i, j)`` means
    task j depends on task i; START and END are markers, not tasks. The targets of edges from
    START, the tasks with an edge to END, edges into positions that are not tasks, and the
    numbered prose lines node_eval.py also counts as nodes are kept under ``workflow``
    (checked by ``reaches_end``, ``deps_resolve`` and ``schema``).

    Raises:
        NoPlanFoundError: no ``Node`` in the text, or no numbered node line.
    """
    matches = list(_NODE.finditer(text)) if "Node" in text else []
    if not matches:
        raise NoPlanFoundError(
            "no numbered Node: lines in the WorfBench workflow"
            if "Node" in text
            else "no 'Node' in the text: WorfBench's node_eval.py reads no workflow from it",
            source=source,
            hint="expected 'Node:' then lines like '1: Do something', then 'Edge: (START,1) ...'",
        )
    first, last = _node_block(text, matches)
    tasks: dict[str, dict[str, Any]] = {}
    for position, match in enumerate(matches[first:last], first + 1):
        tasks[str(position)] = {
            "id": str(position),
            "description": match.group(1).strip(),
            "depends_on": [],
        }
    prose = [
        {"position": position, "text": match.group(1).strip()}
        for position, match in enumerate(matches, 1)
        if not first < position <= last
    ]
    undeclared: list[list[str]] = []
    start: list[str] = []
    end: list[str] = []
    for src, dst in _EDGE.findall(text):
        if src == "START":
            dst = dst if dst == "END" else str(int(dst))
            if dst not in start:
                start.append(dst)
            continue
        src = str(int(src))
        if dst == "END":
            if src not in end:
                end.append(src)
            continue
        target = tasks.get(str(int(dst)))
        if target is None:  # an edge into a position that is no task
            undeclared.append([src, str(int(dst))])
        elif src not in target["depends_on"]:
            target["depends_on"].append(src)
    plan: dict[str, Any] = {"tasks": list(tasks.values())}
    if start or end or undeclared or prose:
        plan["workflow"] = {"start": start, "end": end, "undeclared_edges": undeclared}
        if prose:
            plan["workflow"]["prose_nodes"] = prose
    if goal:
        plan = {"goal": goal, **plan}
    return plan


def _node_block(text: str, matches: list[re.Match[str]]) -> tuple[int, int]:
    """``[first, last)`` of the matches that form the workflow's node block: from the first
    match at or after the line that says ``Node``, over the matches on the lines that follow
    it with nothing but blank lines between them."""
    header = text.find("Node")
    header_line = text.rfind("\n", 0, header) + 1
    first = next((k for k, m in enumerate(matches) if m.start() >= header_line), 0)
    last = first + 1
    line_end = text.find("\n", matches[first].start())
    while last < len(matches) and line_end != -1:
        between = text[line_end : text.rfind("\n", 0, matches[last].start()) + 1]
        if between.strip():
            break
        line_end = text.find("\n", matches[last].start())
        last += 1
    return first, last


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
