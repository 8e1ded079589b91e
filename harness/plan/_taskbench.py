"""TaskBench plans: ``task_nodes`` are node occurrences, ``task_links`` name tools.

A TaskBench record lists tool calls (``{"task": tool, "arguments": [...]}``) and links between
tools (``{"source": tool, "target": tool}``). The same tool may be called several times, so a
link is ambiguous until it is resolved to a pair of node occurrences. The rule (documented in
docs/formats.md):

1. Node k becomes task ``node-k`` (its tool is the capability and the description).
2. Citations in a node's arguments are ``needs``: ``<node-k>`` / ``<output-of-node-k>`` (also
   inside ``{"name": ..., "value": ...}`` arguments or ``"image: <node-k>"`` text) name node k;
   ``<node-TOOL>``, ``<output-of-TOOL>`` or an argument value equal to the tool name of another
   node (TaskBench's temporal prompt asks for "the name of the tool whose result is required")
   name the nearest earlier occurrence of that tool (the first one when none is earlier).
   A ``<node-k>`` citation is also a dependency: that is how TaskBench reads resource plans
   (links come from the arguments); a tool-name citation is a need only, which the links must
   satisfy.
3. Each link takes one pair of occurrences (source i, target j): a pair where j cites i wins;
   otherwise the earliest pair in plan order (by source, then target) whose ends no other
   link with the same tool names uses; a pair that would close a dependency cycle is taken only
   when every reading of the links is cyclic.
4. A link end that names no node of the plan is kept under ``links.unresolved`` and reported by
   ``deps_resolve``; a note on an ambiguous tool citation lands under ``links.notes``.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from harness._errors import PlanLoadError
from harness.plan._arguments import arguments_to_json, split_references
from harness.plan._links import resolve_links
from harness.plan._model import carried_keys

__all__ = ["NODE_KEYS", "taskbench_to_dict"]

NODE_KEYS = frozenset({"task", "arguments"})
"""The node keys TaskBench defines; any other is carried and reported by ``schema``."""
_INDEX_CITATION = re.compile(r"<(?:output[-_ ]of[-_ ])?node[-_ ]?(\d+)>")
_NAME_CITATION = re.compile(r"<(?:output[-_ ]of[-_ ](?:node[-_ ])?|node[-_ ])([^<>]+?)>")


def taskbench_to_dict(value: dict[str, Any], *, source: str) -> dict[str, Any]:
    """A TaskBench record (or a prediction ``{"id", "result": {...}}``) as a canonical plan.

    Raises:
        PlanLoadError: ``task_nodes`` is not a list of objects with a string ``task``.
    """
    record = value
    if "task_nodes" not in value and isinstance(value.get("result"), dict):
        record = value["result"]
    nodes = record.get("task_nodes")
    base = "/task_nodes" if record is value else "/result/task_nodes"
    if not isinstance(nodes, list):
        raise PlanLoadError("'task_nodes' must be a list", source=source, location=base)
    tools: list[str] = []
    for index, node in enumerate(nodes):
        if not isinstance(node, dict) or not isinstance(node.get("task"), str):
            raise PlanLoadError(
                "a TaskBench node must be an object with a string 'task'",
                source=source,
                location=f"{base}/{index}",
            )
        tools.append(node["task"])
    ids = [f"node-{k}" for k in range(len(nodes))]
    where: dict[str, list[int]] = {}
    for k, tool in enumerate(tools):
        where.setdefault(tool, []).append(k)
    tasks: list[dict[str, Any]] = []
    notes: dict[str, str] = {}
    fixed: list[tuple[int, int]] = []  # (producer, consumer) from index citations
    cited: set[tuple[int, int]] = set()  # every citation, index or tool name
    for k, node in enumerate(nodes):
        needs: list[dict[str, str]] = []
        deps: list[str] = []
        arguments: dict[str, Any] = {}
        for name, raw in _arguments(node.get("arguments")):
            arguments[name] = _value(raw)
            text = _text(raw)
            for cite in _citations(text, k, len(tools), where):
                producer = cite.node
                if producer < 0:  # <node-k> beyond the plan: needs_resolve reports it
                    needs.append({"name": name, "task": cite.note})
                    continue
                if cite.note:
                    notes[f"/tasks/{k}/needs/{len(needs)}"] = cite.note
                needs.append({"name": name, "task": ids[producer]})
                cited.add((producer, k))
                if cite.by_index and producer != k:
                    fixed.append((producer, k))
                    if ids[producer] not in deps:
                        deps.append(ids[producer])
        task: dict[str, Any] = {
            "id": ids[k],
            "description": tools[k],
            "capabilities": [tools[k]],
            "depends_on": deps,
            "needs": needs,
        }
        if arguments:
            task["arguments"] = arguments_to_json(arguments)
        task.update(carried_keys(node, NODE_KEYS, "taskbench"))
        tasks.append(task)
    links, unresolved = _links(record.get("task_links"), where, cited, fixed)
    for producer, consumer in links:
        deps = tasks[consumer]["depends_on"]
        if ids[producer] not in deps:
            deps.append(ids[producer])
    plan: dict[str, Any] = {}
    if isinstance(value.get("id"), str | int) and not isinstance(value.get("id"), bool):
        plan["plan_id"] = str(value["id"])
    request = value.get("user_request", record.get("user_request"))
    if isinstance(request, str):
        plan["goal"] = request
    plan["tasks"] = tasks
    if unresolved or notes:
        plan["links"] = {"unresolved": unresolved, "notes": notes}
    return plan


def _arguments(arguments: Any) -> list[tuple[str, Any]]:
    """``(name, value)`` per argument: strings (``arg<i>``), ``{"name", "value"}`` objects, or
    a mapping."""
    if isinstance(arguments, dict):
        return [(str(k), v) for k, v in arguments.items()]
    if not isinstance(arguments, list):
        return []
    out = []
    for index, arg in enumerate(arguments):
        if isinstance(arg, dict):
            name = arg.get("name")
            value = arg.get("value", "" if "name" in arg else next(iter(arg.values()), ""))
            out.append((name if isinstance(name, str) and name else f"arg{index}", value))
        else:
            out.append((f"arg{index}", arg))
    return out


def _value(raw: Any) -> Any:
    """An argument value with each ``<node-k>`` citation as a reference to ``node-k``."""
    if isinstance(raw, str):
        return split_references(raw, _INDEX_CITATION, _node_id) if "<" in raw else raw
    if isinstance(raw, list):
        return [_value(v) for v in raw]
    if isinstance(raw, dict):
        return {k: _value(v) for k, v in raw.items()}
    return raw


def _node_id(match: re.Match[str]) -> str:
    return f"node-{int(match.group(1))}"


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(_text(v) for v in value)
    return ""


class _Citation(NamedTuple):
    node: int
    """The cited node's position; -1 for a ``<node-k>`` beyond the plan."""
    by_index: bool
    """``<node-k>`` (a dependency too) rather than a tool name (a need only)."""
    note: str
    """Why an ambiguous tool name was read as this node, or the label of a missing node."""


