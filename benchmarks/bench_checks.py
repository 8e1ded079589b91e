"""Structural checks on big plans: ``planeval check`` against the JSON parse floor, a networkx
reference and itself without parameter schemas; and every check on dense plans.

Generates a random DAG plan of 100,000 tasks (about 2 dependencies and 0.3 needs per task,
50 capabilities) and a 100,000-task chain. Measured as whole processes in alternating pairs
(``benchmarks/_paired.py``):

- ``planeval check PLAN --registry CAPS`` (reading, the model, every check, the printed
  violations) against a fresh interpreter that ``json.loads`` the file and keeps nothing.
  Target: CPU within 3x.
- the same command on a random DAG of ``--networkx-tasks`` tasks (default 3,000: networkx's
  transitive reduction takes hours at 100,000) against a fresh interpreter running a
  straightforward networkx implementation of the same graph checks on the file. Target:
  planeval at least 2x less CPU (ratio <= 0.5).
- the argument checks: the random DAG without and with arguments (each task passes a text, a
  number and an option; a task with a need passes the producer's result as a ``$result``
  reference), ``planeval check`` with a registry with a parameter schema per capability against
  the same command with a registry of the names only. Targets: on plans without arguments the
  schemas cost nothing (ratio ~1.0, reported); on plans with arguments ``arguments_valid`` adds
  at most 1.5x.

First, dense plans of 1,000 tasks and 100,000 edges (a sliding window and random edges): every
check, the redundant-dependency one included, within 1 s of CPU. This one is a bound on one
call of ``check_plan`` (in process, best of ``--repeat``), not a ratio: it is not paired.

Run by hand: ``python benchmarks/bench_checks.py [--tasks N] [--networkx-tasks N] [--pairs P]
[--only-dense] [--skip-networkx] [--arguments-only] [--as-is]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _installed_env import installed_env
from _paired import add_pairs_option, loads_loop, paired

from harness.checks import check_plan
from harness.plan import Plan


def random_dag(n: int, seed: int = 7) -> dict[str, Any]:
    """Tasks depend on ~2 earlier tasks (mostly recent ones, as planners write them); ~30% of
    tasks read a need, mostly from a dependency, sometimes from any earlier task."""
    rng = random.Random(seed)
    tasks = []
    for i in range(n):
        deps: list[int] = []
        if i:
            k = min(i, rng.choice((1, 2, 2, 3)))
            deps = sorted({max(0, i - 1 - int(rng.expovariate(1 / 20))) for _ in range(k)})
        needs = []
        if i and rng.random() < 0.3:
            producer = rng.choice(deps) if deps and rng.random() < 0.8 else rng.randrange(i)
            needs.append({"name": "input", "task": f"t{producer}"})
        tasks.append(
            {
                "id": f"t{i}",
                "description": f"Step {i} of the generated plan",
                "capabilities": [f"cap_{rng.randrange(50)}"],
                "depends_on": [f"t{d}" for d in deps],
                "needs": needs,
            }
        )
    return {"plan_id": "bench-dag", "goal": "benchmark", "tasks": tasks}


def chain(n: int) -> dict[str, Any]:
    """Each task depends on the one before and needs its output."""
    tasks = [
        {
            "id": f"t{i}",
            "description": f"Step {i}",
            "capabilities": [f"cap_{i % 50}"],
            "depends_on": [f"t{i - 1}"] if i else [],
            "needs": [{"name": "prev", "task": f"t{i - 1}"}] if i else [],
        }
        for i in range(n)
    ]
    return {"plan_id": "bench-chain", "goal": "benchmark", "tasks": tasks}


def with_arguments(doc: dict[str, Any], seed: int = 11) -> dict[str, Any]:
    """The plan with arguments on every task; about 1 in 50 has a wrong option value."""
    rng = random.Random(seed)
    for task in doc["tasks"]:
        arguments: dict[str, Any] = {
            "text": task["description"],
            "limit": rng.randrange(1, 100),
            "mode": "fast" if rng.random() > 0.02 else "fastest",
        }
        if task["needs"]:
            arguments["input"] = {"$result": task["needs"][0]["task"]}
        task["arguments"] = arguments
    return doc


SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1},
        "mode": {"enum": ["fast", "slow"]},
        "input": {"type": "string"},
    },
    "required": ["text"],
    "additionalProperties": False,
}


def schema_tools() -> list[dict[str, Any]]:
    """The 50 capabilities, each with a parameter schema (OpenAI function-tool form)."""
    return [
        {"type": "function", "function": {"name": f"cap_{i}", "parameters": SCHEMA}}
        for i in range(50)
    ]


def names_only() -> list[str]:
    """The 50 capabilities, without parameter schemas."""
    return [f"cap_{i}" for i in range(50)]


def write(path: Path, doc: Any) -> Path:
    """``doc`` as one line of JSON (so the floor's ``json.loads`` of the line is the parse)."""
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    return path


def check_command(plan: Path, registry: Path) -> list[str]:
    return [sys.executable, "-m", "harness", "check", str(plan), "--registry", str(registry)]


def dense(n: int, edges: int, *, shape: str, seed: int = 11) -> Plan:
    """A dense plan of ``n`` tasks and about ``edges`` dependencies: ``window`` (each task
    depends on the ``edges / n`` tasks before it, almost every edge redundant) or ``random``
    (edges between random earlier tasks)."""
    rng = random.Random(seed)
    deps: list[list[str]] = [[] for _ in range(n)]
    if shape == "window":
        width = edges // n + 1
        for i in range(n):
            deps[i] = [f"t{j}" for j in range(max(0, i - width), i)]
    else:
        pairs: set[tuple[int, int]] = set()
        while len(pairs) < edges:
            a, b = sorted(rng.sample(range(n), 2))
            pairs.add((a, b))
        for a, b in sorted(pairs):
            deps[b].append(f"t{a}")
    tasks = [{"id": f"t{i}", "description": f"Step {i}", "depends_on": deps[i]} for i in range(n)]
    return Plan.from_dict({"tasks": tasks})


def bench_dense(n: int, edges: int, repeat: int) -> None:
    """The redundant-dependency check on dense plans (target: the whole check within 1 s)."""
    for shape in ("window", "random"):
        plan = dense(n, edges, shape=shape)
        count = sum(len(t.depends_on) for t in plan.tasks)
        seconds, report = best_of(
            lambda plan=plan: check_plan(plan), repeat, clock=time.process_time
        )
        redundant = sum(v.check == "redundant_dependency" for v in report.violations)
        verdict = "met" if seconds <= 1.0 else "MISSED"
        print(
            f"\ndense {shape}: {n:,} tasks, {count:,} edges: every check {seconds:.3f} s CPU "
            f"(best of {repeat}; target <= 1 s: {verdict}); {redundant:,} redundant edges"
        )


NETWORKX_REFERENCE = """\
import json, sys
import networkx as nx

with open(sys.argv[1], "rb") as fh:
    doc = json.loads(fh.read())
capabilities = {f"cap_{i}" for i in range(50)}
found = 0
tasks = doc["tasks"]
ids = [t["id"] for t in tasks]
found += len(ids) - len(set(ids))
graph = nx.DiGraph()
graph.add_nodes_from(ids)
for t in tasks:
    for d in t["depends_on"]:
        if d == t["id"] or d not in graph:
            found += 1
        else:
            graph.add_edge(d, t["id"])
cyclic = not nx.is_directed_acyclic_graph(graph)
found += cyclic
for t in tasks:
    for need in t["needs"]:
        if need["task"] not in graph or (
            not cyclic and not nx.has_path(graph, need["task"], t["id"])
        ):
            found += 1
    found += sum(c not in capabilities for c in t["capabilities"])
    if graph.degree(t["id"]) == 0:
        found += 1
if not cyclic:
    reduced = nx.transitive_reduction(graph)
    found += graph.number_of_edges() - reduced.number_of_edges()
print(found)
"""
"""The same graph checks written the obvious way with networkx (the reference), as a program."""


def best_of(
    fn: Callable[[], Any], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, Any]:
    """Smallest time of ``repeat`` runs (the least disturbed by other load); wall time unless
    ``clock`` says otherwise."""
    times, result = [], None
    for _ in range(repeat):
        start = clock()
        result = fn()
        times.append(clock() - start)
    return min(times), result


def bench_plans(root: Path, args: argparse.Namespace, env: dict[str, str]) -> None:
    """``planeval check`` of the 100,000-task plans against the parse floor, then against the
    networkx reference."""
    names = write(root / "names.json", names_only())
    for label, doc in (("random DAG", random_dag(args.tasks)), ("chain", chain(args.tasks))):
        plan = write(root / "plan.json", doc)
        size = plan.stat().st_size / 1e6
        result = paired(
            f"check {label} of {args.tasks:,} tasks, {size:.1f} MB (planeval check / json.loads)",
            check_command(plan, names),
            loads_loop(plan),
            target=3.0,
            pairs=args.pairs,
            env=env,
            ok_codes=(0, 1),
        )
        result.print()
    if args.skip_networkx:
        return
    plan = write(root / "plan.json", random_dag(args.networkx_tasks))
    result = paired(
        f"check random DAG of {args.networkx_tasks:,} tasks (planeval check / networkx)",
        check_command(plan, names),
        [sys.executable, "-c", NETWORKX_REFERENCE, str(plan)],
        target=0.5,
        pairs=args.pairs,
        env=env,
        ok_codes=(0, 1),
    )
    result.print()
    print("  (target 0.5x: planeval at least 2x less CPU than the networkx reference)")


def bench_arguments(root: Path, args: argparse.Namespace, env: dict[str, str]) -> None:
    """``planeval check`` with a registry with schemas vs without, on the same plan without
    and then with arguments."""
    names = write(root / "names.json", names_only())
    schemas = write(root / "schemas.json", schema_tools())
    for label, doc, target in (
        ("without arguments", random_dag(args.tasks), None),
        ("with arguments", with_arguments(random_dag(args.tasks)), 1.5),
    ):
        plan = write(root / "plan.json", doc)
        result = paired(
            f"check random DAG of {args.tasks:,} tasks {label} (registry with schemas / "
            "names only)",
            check_command(plan, schemas),
            check_command(plan, names),
            target=target,
            pairs=args.pairs,
            env=env,
            ok_codes=(0, 1),
            floor_ok_codes=(0, 1),
        )
        result.print()
        if target is None:
            print("  (target ~1.0x: schemas cost nothing on a plan without arguments)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--networkx-tasks", type=int, default=3_000)
    parser.add_argument("--repeat", type=int, default=3, help="dense plans: best of N calls")
    add_pairs_option(parser)
    parser.add_argument("--skip-networkx", action="store_true")
    parser.add_argument("--arguments-only", action="store_true")
    parser.add_argument(
        "--dense", type=int, default=1_000, metavar="N", help="tasks of the dense plans"
    )
    parser.add_argument("--dense-edges", type=int, default=100_000, metavar="E")
    parser.add_argument("--only-dense", action="store_true", help="only the dense plans")
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    if not args.arguments_only:
        bench_dense(args.dense, args.dense_edges, args.repeat)
    if args.only_dense:
        return
    with tempfile.TemporaryDirectory(prefix="bench-checks-") as folder:
        root = Path(folder)
        env = installed_env(root / "pycache", as_is=args.as_is)
        if not args.arguments_only:
            bench_plans(root, args, env)
        print(f"\nargument checks, random DAG of {args.tasks:,} tasks:", flush=True)
        bench_arguments(root, args, env)


if __name__ == "__main__":
    main()
