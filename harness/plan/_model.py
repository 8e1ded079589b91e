"""The plan model: frozen records built from the canonical plan JSON.

The builder is tolerant on purpose: it needs only the backbone (an object with a ``tasks`` list
of objects whose ids, when present, are non-empty strings). Everything else that deviates from
the published schema is kept as well as it can be and reported by the ``schema`` check, so one
plan yields every violation at once instead of stopping at the first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness._errors import PlanLoadError
from harness._gc import gc_paused
from harness.plan._arguments import arguments_from_json, arguments_to_json

__all__ = [
    "DEPENDENCY_KEYS",
    "TASK_KEYS",
    "Need",
    "Plan",
    "Task",
    "dependency_entries",
    "new_need",
    "new_plan",
    "new_task",
]


@dataclass(frozen=True, slots=True)
class Need:
    """A named input a task reads from an earlier task's result."""

    name: str
    """The name the consuming task knows the input by."""
    task: str
    """The id of the producing task."""


@dataclass(frozen=True, slots=True)
class Task:
    """One task of a plan."""

    id: str
    """Unique id within the plan (positional ``task_N`` for flat plans)."""
    description: str = ""
    """What the task does."""
    capabilities: tuple[str, ...] = ()
    """Capability references (``name`` or ``name@1.2``) from the registry."""
    depends_on: tuple[str, ...] = ()
    """Ids of tasks that must finish first."""
    needs: tuple[Need, ...] = ()
    """Named inputs taken from earlier tasks' results."""
    on_failure: str | None = None
    """``stop`` (default), ``skip_dependents`` or ``continue``."""
    agent: Mapping[str, Any] | None = field(default=None, compare=False)
    """The agentic gem's agent spec (name, description, instructions), kept as it is."""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """Keys the model does not know, kept so that nothing is lost on a round trip."""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    """What the task passes to its tool: ``{name: value}``, JSON values in which references to
    earlier results are ``Ref`` / ``Template`` records (``harness.plan``), never strings."""

    def to_dict(self) -> dict[str, Any]:
        """The task as canonical JSON (list form of ``needs``)."""
        out: dict[str, Any] = {"id": self.id, "description": self.description}
        if self.agent is not None:
            out["agent"] = dict(self.agent)
        out["capabilities"] = list(self.capabilities)
        out["depends_on"] = list(self.depends_on)
        out["needs"] = [{"name": n.name, "task": n.task} for n in self.needs]
        if self.on_failure is not None:
            out["on_failure"] = self.on_failure
        if self.arguments:
            out["arguments"] = arguments_to_json(self.arguments)
        out.update(self.extra)
        return out


_KNOWN_TASK_KEYS = frozenset(
    {"id", "description", "capabilities", "depends_on", "needs", "on_failure", "agent", "arguments"}
)
TASK_KEYS = _KNOWN_TASK_KEYS | {"arguments"}
"""The task keys of the canonical format (``arguments``: a task's inputs by name)."""
DEPENDENCY_KEYS: tuple[str, ...] = (
    "dependencies",
    "dependency",
    "deps",
    "dep",
    "dependent_task_ids",
    "prev",
    "requires",
    "after",
    "depends",
    "dependsOn",
)
"""Spellings of ``depends_on`` that planners write (docs/formats.md names where each is
published). Read as dependencies after ``depends_on``, in this order; the ``schema`` check
states the reading as a warning. A value is a list of task ids (strings or integers), or one
id; ``-1`` means "none" (HuggingGPT's convention) and is skipped."""


def carried_keys(item: Mapping[str, Any], known: frozenset[str], fmt: str) -> dict[str, Any]:
    """The keys of a source task that its format does not define, to carry into the canonical
    task so that ``schema`` reports each one (nothing a plan says is dropped silently).

    A key whose name means something in the canonical format (a canonical task key or a
    ``DEPENDENCY_KEYS`` spelling) is carried as ``<fmt>:<key>``: the source format's own
    reader ignores it, so planeval must not read it as a dependency or an input either.
    """
    return {
        (f"{fmt}:{key}" if key in TASK_KEYS or key in DEPENDENCY_KEYS else key): value
        for key, value in item.items()
        if key not in known
    }


_DEPENDENCY_KEY_SET = frozenset(DEPENDENCY_KEYS)
_KNOWN_PLAN_KEYS = frozenset({"plan_id", "goal", "tasks"})