def _citations(text: str, consumer: int, size: int, where: dict[str, list[int]]) -> list[_Citation]:
    """The nodes one argument cites."""
    if "<" not in text:
        places = where.get(text.strip())
        if places is None or places == [consumer]:
            return []
        return [_nearest(text.strip(), consumer, places)]
    found = []
    for match in _INDEX_CITATION.finditer(text):
        k = int(match.group(1))
        found.append(_Citation(k, True, "") if k < size else _Citation(-1, True, f"node-{k}"))
    if not found:
        for match in _NAME_CITATION.finditer(text):
            name = match.group(1).strip()
            if name in where:
                found.append(_nearest(name, consumer, where[name]))
    return found


def _nearest(tool: str, consumer: int, occurrences: list[int]) -> _Citation:
    """The occurrence of ``tool`` a citation by node ``consumer`` means, and a note when the
    tool occurs more than once (the reading is then a choice worth saying)."""
    places = [i for i in occurrences if i != consumer]
    if not places:  # the node names its own tool: a self-citation
        return _Citation(consumer, False, "")
    earlier = [i for i in places if i < consumer]
    chosen = earlier[-1] if earlier else places[0]
    if len(places) == 1:
        return _Citation(chosen, False, "")
    nodes = ", ".join(f"node-{i}" for i in places[:-1]) + f" and node-{places[-1]}"
    which = "the nearest earlier one" if earlier else "the first; none is earlier"
    note = f"{tool!r} is the tool of {nodes}; the citation is read as node-{chosen}, {which}"
    return _Citation(chosen, False, note)


def _links(
    raw: Any,
    where: dict[str, list[int]],
    cited: set[tuple[int, int]],
    fixed: list[tuple[int, int]],
) -> tuple[list[tuple[int, int]], list[dict[str, Any]]]:
    """Resolved ``(producer, consumer)`` pairs and the links that name no node."""
    if raw is None:
        return [], []
    unresolved: list[dict[str, Any]] = []
    wanted: list[tuple[str, str]] = []
    if not isinstance(raw, list):
        unresolved.append(_bad_link(-1, raw, "'task_links' is not a list"))
        return [], unresolved
    for index, link in enumerate(raw):
        src = link.get("source") if isinstance(link, dict) else None
        dst = link.get("target") if isinstance(link, dict) else None
        if not isinstance(src, str) or not isinstance(dst, str):
            unresolved.append(_bad_link(index, link, "not an object with string source/target"))
            continue
        missing = [end for end in (src, dst) if end not in where]
        if missing:
            missing = list(dict.fromkeys(missing))
            unresolved.append({"index": index, "source": src, "target": dst, "missing": missing})
            continue
        wanted.append((src, dst))
    return resolve_links(wanted, where, cited, fixed), unresolved


def _bad_link(index: int, link: Any, why: str) -> dict[str, Any]:
    return {"index": index, "source": "", "target": "", "missing": [], "problem": why}
