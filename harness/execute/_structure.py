"""Plan structure identity: a fingerprint per task, and what changed between two plans.

``what_it_sees`` is the finer identity a success is journalled with (``sees``): everything
the agent read (the whole task, the goal when it reads it, its inputs). A resume reuses a
success only while that is unchanged.

A task's fingerprint covers what decides its work and its inputs: its id, description,
``depends_on``, ``needs`` and capabilities. The plan's structure digest covers every task's
fingerprint. Both are recorded in the journal (``plan_started``, and ``plan_resumed`` when
they changed), so a resume can tell which tasks were added, removed or changed, and restore a
task only when it and everything upstream of it is unchanged (the Make/Bazel rule).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from harness._identity import IdentityCache
from harness.plan import Plan, Task

__all__ = [
    "PlanChanges",
    "compare_structure",
    "inputs_digest",
    "plan_structure",
    "task_fingerprint",
    "what_it_sees",
]

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``, built once (one per task
would cost more than the hash)."""


def task_fingerprint(task: Task) -> str:
    """12 hex digits of SHA-256 over the task's id, description, deps, needs, capabilities."""
    material = _COMPACT(
        [
            task.id,
            task.description,
            sorted(task.depends_on),
            sorted([n.name, n.task] for n in task.needs),
            sorted(task.capabilities),
        ]
    )
    return hashlib.sha256(material.encode()).hexdigest()[:12]


_CANONICAL = msgspec.json.Encoder(order="sorted").encode
"""Sorted keys: an output read back from the journal digests like the value the agent
returned (tuples and lists alike)."""
_TASK_DIGESTS: IdentityCache[Task, str] = IdentityCache(100_000)


def _digest(value: Any) -> str:
    try:
        data = _CANONICAL(value)
    except (TypeError, ValueError, OverflowError, RecursionError):
        data = json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr).encode()
    return hashlib.sha256(data).hexdigest()[:12]


def inputs_digest(inputs: Mapping[str, Any], failed: Iterable[str] = ()) -> str:
    """12 hex digits over a task's resolved inputs and the names of those whose producer
    failed (``on_failure: continue``)."""
    return _digest([dict(inputs), sorted(failed)])


def what_it_sees(
    task: Task, goal: str | None, reads: frozenset[str], inputs: str
) -> dict[str, str]:
    """What a task's agent saw, as the journal records it with the task's success
    (``sees``): digests of the whole task (every field the agent gets), of the goal when the
    agent reads it, and of its inputs (``inputs_digest``)."""
    sees = {"task": _task_digest(task), "inputs": inputs}
    if "goal" in reads:
        sees["goal"] = _digest(goal)
    return sees


def _task_digest(task: Task) -> str:
    return _TASK_DIGESTS.get(task, lambda t: _digest(t.to_dict()))


def plan_structure(plan: Plan) -> dict[str, Any]:
    """``{"digest": ..., "tasks": {task id: fingerprint}}`` as the journal records it."""
    tasks = {task.id: task_fingerprint(task) for task in plan.tasks}
    material = _COMPACT(sorted(tasks.items()))
    digest = "sha256:" + hashlib.sha256(material.encode()).hexdigest()[:32]
    return {"digest": digest, "tasks": tasks}


@dataclass(frozen=True, slots=True)
class PlanChanges:
    """Tasks added, removed and changed between the journal's plan and the current one."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def describe(self, limit: int = 5) -> str:
        """``2 added (x, y), 1 changed (z)``: at most ``limit`` ids per kind."""
        parts = []
        for kind, ids in (("added", self.added), ("removed", self.removed)):
            if ids:
                parts.append(f"{len(ids)} {kind} ({_some(ids, limit)})")
        if self.changed:
            parts.append(f"{len(self.changed)} changed ({_some(self.changed, limit)})")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, list[str]]:
        """The changes as JSON."""
        return {
            "added": list(self.added),
            "removed": list(self.removed),
            "changed": list(self.changed),
        }


def compare_structure(
    old: Mapping[str, str], plan: Plan, current: Mapping[str, str]
) -> PlanChanges:
    """What changed from the journal's task fingerprints ``old`` to the plan's ``current``."""
    return PlanChanges(
        added=tuple(t for t in plan.task_ids if t not in old),
        removed=tuple(t for t in old if t not in current),
        changed=tuple(t for t in plan.task_ids if t in old and old[t] != current[t]),
    )


def _some(ids: tuple[str, ...], limit: int) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", ... {len(ids) - limit} more" if len(ids) > limit else "")
