"""Structural checks on big plans, against the JSON parse floor and a networkx reference.

Generates a random DAG plan of 100,000 tasks (about 2 dependencies and 0.3 needs per task,
50 capabilities) and a 100,000-task chain, then prints for each:

- parse floor: ``json.loads`` of the file's text;
- planeval: building the Plan from the parsed JSON plus every check (schema included);
- networkx: a straightforward networkx implementation of the same graph checks;

and the ratios. Targets: planeval within 3x the parse floor, and at least 2x faster than the
networkx reference. First, dense plans of 1,000 tasks and 100,000 edges (a sliding window and
random edges): every check, the redundant-dependency one included, within 1 s.

Then the argument checks, paired on the same plans: the random DAG without and with arguments
(each task passes a text, a number and an option; a task with a need passes the producer's
result as a ``$result`` reference), checked against a registry without parameter schemas and
one with a schema per capability. Targets: on plans without arguments the schemas cost nothing
(ratio ~1.0); on plans with arguments, ``arguments_valid`` (registry with schemas vs without)
adds at most 1.5x. Run by hand: ``python benchmarks/bench_checks.py [--tasks N] [--only-dense]``
(``--arguments-only`` for the argument part).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import networkx as nx

from harness.checks import Expectations, check_plan
from harness.plan import Plan
from harness.registry import Registry


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


def schema_registry() -> Registry:
    """The 50 capabilities, each with a parameter schema (OpenAI function-tool form)."""
    tools = [
        {"type": "function", "function": {"name": f"cap_{i}", "parameters": SCHEMA}}
        for i in range(50)
    ]
    return Registry.from_data(tools)


def bench_arguments(tasks: int, repeat: int) -> None:
    """Paired timings of the model + all checks: registry without vs with schemas, on the same
    plan without and then with arguments."""
    plain = Registry.from_data([f"cap_{i}" for i in range(50)])
    schemas = schema_registry()
    for label, doc in (
        ("without arguments", random_dag(tasks)),
        ("with arguments", with_arguments(random_dag(tasks))),
    ):
        parsed = json.loads(json.dumps(doc))
        del doc
        gc.collect()
        times: dict[str, float] = {}
        cpu: dict[str, float] = {}
        found: dict[str, int] = {}
        for _ in range(repeat):  # interleaved, so that load from elsewhere hits both alike
            for name, registry in (("no schemas", plain), ("schemas", schemas)):
                gc.collect()  # each run starts from the same heap (no report kept alive)
                start, start_cpu = time.perf_counter(), time.process_time()
                report = check_plan(Plan.from_dict(parsed), registry=registry)
                t, c = time.perf_counter() - start, time.process_time() - start_cpu
                times[name] = min(times.get(name, t), t)
                cpu[name] = min(cpu.get(name, c), c)
                found[name] = sum(v.check == "arguments_valid" for v in report.violations)
                del report
        for name, t in times.items():
            bad = found[name]
            print(
                f"  {label:18} registry {name:10} {t:8.3f} s wall {cpu[name]:8.3f} s CPU   "
                f"arguments_valid: {bad:,}"
            )
        ratio = times["schemas"] / times["no schemas"]
        cpu_ratio = cpu["schemas"] / cpu["no schemas"]
        target = "~1.0" if label == "without arguments" else "<= 1.5"
        print(
            f"  {label:18} schemas / no schemas = {ratio:.2f}x wall, {cpu_ratio:.2f}x CPU "
            f"(target {target})"
        )


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


def networkx_checks(doc: dict[str, Any], capabilities: set[str]) -> int:
    """The same graph checks written the obvious way with networkx (the reference)."""
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
    return found


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


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Raise TimeoutError in the block after ``seconds`` (the reference can take hours)."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def bench(name: str, text: str, repeat: int, with_networkx: bool, budget: int) -> None:
    """Time one plan given as JSON text (the generator's objects are gone by now, so the
    garbage collector does not rescan them during the timings)."""
    gc.collect()
    registry = Registry.from_data([f"cap_{i}" for i in range(50)])
    floor, parsed = best_of(lambda: json.loads(text), repeat)

    def ours() -> Any:
        return check_plan(Plan.from_dict(parsed), registry=registry, expect=Expectations())

    ours_t, report = best_of(ours, repeat)
    print(f"\n{name}: {len(parsed['tasks']):,} tasks, {len(text) / 1e6:.1f} MB of JSON")
    print(f"  parse floor (json.loads)      {floor:8.3f} s")
    print(
        f"  planeval model + all checks   {ours_t:8.3f} s   = {ours_t / floor:.2f}x the floor "
        f"(target <= 3x)   violations: {len(report.violations):,}"
    )
    counts: dict[str, int] = {}
    for v in report.violations:
        counts[v.check] = counts.get(v.check, 0) + 1
    print(f"  violations by check: {counts}")
    if with_networkx:
        start = time.perf_counter()
        try:
            with deadline(budget):
                ref_found = networkx_checks(parsed, set(registry.names))
        except TimeoutError:
            ref_t = time.perf_counter() - start
            print(
                f"  networkx reference           >{ref_t:8.3f} s   (stopped at the {budget} s "
                f"budget) planeval is >{ref_t / ours_t:.1f}x faster (target >= 2x)"
            )
            return
        ref_t = time.perf_counter() - start
        print(
            f"  networkx reference            {ref_t:8.3f} s   planeval is {ref_t / ours_t:.1f}x "
            f"faster (target >= 2x)   reference found: {ref_found:,}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-networkx", action="store_true")
    parser.add_argument("--budget", type=int, default=300, help="seconds for the reference")
    parser.add_argument("--arguments-only", action="store_true")
    parser.add_argument(
        "--dense", type=int, default=1_000, metavar="N", help="tasks of the dense plans"
    )
    parser.add_argument("--dense-edges", type=int, default=100_000, metavar="E")
    parser.add_argument("--only-dense", action="store_true", help="only the dense plans")
    args = parser.parse_args()
    bench_dense(args.dense, args.dense_edges, args.repeat)
    if args.only_dense:
        return
    ref = not args.skip_networkx
    if not args.arguments_only:
        bench("random DAG", json.dumps(random_dag(args.tasks)), args.repeat, ref, args.budget)
        bench("chain", json.dumps(chain(args.tasks)), args.repeat, ref, args.budget)
    print(f"\nargument checks, random DAG of {args.tasks:,} tasks:")
    bench_arguments(args.tasks, args.repeat)


if __name__ == "__main__":
    main()
