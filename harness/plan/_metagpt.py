"""MetaGPT plans: the task list of MetaGPT's ``WritePlan`` action (geekan/MetaGPT).

The planner answers a JSON list ``[{"task_id", "dependent_task_ids", "instruction",
"task_type"}]`` (``metagpt/actions/di/write_plan.py``), usually in a code fence;
``update_plan_from_rsp`` reads it with ``json.loads`` into ``Task(**task_config)`` (pydantic:
``task_id: str``, ``dependent_task_ids: list[str]``, ``instruction: str``, ``task_type: str``).
MetaGPT's ``Plan`` model serializes the same tasks under ``{"goal", "tasks": [...]}``. A task's
id is ``task_id``, its description ``instruction``, its capability ``task_type`` (when given),
its dependencies ``dependent_task_ids``. MetaGPT's own keys that are no plan (``code``,
``result``, ``is_success``, ``is_finished``, ``assignee``) are kept and reported by ``schema``.

MetaGPT's RoleZero roles (TeamLeader, ``metagpt/roles/di/role_zero.py`` ``_parse_commands``)
answer a list of commands instead, ``[{"command_name": "Plan.append_task", "args": {"task_id",
"dependent_task_ids", "instruction", "assignee"}}, {"command_name":
"TeamLeader.publish_message", ...}]`` (one command object is read as a list of one, and
``{"commands": [...]}`` as its list): each ``Plan.append_task`` appends ``Task(**args)``
(``Plan.append_task``, ``metagpt/schema.py``), so its args are a task, in order; the other
commands are no tasks and are kept, in order, under the plan's ``metagpt:commands``. Such an
answer appends to the plan MetaGPT already holds: a task citing one it does not contain fails
``deps_resolve`` here, as ``_append_task``'s "unknown dependencies" assertion does on an empty
plan.
"""

from __future__ import annotations

from typing import Any

from harness._errors import PlanLoadError

__all__ = ["looks_like_metagpt", "metagpt_to_dict"]

_READ = frozenset({"task_id", "dependent_task_ids", "instruction", "task_type"})
_APPEND_TASK = "Plan.append_task"


def looks_like_metagpt(value: Any) -> bool:
    """A non-empty list of objects that all have ``task_id`` and ``instruction``, or a RoleZero
    command list (objects with a ``command_name``) with a ``Plan.append_task``."""
    if not isinstance(value, list) or not value:
        return False
    if all(isinstance(t, dict) and "task_id" in t and "instruction" in t for t in value):
        return True
    return _is_command_list(value) and any(c["command_name"] == _APPEND_TASK for c in value)


def _is_command_list(value: list[Any]) -> bool:
    """Objects that all name a ``command_name`` (``end`` has no ``args``)."""
    return all(isinstance(c, dict) and isinstance(c.get("command_name"), str) for c in value)


def metagpt_to_dict(value: Any, *, source: str, goal: Any = None) -> dict[str, Any]:
    """A MetaGPT task list as a canonical plan.

    Raises:
        PlanLoadError: not a list of objects with a string ``task_id`` (MetaGPT's ``Task``
            model rejects the rest too).
    """
    if not isinstance(value, list):
        raise PlanLoadError(
            "a MetaGPT plan is a JSON list of tasks",
            source=source,
            location="/",
            hint='expected [{"task_id": "1", "dependent_task_ids": [], "instruction": ...}]',
        )
    commands: list[Any] = []
    items: list[tuple[str, Any]] = [(f"/{index}", item) for index, item in enumerate(value)]
    if value and _is_command_list(value):
        if not any(c["command_name"] == _APPEND_TASK for c in value):
            raise PlanLoadError(
                "a MetaGPT command list without a 'Plan.append_task' command holds no task",
                source=source,
                location="/",
                hint="RoleZero's tasks are its Plan.append_task commands",
            )
        commands = [c for c in value if c["command_name"] != _APPEND_TASK]
        items = [
            (f"/{index}/args", c.get("args"))
            for index, c in enumerate(value)
            if c["command_name"] == _APPEND_TASK
        ]
    tasks = []
    for where, item in items:
        if not isinstance(item, dict) or not isinstance(item.get("task_id"), str):
            raise PlanLoadError(
                "a MetaGPT task must be an object with a string 'task_id'",
                source=source,
                location=f"{where}/task_id",
            )
        deps = item.get("dependent_task_ids", [])
        if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
            raise PlanLoadError(
                "'dependent_task_ids' must be a list of task ids (strings)",
                source=source,
                location=f"{where}/dependent_task_ids",
            )
        task: dict[str, Any] = {
            "id": item["task_id"],
            "description": item.get("instruction")
            if isinstance(item.get("instruction"), str)
            else "",
            "depends_on": list(deps),
        }
        task_type = item.get("task_type")
        if isinstance(task_type, str) and task_type.strip():
            task["capabilities"] = [task_type]
        task.update({k: v for k, v in item.items() if k not in _READ})
        tasks.append(task)
    plan: dict[str, Any] = {"tasks": tasks}
    if commands:
        plan["metagpt:commands"] = commands
    if isinstance(goal, str):
        plan = {"goal": goal, **plan}
    return plan
