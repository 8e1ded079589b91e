"""The dependency graph an execution follows: ``depends_on`` plus ``needs`` producers."""

from __future__ import annotations

import graphlib
from collections import deque
from collections.abc import Iterable

from harness._errors import PlanLoadError
from harness.plan import Plan

__all__ = ["TaskGraph"]


class TaskGraph:
    """Prerequisites and dependents of every task of a plan, validated for execution.

    Raises:
        PlanLoadError: duplicate ids, a dependency on an unknown task, or a cycle.
    """

    def __init__(self, plan: Plan, *, source: str = "<plan>") -> None:
        self.order: tuple[str, ...] = plan.task_ids
        seen: set[str] = set()
        for index, task_id in enumerate(self.order):
            if task_id in seen:
                raise PlanLoadError(
                    f"two tasks share the id {task_id!r}",
                    source=source,
                    location=f"/tasks/{index}/id",
                    hint="give every task a unique id (`planeval check` lists all problems)",
                )
            seen.add(task_id)
        self.prerequisites: dict[str, tuple[str, ...]] = {}
        self.dependents: dict[str, list[str]] = {tid: [] for tid in self.order}
        for index, task in enumerate(plan.tasks):
            prereqs = list(dict.fromkeys([*task.depends_on, *(n.task for n in task.needs)]))
            for dep in prereqs:
                if dep not in seen:
                    raise PlanLoadError(
                        f"task {task.id!r} depends on {dep!r}, which is not a task of the plan",
                        source=source,
                        location=f"/tasks/{index}",
                        hint="fix the id, or run `planeval check` on the plan",
                    )
                if dep == task.id:
                    raise PlanLoadError(
                        f"task {task.id!r} depends on itself",
                        source=source,
                        location=f"/tasks/{index}",
                    )
                self.dependents[dep].append(task.id)
            self.prerequisites[task.id] = tuple(prereqs)
        sorter = graphlib.TopologicalSorter(self.prerequisites)
        try:
            self.topological = tuple(sorter.static_order())
        except graphlib.CycleError as exc:
            cycle = " -> ".join(exc.args[1])
            raise PlanLoadError(
                f"the plan's dependencies form a cycle ({cycle}), so it cannot be executed",
                source=source,
                location="/tasks",
            ) from None

    def downstream(self, roots: Iterable[str]) -> set[str]:
        """The roots and every task that depends on them, directly or not."""
        found = set(roots)
        queue = deque(found)
        while queue:
            for child in self.dependents[queue.popleft()]:
                if child not in found:
                    found.add(child)
                    queue.append(child)
        return found
