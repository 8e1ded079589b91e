"""Plans of known shape for the page-layout tests (provenance: handwritten in code).

``with_plans(run_dir, plans)`` puts ``plans[case]`` into every row of that case of a
``make_run`` folder. The plans: ``crossing_seven`` (7 tasks whose task order crosses two
edges, which the layout must uncross), ``wide(n)`` (a root, eight chains of different
lengths, and a join: wide layers, long edges), ``cyclic`` (a
three-task cycle, a self-dependency and a task depending on the cycle).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _task(tid: str, *deps: str, description: str = "") -> dict[str, Any]:
    return {"id": tid, "description": description or f"do {tid}", "depends_on": list(deps)}


def crossing_seven() -> dict[str, Any]:
    tasks = [
        _task("a"),
        _task("b"),
        _task("x", "b"),
        _task("y", "a"),
        _task("z", "x"),
        _task("w", "y"),
        _task("end", "z", "w"),
    ]
    return {"plan_id": "seven", "goal": "seven tasks", "tasks": tasks}


def wide(n: int, chains: int = 8) -> dict[str, Any]:
    """``n`` tasks: ``start``, ``chains`` chains of different lengths out of it (``n - 2``
    tasks in all), and ``join`` depending on every chain's last task."""
    tasks = [_task("start", description="begin")]
    ends: list[str] = []
    for i in range(n - 2):
        chain = i % chains
        tid = f"source_{chain}_step_{i // chains}"
        prev = [e for e in ends if e.startswith(f"source_{chain}_")]
        tasks.append(_task(tid, prev[0] if prev else "start"))
        ends = [e for e in ends if e not in prev] + [tid]
    tasks.append(_task("join", *ends))
    return {"plan_id": f"wide{n}", "goal": f"{n} tasks", "tasks": tasks}


def cyclic() -> dict[str, Any]:
    tasks = [
        _task("load"),
        _task("parse", "load", "validate"),
        _task("transform", "parse"),
        _task("validate", "transform"),
        _task("retry", "retry", "load"),
        _task("report", "validate"),
    ]
    return {"plan_id": "cyclic", "goal": "a cycle", "tasks": tasks}


def with_plans(run_dir: Path, plans: dict[str, dict[str, Any]]) -> Path:
    path = run_dir / "results.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    for r in rows:
        if r["case"] in plans and r.get("plan"):
            r["plan"] = plans[r["case"]]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run_dir
