"""Perturbations of gold plans for the metric agreement tests (handwritten).

Each function takes a gold plan and returns a changed copy: the edits a planner makes (drop a
task, rename a tool, reverse a link, repeat a tool, reorder tasks). WorfBench workflows are
handled as (node texts, edges by position); TaskBench records as dicts.
"""

from __future__ import annotations

import copy
import random
import re
from typing import Any

Workflow = tuple[list[str], list[tuple[int, int]]]
"""Task texts (without START / END) and edges with START = 0 and END = len(texts) + 1."""

_NODE = re.compile(r"\d+[:.] (.+)")
_EDGE = re.compile(r"\(\s*(\d+|START)\s*,\s*(\d+|END)\s*\)")


def read_workflow(text: str) -> Workflow:
    """Task texts and edges of a WorfBench gold text."""
    texts = [m.strip() for m in _NODE.findall(text)]
    end = len(texts) + 1
    edges = [
        (0 if a == "START" else int(a), end if b == "END" else int(b))
        for a, b in _EDGE.findall(text)
    ]
    return texts, edges


def write_workflow(texts: list[str], edges: list[tuple[int, int]]) -> str:
    """WorfBench text: ``Node:`` lines and one ``Edge:`` line."""
    end = len(texts) + 1

    def name(i: int) -> str:
        return "START" if i == 0 else "END" if i == end else str(i)

    lines = ["Node:", *(f"{i}: {t}" for i, t in enumerate(texts, 1))]
    lines.append("Edge: " + " ".join(f"({name(a)},{name(b)})" for a, b in edges))
    return "\n".join(lines)


def worfbench_variants(text: str, rng: random.Random) -> list[str]:
    """Perturbed copies of a gold workflow: drop, rename, reverse, duplicate, reorder, shuffle."""
    texts, edges = read_workflow(text)
    n, end = len(texts), len(texts) + 1
    out = []
    if n >= 2:
        k = rng.randrange(1, n + 1)  # drop task k, renumber the rest
        keep = [i for i in range(n + 2) if i != k]
        new = {old: pos for pos, old in enumerate(keep)}
        out.append(
            write_workflow(
                [t for i, t in enumerate(texts, 1) if i != k],
                [(new[a], new[b]) for a, b in edges if k not in (a, b) and a in new and b in new],
            )
        )
    k = rng.randrange(n)
    renamed = [*texts]
    renamed[k] = renamed[k] + " with extra care"
    out.append(write_workflow(renamed, edges))
    inner = [(a, b) for a, b in edges if a > 0 and b < end]
    if inner:
        a, b = rng.choice(inner)
        out.append(
            write_workflow(texts, [(b, a) if (x, y) == (a, b) else (x, y) for x, y in edges])
        )
    k = rng.randrange(n)  # repeat task k at the end, wired START -> copy -> END
    copy_edges = [(a, b if b != end else end + 1) for a, b in edges]
    out.append(write_workflow([*texts, texts[k]], [*copy_edges, (0, n + 1), (n + 1, end + 1)]))
    order = list(range(1, n + 1))
    rng.shuffle(order)  # same graph, tasks listed in another order
    pos = {old: new for new, old in enumerate(order, 1)} | {0: 0, end: end}
    out.append(write_workflow([texts[i - 1] for i in order], [(pos[a], pos[b]) for a, b in edges]))
    shuffled = [*texts]
    rng.shuffle(shuffled)  # same numbering and edges, texts moved around
    out.append(write_workflow(shuffled, edges))
    return out


def taskbench_variants(
    record: dict[str, Any], tools: list[str], rng: random.Random
) -> list[dict[str, Any]]:
    """Perturbed copies of a TaskBench gold record (resource or temporal)."""
    nodes = record["task_nodes"]
    out = []
    if len(nodes) >= 2:
        k = rng.randrange(len(nodes))
        dropped = copy.deepcopy(record)
        name = dropped["task_nodes"].pop(k)["task"]
        dropped["task_links"] = [
            link for link in dropped["task_links"] if name not in (link["source"], link["target"])
        ]
        out.append(_renumber(dropped, {i: i - (i > k) for i in range(len(nodes)) if i != k}))
    renamed = copy.deepcopy(record)
    k = rng.randrange(len(nodes))
    renamed["task_nodes"][k]["task"] = rng.choice([*tools, "no_such_tool"])
    out.append(renamed)
    if record.get("task_links"):
        reversed_ = copy.deepcopy(record)
        link = reversed_["task_links"][0]
        link["source"], link["target"] = link["target"], link["source"]
        out.append(reversed_)
    doubled = copy.deepcopy(record)
    doubled["task_nodes"].append(copy.deepcopy(nodes[rng.randrange(len(nodes))]))
    out.append(doubled)
    order = list(range(len(nodes)))
    rng.shuffle(order)
    moved = copy.deepcopy(record)
    moved["task_nodes"] = [copy.deepcopy(nodes[i]) for i in order]
    out.append(_renumber(moved, {old: new for new, old in enumerate(order)}))
    changed = copy.deepcopy(record)
    args = changed["task_nodes"][0].get("arguments") or []
    if args:
        args.pop()
        out.append(changed)
    return out


def _renumber(record: dict[str, Any], new: dict[int, int]) -> dict[str, Any]:
    """Rewrite ``<node-k>`` references after nodes moved; an argument citing a dropped node is
    dropped with it."""

    def cites_dropped(value: Any) -> bool:
        return isinstance(value, str) and any(
            int(k) not in new for k in re.findall(r"<node-(\d+)>", value)
        )

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            return re.sub(r"<node-(\d+)>", lambda m: f"<node-{new[int(m.group(1))]}>", value)
        return value

    for node in record["task_nodes"]:
        args = node.get("arguments", [])
        node["arguments"] = [fix(a) for a in args if not cites_dropped(a)]
    return record
