"""Shared helpers for executor tests: hand-written plans and a recording agent.

(A module with its own name, not conftest, so that test areas never shadow each other.)
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from harness.execute import TaskContext, demo_agent
from harness.plan import Plan


def chain_plan(n: int = 5, *, plan_id: str | None = None, **extra: Any) -> Plan:
    """A hand-written chain t1 -> t2 -> ... -> tn, each needing the previous result."""
    tasks: list[dict[str, Any]] = []
    for i in range(1, n + 1):
        task: dict[str, Any] = {"id": f"t{i}", "description": f"Step {i}"}
        if i > 1:
            task["depends_on"] = [f"t{i - 1}"]
            task["needs"] = [{"name": "previous", "task": f"t{i - 1}"}]
        tasks.append(task)
    data: dict[str, Any] = {"goal": "A chain of steps", "tasks": tasks, **extra}
    if plan_id is not None:
        data["plan_id"] = plan_id
    return Plan.from_dict(data, source="handwritten")


def diamond_plan() -> Plan:
    """Hand-written: fetch -> (extract, classify) -> refund -> notify, plus an unrelated audit."""
    return Plan.from_dict(
        {
            "plan_id": "orders-2026-11",
            "goal": "Refund a damaged order",
            "tasks": [
                {"id": "fetch", "description": "Fetch the customer's email"},
                {
                    "id": "extract",
                    "description": "Extract order",
                    "needs": {"email": "fetch"},
                    "input": {"field": "order_no"},
                },
                {"id": "classify", "description": "Classify damage", "needs": {"email": "fetch"}},
                {
                    "id": "refund",
                    "description": "Issue refund",
                    "needs": {"order": "extract", "damage": "classify"},
                },
                {"id": "notify", "description": "Notify customer", "needs": {"refund": "refund"}},
                {"id": "audit", "description": "Write audit entry"},
            ],
        },
        source="handwritten",
    )


class RecordingAgent:
    """The demo agent, counting calls per task and failing where told to."""

    def __init__(
        self, fail: dict[str, int] | None = None, *, exc: Callable[[], Exception] | None = None
    ):
        self.calls: Counter[str] = Counter()
        self.contexts: list[TaskContext] = []
        self.fail = dict(fail or {})  # task id -> how many attempts fail (-1: all)
        self.exc = exc or (lambda: RuntimeError("agent failed on purpose"))
        self._lock = threading.Lock()

    def __call__(self, context: TaskContext) -> Any:
        task_id = context.task.id
        with self._lock:
            self.calls[task_id] += 1
            self.contexts.append(context)
            left = self.fail.get(task_id, 0)
            if left:
                self.fail[task_id] = left - 1 if left > 0 else left
                raise self.exc()
        return demo_agent(context)
