"""Checking a big JSON Lines file of TaskBench plans, against the bare ``json.loads`` floor.

Writes a file of N TaskBench records (default 100,000; 5 nodes each, resource style: string
arguments citing ``<node-k>``, ``task_links`` naming tools, nodes listed alphabetically as in
TaskBench's gold data, one record in ten calling a tool twice), then prints for the same file:

- floor: ``json.loads`` of every line (the file already read and split);
- planeval: ``check_files`` on the file (read, decode, split, strict JSON, TaskBench reading
  with link resolution, plan model, every check), with the counts it found;

and the ratio (target: at most 3x), in wall and CPU time, the two taking turns in each
round. Run by hand: ``python benchmarks/bench_formats.py [--records N] [--repeat R]``; the
machine is shared, so run it a few times and quote the range.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.checks import check_files

TOOLS = [f"Tool {chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(40)]


def record(index: int, rng: random.Random) -> dict[str, Any]:
    """One 5-node TaskBench record: a random DAG over the nodes, each edge cited and linked."""
    tools = rng.sample(TOOLS, 5)
    if index % 10 == 0:
        tools[4] = tools[0]  # the same tool twice, as in real plans
    order = sorted(range(5), key=lambda k: tools[k])  # TaskBench lists nodes alphabetically
    position = {node: k for k, node in enumerate(order)}
    edges = [(rng.randrange(v), v) for v in range(1, 5)]
    edges += [(u, v) for u in range(5) for v in range(u + 2, 5) if rng.random() < 0.1]
    nodes = []
    for node in order:
        args = [f"<node-{position[u]}>" for u, v in edges if v == node] or ["example.jpg"]
        nodes.append({"task": tools[node], "arguments": args})
    links = [{"source": tools[u], "target": tools[v]} for u, v in edges]
    return {"id": str(10_000_000 + index), "task_nodes": nodes, "task_links": links, "type": "dag"}


def interleaved(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, tuple[float, float]]:
    """Best wall and CPU time of each function over ``repeat`` rounds, the functions taking
    turns in every round so that both sides of the ratio see the same load."""
    best = {name: (float("inf"), float("inf")) for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            gc.collect()
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(9)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.json"
        with path.open("w", encoding="utf-8") as fh:
            for index in range(args.records):
                fh.write(json.dumps(record(index, rng)) + "\n")
        lines = path.read_text(encoding="utf-8").splitlines()
        size = path.stat().st_size

        def floor_run() -> int:
            loads = json.loads
            return len([loads(line) for line in lines])

        results: list[Any] = []

        def planeval_run() -> None:
            results[:] = check_files([path], max_bytes=size + 1)

        best = interleaved({"floor": floor_run, "planeval": planeval_run}, args.repeat)
    counts: Counter[str] = Counter()
    for result in results:
        if result.report is not None:
            counts.update(v.check for v in result.report.violations)
    passed = sum(r.ok for r in results)
    print(f"{args.records:,} TaskBench records (5 nodes each), {size / 1e6:.1f} MB of JSON Lines")
    (floor_wall, floor_cpu), (ours_wall, ours_cpu) = best["floor"], best["planeval"]
    print(f"  floor: json.loads of every line   {floor_wall:7.2f} s wall {floor_cpu:7.2f} s cpu")
    print(f"  planeval check_files              {ours_wall:7.2f} s wall {ours_cpu:7.2f} s cpu")
    print(
        f"  ratio: {ours_wall / floor_wall:.2f}x wall, {ours_cpu / floor_cpu:.2f}x cpu "
        "(target <= 3x)"
    )
    print(f"  plans: {len(results):,}, passed: {passed:,}, violations by check: {dict(counts)}")


if __name__ == "__main__":
    main()