@dataclass(frozen=True, slots=True)
class Plan:
    """A plan: a goal broken into tasks with dependencies."""

    tasks: tuple[Task, ...]
    """The tasks in the order the planner gave them."""
    plan_id: str | None = None
    """The planner's id for the plan, if it gave one."""
    goal: str | None = None
    """The goal the plan is for."""
    positional_ids: bool = False
    """True when ids were assigned by position because the planner gave none (a flat plan)."""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """Top-level keys the model does not know."""
    document: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    """The canonical JSON document the plan was built from (what JSON pointers point into)."""

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "<dict>") -> Plan:
        """Build a plan from canonical (or agentic gem) JSON.

        Raises:
            PlanLoadError: the backbone is unusable (not an object, ``tasks`` not a list, a task
                not an object, an id that is not a non-empty string).
        """
        if not isinstance(data, dict):
            raise PlanLoadError(
                f"a plan must be a JSON object, got {_kind(data)}",
                source=source,
                location="/",
                hint='wrap the tasks as {"tasks": [...]}',
            )
        if "tasks" not in data:
            raise PlanLoadError(
                "the plan has no 'tasks' key",
                source=source,
                location="/",
                hint='a plan is {"tasks": [{"id": ..., "description": ...}, ...]}',
            )
        raw_tasks = data["tasks"]
        if not isinstance(raw_tasks, list):
            raise PlanLoadError(
                f"'tasks' must be a list, got {_kind(raw_tasks)}",
                source=source,
                location="/tasks",
            )
        positional = bool(raw_tasks) and all(
            isinstance(t, dict) and "id" not in t for t in raw_tasks
        )
        tasks = []
        with gc_paused():
            for index, raw in enumerate(raw_tasks):
                if not isinstance(raw, dict):
                    raise PlanLoadError(
                        f"a task must be a JSON object, got {_kind(raw)}",
                        source=source,
                        location=f"/tasks/{index}",
                    )
                tasks.append(_task_from_dict(raw, index, source))
        plan_id = data.get("plan_id")
        goal = data.get("goal")
        return cls(
            tasks=tuple(tasks),
            plan_id=plan_id if isinstance(plan_id, str) else None,
            goal=goal if isinstance(goal, str) else None,
            positional_ids=positional,
            extra={k: v for k, v in data.items() if k not in _KNOWN_PLAN_KEYS},
            document=data,
        )

    def to_dict(self) -> dict[str, Any]:
        """The plan as canonical JSON."""
        out: dict[str, Any] = {}
        if self.plan_id is not None:
            out["plan_id"] = self.plan_id
        if self.goal is not None:
            out["goal"] = self.goal
        out["tasks"] = [t.to_dict() for t in self.tasks]
        out.update(self.extra)
        return out

    @property
    def task_ids(self) -> tuple[str, ...]:
        """The task ids in plan order."""
        return tuple(t.id for t in self.tasks)

    def task(self, task_id: str) -> Task:
        """The task with this id (the first one, if ids repeat).

        Raises:
            KeyError: no task has this id.
        """
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(task_id)

    @property
    def identity(self) -> str:
        """``plan_id``, or a digest of the goal and task ids when the planner gave none.

        Fixing a task's input or description keeps the identity; adding, removing or
        renaming tasks changes it.
        """
        if self.plan_id:
            return self.plan_id
        payload = json.dumps([self.goal or "", list(self.task_ids)], ensure_ascii=False)
        return "plan-" + hashlib.sha256(payload.encode()).hexdigest()[:16]

    @property
    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON (sorted keys): changes with any edit."""
        text = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, default=str)
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _task_from_dict(raw: dict[str, Any], index: int, source: str) -> Task:
    if "id" in raw:
        task_id = raw["id"]
        if not isinstance(task_id, str) or not task_id.strip():
            raise PlanLoadError(
                f"a task id must be a non-empty string, got {task_id!r}",
                source=source,
                location=f"/tasks/{index}/id",
            )
    else:
        task_id = f"task_{index + 1}"
    get = raw.get
    description = get("description")
    on_failure = get("on_failure")
    agent = get("agent")
    needs = get("needs")
    arguments = get("arguments")
    return _new_task(
        task_id,
        description if isinstance(description, str) else "",
        _strings(get("capabilities")),
        _strings(get("depends_on"))
        if raw.keys() <= _KNOWN_TASK_KEYS or raw.keys().isdisjoint(_DEPENDENCY_KEY_SET)
        else tuple(dep for dep, _, _ in dependency_entries(raw)),
        _needs(needs) if needs else (),
        on_failure if isinstance(on_failure, str) else None,
        agent if isinstance(agent, dict) else None,
        # keys() <= set is a C-level test; most tasks have no unknown keys
        _extra(raw, arguments),
        arguments_from_json(arguments) if arguments else _NO_ARGUMENTS,
    )


def _extra(raw: dict[str, Any], arguments: Any) -> dict[str, Any]:
    """The keys the model does not know; a list of ``arguments`` (TaskBench's own form in a
    canonical task, read by the metrics) is kept there as it is."""
    if raw.keys() <= _KNOWN_TASK_KEYS:  # a C-level test; most tasks have no unknown keys
        extra: dict[str, Any] = {}
    else:
        extra = {k: v for k, v in raw.items() if k not in _KNOWN_TASK_KEYS}
    if isinstance(arguments, list):
        extra["arguments"] = arguments
    return extra


# Big plans build hundreds of thousands of tasks; a frozen dataclass's __init__ goes through
# object.__setattr__ once per field, three times slower than the slot setters used here. The
# result is the same object (tests compare it with Task(...)); Task has no __post_init__.
_TASK_SLOTS = tuple(Task.__dict__[name].__set__ for name in Task.__dataclass_fields__)


(_SET_ID, _SET_DESCRIPTION, _SET_CAPABILITIES, _SET_DEPENDS_ON, _SET_NEEDS, _SET_ON_FAILURE,
 _SET_AGENT, _SET_EXTRA, _SET_ARGUMENTS) = _TASK_SLOTS  # fmt: skip
_NO_ARGUMENTS: Mapping[str, Any] = {}


def new_task(
    task_id: str,
    description: str,
    capabilities: tuple[str, ...],
    depends_on: tuple[str, ...],
    needs: tuple[Need, ...],
    on_failure: str | None,
    agent: Mapping[str, Any] | None,
    extra: Mapping[str, Any],
    arguments: Mapping[str, Any] = _NO_ARGUMENTS,
) -> Task:
    """A ``Task`` from its field values, without per-field checks (for builders that already
    hold exactly typed values)."""
    task = object.__new__(Task)
    _SET_ID(task, task_id)
    _SET_DESCRIPTION(task, description)
    _SET_CAPABILITIES(task, capabilities)
    _SET_DEPENDS_ON(task, depends_on)
    _SET_NEEDS(task, needs)
    _SET_ON_FAILURE(task, on_failure)
    _SET_AGENT(task, agent)
    _SET_EXTRA(task, extra)
    _SET_ARGUMENTS(task, arguments)
    return task


_new_task = new_task
_NEED_NAME, _NEED_TASK = (Need.__dict__[name].__set__ for name in Need.__dataclass_fields__)
_PLAN_SLOTS = tuple(Plan.__dict__[name].__set__ for name in Plan.__dataclass_fields__)


def new_need(name: str, task: str) -> Need:
    """A ``Need`` without the frozen-dataclass ``__init__`` (same object)."""
    need = object.__new__(Need)
    _NEED_NAME(need, name)
    _NEED_TASK(need, task)
    return need


def new_plan(tasks: tuple[Task, ...], plan_id: str | None, goal: str | None) -> Plan:
    """A ``Plan`` with ids given by the planner, no extra keys and no source document."""
    plan = object.__new__(Plan)
    values: tuple[Any, ...] = (tasks, plan_id, goal, False, {}, None)
    for set_slot, value in zip(_PLAN_SLOTS, values, strict=True):
        set_slot(plan, value)
    return plan


def dependency_entries(raw: Mapping[str, Any]) -> list[tuple[str, str, int | None]]:
    """Every dependency a task states, as ``(task id, key, position in the key's list)``.

    ``depends_on`` first (its strings, as the model reads it), then each key of
    ``DEPENDENCY_KEYS`` the task has, skipping ids already read; the position is None for a
    key holding one id.
    """
    entries: list[tuple[str, str, int | None]] = []
    own = raw.get("depends_on")
    if isinstance(own, list):
        for index, dep in enumerate(own):
            if isinstance(dep, str):
                entries.append((dep, "depends_on", index))
    seen = {dep for dep, _, _ in entries}
    for key in DEPENDENCY_KEYS:
        if key not in raw:
            continue
        value = raw[key]
        items: list[tuple[int | None, Any]] = (
            list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        )
        for position, item in items:
            dep = _dependency_id(item)
            if dep is not None and dep not in seen:
                seen.add(dep)
                entries.append((dep, key, position))
    return entries


def _dependency_id(item: Any) -> str | None:
    """A task id written under a dependency alias: a string, or an integer other than -1."""
    if isinstance(item, str):
        return item if item.strip() not in ("", "-1") else None
    if isinstance(item, int) and not isinstance(item, bool) and item != -1:
        return str(item)
    return None


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    if set(map(type, value)) <= {str}:  # the common case, at C speed
        return tuple(value)
    return tuple(v for v in value if isinstance(v, str))


def _needs(value: Any) -> tuple[Need, ...]:
    if isinstance(value, dict):
        return tuple(Need(name=k, task=v) for k, v in value.items() if isinstance(v, str))
    if isinstance(value, list):
        return tuple(
            Need(name=n["name"], task=n["task"])
            for n in value
            if isinstance(n, dict)
            and isinstance(n.get("name"), str)
            and isinstance(n.get("task"), str)
        )
    return ()


def _kind(value: Any) -> str:
    """A JSON-ish name for a Python value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
