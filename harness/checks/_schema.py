"""The ``schema`` check: does the plan document match the published JSON Schema?

jsonschema is the judge, but it is slow on big plans (about 18 s for 100,000 tasks). A hand
written predicate that mirrors the schema answers "valid?" in linear time; only when it says no
does jsonschema run, and then only on the top level and the tasks the predicate flagged, to
produce its exact messages and JSON pointers. A property-based test holds the predicate and
jsonschema to the same verdict.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from harness.plan._model import DEPENDENCY_KEYS, TASK_KEYS, dependency_entries
from harness.schemas import load_schema

if TYPE_CHECKING:  # imported when a plan breaks the schema: valid plans never pay for it
    from jsonschema import Draft202012Validator

    from harness.plan import Plan

__all__ = ["is_valid_task", "plan_model_ok", "schema_errors", "unread_keys", "workflow_ok"]

_ON_FAILURE = frozenset({"stop", "skip_dependents", "continue"})
_AGENT_FIELDS = ("name", "description", "instructions")


@cache
def _validators() -> tuple[Draft202012Validator, Draft202012Validator]:
    from jsonschema import Draft202012Validator

    schema = load_schema("plan")
    root = {**schema, "properties": {**schema["properties"], "tasks": {"type": "array"}}}
    task = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/task"}
    return Draft202012Validator(root), Draft202012Validator(task)


def schema_errors(document: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(json_pointer, message)`` for each place the document breaks the plan schema."""
    if not _root_ok(document):
        for error in _validators()[0].iter_errors(document):
            yield _pointer(error.absolute_path), error.message
    tasks = document.get("tasks")
    if not isinstance(tasks, list):
        return
    for index, task in enumerate(tasks):
        if is_valid_task(task):
            continue
        errors = _validators()[1].iter_errors(task)
        for error in sorted(errors, key=lambda e: list(e.absolute_path)):
            yield _pointer(["tasks", index, *error.absolute_path]), error.message


