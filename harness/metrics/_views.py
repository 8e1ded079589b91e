"""Reading answers and references as each benchmark reads them.

An answer or a reference is model text, a JSON value or a ``Plan``. WorfBench reads workflow
text with its own regular expressions (``parse_worfbench``); TaskBench reads a JSON object with
``task_nodes``. A canonical planeval plan is neither; it is converted (documented in
docs/metrics.md): tasks in plan order become nodes, ``depends_on`` become edges.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import chain
from typing import Any

from harness.metrics._taskbench import DependencyType
from harness.metrics._worfbench import WorfGraph, parse_worfbench
from harness.plan import Plan

__all__ = [
    "Source",
    "find_json",
    "infer_dependency",
    "plan_to_taskbench",
    "plan_to_worfgraph",
    "reference_family",
    "taskbench_record",
    "worfgraph",
]

Source = str | dict[str, Any] | Plan
"""What can be scored: model text, a parsed JSON object, or a plan."""


@lru_cache(maxsize=64)
def find_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` that has ``task_nodes`` or ``tasks`` (fences and prose
    are searched the way ``load_plan`` searches them).

    Cached, the last 64 (callers must not change the returned object): an answer is read by
    each family's reader, and a reference by ``Reference.read``'s. No more: a reference is read
    once, an answer scored again is remembered by its ``Reference``, and every object of a
    parsed answer kept here stays in the garbage collector's sight (a full collection walks
    them all)."""
    from harness.plan._adapters import _json_candidates

    stripped = text.strip()
    whole = [stripped] if stripped[:1] == "{" else []
    for candidate in chain(whole, _json_candidates(text)):
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            for holder in (value, value.get("result")):
                if isinstance(holder, dict) and ("task_nodes" in holder or "tasks" in holder):
                    return holder
    return None


def _looks_json(text: str) -> bool:
    return text.lstrip()[:1] == "{" and find_json(text) is not None


def _plan(value: dict[str, Any]) -> Plan | None:
    try:
        return Plan.from_dict(value)
    except ValueError:
        return None


def worfgraph(source: Source) -> WorfGraph | None:
    """The WorfBench view of an answer, or None when WorfBench would find no workflow."""
    if isinstance(source, Plan):
        return plan_to_worfgraph(source)
    if isinstance(source, str):
        graph = None if _looks_json(source) else parse_worfbench(source)
        if graph is not None:
            return graph
        found = find_json(source)
        if found is None:
            return None
        source = found
    if "tasks" in source:
        plan = _plan(source)
        return plan_to_worfgraph(plan) if plan is not None else None
    if "task_nodes" in source:
        from harness.plan._taskbench import taskbench_to_dict

        try:
            plan = _plan(taskbench_to_dict(source, source="<answer>"))
        except ValueError:
            return None
        return plan_to_worfgraph(plan) if plan is not None else None
    return None


def plan_to_worfgraph(plan: Plan) -> WorfGraph:
    """A plan as a WorfBench workflow: each task's description (else its first capability,
    else its id) is a node in plan order; ``START`` leads to tasks without dependencies,
    ``depends_on`` become edges, tasks nothing depends on lead to ``END``."""
    position: dict[str, int] = {}
    for index, task in enumerate(plan.tasks, start=1):
        position.setdefault(task.id, index)
    end = len(plan.tasks) + 1
    edges: list[tuple[int, int]] = []
    has_dependents: set[int] = set()
    for index, task in enumerate(plan.tasks, start=1):
        deps = [position[d] for d in task.depends_on if d in position]
        if not deps:
            edges.append((0, index))
        for dep in deps:
            edges.append((dep, index))
            has_dependents.add(dep)
    edges += [(i, end) for i in range(1, end) if i not in has_dependents]
    texts = [t.description or (t.capabilities[0] if t.capabilities else t.id) for t in plan.tasks]
    return WorfGraph(("START", *texts, "END"), tuple(edges))


def taskbench_record(source: Source, dependency: DependencyType) -> dict[str, Any] | None:
    """The TaskBench view (``{"task_nodes", "task_links"}``) of an answer, or None."""
    if isinstance(source, Plan):
        return plan_to_taskbench(source, dependency)
    if isinstance(source, str):
        found = find_json(source)
        if found is None:
            return None
        source = found
    if "task_nodes" in source:
        return source
    if "tasks" in source:
        plan = _plan(source)
        return plan_to_taskbench(plan, dependency) if plan is not None else None
    return None


def plan_to_taskbench(plan: Plan, dependency: DependencyType) -> dict[str, Any]:
    """A plan as a TaskBench record: each task's first capability (else its description) is
    the tool; a ``depends_on`` edge is a ``<node-k>`` argument (resource) or a task link
    (temporal); ``arguments`` kept on a task are passed through."""
    position: dict[str, int] = {}
    for index, task in enumerate(plan.tasks):
        position.setdefault(task.id, index)
    tools = [t.capabilities[0] if t.capabilities else t.description for t in plan.tasks]
    nodes, links = [], []
    for index, task in enumerate(plan.tasks):
        extra = task.extra.get("arguments")
        arguments = list(extra) if isinstance(extra, list) else []
        if dependency == "temporal":
            arguments = [
                a for a in arguments if isinstance(a, dict) and {"name", "value"} <= a.keys()
            ]
        for dep in task.depends_on:
            if dep not in position:
                continue
            if dependency == "resource":
                arguments.append(f"<node-{position[dep]}>")
            else:
                links.append({"source": tools[position[dep]], "target": tools[index]})
        nodes.append({"task": tools[index], "arguments": arguments})
    return {"task_nodes": nodes, "task_links": links}


def infer_dependency(record: dict[str, Any]) -> DependencyType:
    """``resource`` when a gold argument cites ``<node-k>`` or is plain text (huggingface,
    multimedia), ``temporal`` when arguments are ``{name, value}`` objects (dailylifeapis)."""
    for node in record.get("task_nodes") or []:
        for argument in (node.get("arguments") if isinstance(node, dict) else None) or []:
            if isinstance(argument, dict) and {"name", "value"} <= argument.keys():
                return "temporal"
            return "resource"
    return "temporal" if record.get("task_links") else "resource"


def reference_family(source: Source) -> tuple[str, ...]:
    """The metric families a reference supports: ``worfbench`` for a Node/Edge workflow,
    ``taskbench`` for a ``task_nodes`` record, both for a canonical plan, none otherwise."""
    if isinstance(source, Plan):
        return ("taskbench", "worfbench")
    if isinstance(source, str):
        if not _looks_json(source) and parse_worfbench(source) is not None:
            return ("worfbench",)
        found = find_json(source)
        if found is None:
            return ()
        source = found
    if "task_nodes" in source:
        return ("taskbench",)
    if "tasks" in source:
        return ("taskbench", "worfbench") if _plan(source) is not None else ()
    return ()
