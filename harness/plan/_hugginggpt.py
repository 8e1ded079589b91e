"""HuggingGPT plans: the task-planning stage of HuggingGPT (microsoft/JARVIS).

A plan is a JSON list of tasks ``{"task": ..., "id": 0, "dep": [-1], "args": {...}}``. ``dep``
lists the ids of the tasks that must finish first (``-1`` means none); an argument value
``<GENERATED>-k`` or ``<GENERATED-k>`` reads the output of task k, so it is a need on task k.
HuggingGPT's own server rewrites ``dep`` from those arguments before it runs a plan
(``fix_dep``); planeval keeps what the planner wrote, so ``needs_earlier_output`` reports a
plan whose ``dep`` disagrees with its arguments.
"""

from __future__ import annotations

import re
from typing import Any

from harness._errors import PlanLoadError
from harness.plan._arguments import arguments_to_json, split_references
from harness.plan._model import carried_keys

__all__ = ["hugginggpt_to_dict", "looks_like_hugginggpt"]

_KEYS = frozenset({"task", "id", "dep", "args"})
"""The task keys HuggingGPT defines; any other is carried and reported by ``schema``."""
_GENERATED = re.compile(r"<GENERATED>-(\d+)|<GENERATED-(\d+)>")


def looks_like_hugginggpt(value: Any) -> bool:
    """True for a non-empty list of objects with ``task``, at least one with ``dep``."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(item, dict) and "task" in item for item in value)
        and any("dep" in item for item in value)
    )


def hugginggpt_to_dict(value: Any, *, source: str) -> dict[str, Any]:
    """A HuggingGPT task list as a canonical plan (ids as strings, tools as capabilities).

    Raises:
        PlanLoadError: the value is not a list of task objects with a string ``task``.
    """
    if not isinstance(value, list):
        raise PlanLoadError(
            "a HuggingGPT plan is a JSON list of tasks",
            source=source,
            location="/",
            hint='expected [{"task": ..., "id": 0, "dep": [-1], "args": {...}}]',
        )
    tasks = []
    for index, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("task"), str):
            raise PlanLoadError(
                "a HuggingGPT task must be an object with a string 'task'",
                source=source,
                location=f"/{index}",
            )
        task_id = _id(item.get("id"), index)
        task = {
            "id": task_id,
            "description": item["task"],
            "capabilities": [item["task"]],
            "depends_on": _deps(item.get("dep")),
            "needs": _needs(item.get("args")),
        }
        arguments = _arguments(item.get("args"))
        if arguments:
            task["arguments"] = arguments
        task.update(carried_keys(item, _KEYS, "hugginggpt"))
        tasks.append(task)
    return {"tasks": tasks}


def _id(value: Any, index: int) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str) or str(value).strip() == "":
        return str(index)
    return str(value)


def _deps(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [] if value is None else [value]
    deps: list[str] = []
    for dep in items:
        if isinstance(dep, bool) or not isinstance(dep, int | str):
            continue
        text = str(dep).strip()
        if text and text != "-1" and text not in deps:
            deps.append(text)
    return deps


def _arguments(args: Any) -> dict[str, Any]:
    """The arguments in canonical JSON, ``<GENERATED>-k`` as a reference to task k."""
    if isinstance(args, list):
        pairs = [(f"arg{i}", v) for i, v in enumerate(args)]
    elif isinstance(args, dict):
        pairs = [(str(k), v) for k, v in args.items()]
    else:
        return {}
    return arguments_to_json({name: _value(value) for name, value in pairs})


def _value(value: Any) -> Any:
    if isinstance(value, str):
        if "GENERATED" not in value:
            return value
        return split_references(value, _GENERATED, lambda m: m.group(1) or m.group(2))
    if isinstance(value, list):
        return [_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _value(v) for k, v in value.items()}
    return value


def _needs(args: Any) -> list[dict[str, str]]:
    if isinstance(args, list):
        pairs = [(f"arg{i}", v) for i, v in enumerate(args)]
    elif isinstance(args, dict):
        pairs = [(str(k), v) for k, v in args.items()]
    else:
        return []
    needs = []
    for name, text in pairs:
        if not isinstance(text, str) or "GENERATED" not in text:
            continue
        for match in _GENERATED.finditer(text):
            needs.append({"name": name, "task": match.group(1) or match.group(2)})
    return needs