def unread_keys(document: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(json_pointer, message)`` for each task key the plan format does not define.

    A spelling of ``depends_on`` (``DEPENDENCY_KEYS``) is read as dependencies and the message
    says so; any other key is kept but read by no check, which the message says too.
    """
    tasks = document.get("tasks")
    if not isinstance(tasks, list):
        return
    try:  # every key of every task at C speed: most plans use canonical keys only
        if set().union(*tasks) <= TASK_KEYS:
            return
    except TypeError:  # a task that is no container: the loop below skips it
        pass
    for index, task in enumerate(tasks):
        if not isinstance(task, dict) or task.keys() <= TASK_KEYS:
            continue
        for key in task:
            if key in TASK_KEYS:
                continue
            pointer = _pointer(["tasks", index, key])
            if key in DEPENDENCY_KEYS:
                read = [dep for dep, where, _ in dependency_entries(task) if where == key]
                yield (
                    pointer,
                    f"task key {key!r} is not in the plan format; read as depends_on "
                    f"{read} (at {pointer}); write depends_on to silence this",
                )
            else:
                yield (
                    pointer,
                    f"task key {key!r} is not in the plan format: kept, but no check reads "
                    f"it (at {pointer}: {_preview(task[key])}); if it states an order or an "
                    "input, write it as depends_on or needs",
                )


def _preview(value: Any) -> str:
    """The value as JSON, cut to 100 characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 100 else text[:99] + "…"


def plan_model_ok(plan: Plan) -> bool:
    """True when a plan built without a source document (directly by an adapter) certainly
    matches the schema: what ``plan.to_dict()`` would give is then valid, so it need not be
    built. False means "not sure": the caller validates ``plan.to_dict()``."""
    if plan.extra or (plan.plan_id is not None and plan.plan_id == ""):
        return False
    for task in plan.tasks:
        if task.extra or task.agent is not None or not task.id:
            return False
        if "" in task.capabilities or "" in task.depends_on:
            return False
        if task.on_failure is not None and task.on_failure not in _ON_FAILURE:
            return False
        for need in task.needs:
            if not need.name or not need.task:
                return False
    return True


def _root_ok(doc: Mapping[str, Any]) -> bool:
    if not isinstance(doc, dict) or not isinstance(doc.get("tasks"), list):
        return False
    plan_id = doc.get("plan_id", "x")
    goal = doc.get("goal", "")
    if not (isinstance(plan_id, str) and plan_id != "" and isinstance(goal, str)):
        return False
    if "links" in doc and not _links_ok(doc["links"]):
        return False
    return "workflow" not in doc or workflow_ok(doc["workflow"])


_LINK_FIELDS = {"index": int, "source": str, "target": str, "problem": str}


def _links_ok(links: Any) -> bool:
    """The TaskBench adapter's ``links`` object (same verdict as the schema)."""
    if not isinstance(links, dict):
        return False
    notes = links.get("notes", {})
    if not isinstance(notes, dict) or not set(map(type, notes.values())) <= {str}:
        return False
    unresolved = links.get("unresolved", [])
    if type(unresolved) is not list:
        return False
    for link in unresolved:
        if not isinstance(link, dict):
            return False
        for key, kind in _LINK_FIELDS.items():
            if key in link and (type(link[key]) is not kind):
                return False
        missing = link.get("missing", [])
        if type(missing) is not list or not set(map(type, missing)) <= {str}:
            return False
    return True


def workflow_ok(workflow: Any) -> bool:
    if not isinstance(workflow, dict):
        return False
    end = workflow.get("end", [])
    start = workflow.get("start", [])
    edges = workflow.get("undeclared_edges", [])
    for ids in (start, end):
        if type(ids) is not list or not set(map(type, ids)) <= {str}:
            return False
    if not (
        type(edges) is list
        and all(type(e) is list and len(e) == 2 and set(map(type, e)) <= {str} for e in edges)
    ):
        return False
    prose = workflow.get("prose_nodes", [])
    return type(prose) is list and all(
        isinstance(p, dict)
        and type(p.get("position")) is int
        and p["position"] >= 1
        and isinstance(p.get("text"), str)
        for p in prose
    )


def is_valid_task(task: Any) -> bool:
    """True when one task matches ``#/$defs/task`` (same verdict as jsonschema)."""
    if not isinstance(task, dict):
        return False
    get = task.get
    if "id" in task and not _nonempty(get("id")):
        return False
    if "description" in task and not isinstance(get("description"), str):
        return False
    if "agent" in task:
        agent = get("agent")
        if not isinstance(agent, dict):
            return False
        for name in _AGENT_FIELDS:
            if name in agent and not isinstance(agent[name], str):
                return False
    for key in ("capabilities", "depends_on"):
        if key in task:
            value = get(key)
            if type(value) is not list or not _nonempty_strings(value):
                return False
    if "needs" in task and not _needs_ok(get("needs")):
        return False
    if "arguments" in task and not _arguments_ok(get("arguments")):
        return False
    return "on_failure" not in task or (
        isinstance(get("on_failure"), str) and get("on_failure") in _ON_FAILURE
    )


def _needs_ok(needs: Any) -> bool:
    if type(needs) is list:
        for need in needs:
            if not isinstance(need, dict) or "name" not in need or "task" not in need:
                return False
            if not _nonempty(need["name"]) or not _nonempty(need["task"]):
                return False
        return True
    if isinstance(needs, dict):
        return all(_nonempty(v) for v in needs.values())
    return False


def _arguments_ok(arguments: Any) -> bool:
    """``#/$defs/task/properties/arguments``: an object of argument values (iterative), or a
    list kept as it is."""
    if type(arguments) is list:  # TaskBench's own form, kept as it is
        return True
    if not isinstance(arguments, dict):
        return False
    if set(map(type, arguments.values())) <= _SCALARS:  # the common case, at C speed
        return True
    stack = list(arguments.values())
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if "$result" in value:
                if not _reference_ok(value):
                    return False
            elif "$concat" in value:
                parts = value["$concat"]
                if len(value) != 1 or type(parts) is not list:
                    return False
                if not all(isinstance(p, str) or _reference_ok(p) for p in parts):
                    return False
            else:
                stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return True


_SCALARS = {str, int, float, bool, type(None)}


def _reference_ok(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and _nonempty(value.get("$result"))


def _nonempty_strings(values: list[Any]) -> bool:
    # set(map(type, ...)) runs at C speed; "" in values is a C-level scan too.
    return set(map(type, values)) <= {str} and "" not in values


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _pointer(parts: Any) -> str:
    out = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
    return out or "/"
