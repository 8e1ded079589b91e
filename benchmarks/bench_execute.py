"""Executor overhead per task: linear in plan size, and close to the disk when fsync'ing.

1. The demo agent over a chain (each task needs the previous one) and a wide plan (independent
   tasks) of 1,000, 10,000 and 100,000 tasks, journal fsync'd every 1,000 events. Prints the
   time per task and the ratio of the largest plan's time per task to the smallest's
   (target: within 3x, i.e. linear).
2. A 1,000-task chain with fsync on every event, against a bare loop that writes the same
   journal bytes line by line with ``os.write`` + ``os.fsync`` (target: within 1.5x).

Run:  python benchmarks/bench_execute.py [--sizes 1000,10000,100000] [--repeat N] [--dir DIR]
Each figure is the best of N runs (default 1 for the large plans, 3 for the fsync check).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.execute import execute
from harness.plan import Plan


def chain(n: int) -> Plan:
    """Hand-built chain t0 -> t1 -> ..., each needing the previous task's output."""
    tasks: list[dict[str, Any]] = [{"id": "t0", "description": "Step 0"}]
    tasks += [
        {"id": f"t{i}", "description": f"Step {i}", "needs": {"previous": f"t{i - 1}"}}
        for i in range(1, n)
    ]
    return Plan.from_dict({"plan_id": f"bench-chain-{n}", "goal": "chain", "tasks": tasks})


def wide(n: int) -> Plan:
    """Hand-built wide plan: n independent tasks."""
    tasks = [{"id": f"t{i}", "description": f"Step {i}"} for i in range(n)]
    return Plan.from_dict({"plan_id": f"bench-wide-{n}", "goal": "wide", "tasks": tasks})


def timed_execute(plan: Plan, journal: Path, fsync_every: int) -> float:
    journal.unlink(missing_ok=True)
    began = time.perf_counter()
    result = execute(plan, journal, backoff=0.0, fsync_every=fsync_every, max_concurrency=4)
    elapsed = time.perf_counter() - began
    if not result.ok:
        raise SystemExit(f"the benchmark plan did not complete: {result.status}")
    return elapsed


def bare_write_fsync(lines: list[bytes], path: Path) -> float:
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        began = time.perf_counter()
        for line in lines:
            os.write(fd, line)
            os.fsync(fd)
        return time.perf_counter() - began
    finally:
        os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=1, help="runs per large-plan figure")
    parser.add_argument("--fsync-repeat", type=int, default=3, help="runs of the fsync check")
    parser.add_argument("--dir", type=Path, default=None, help="where journals go (its disk)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    root = Path(tempfile.mkdtemp(prefix="bench_execute_", dir=args.dir or Path.cwd()))
    print(f"disk: {root}  load average: {os.getloadavg()[0]:.2f}")
    try:
        for shape, build in (("chain", chain), ("wide", wide)):
            per_task = {}
            for n in sizes:
                plan = build(n)
                best = min(
                    timed_execute(plan, root / f"{shape}-{n}.jsonl", 1000)
                    for _ in range(args.repeat)
                )
                per_task[n] = best / n
                print(
                    f"{shape:5} {n:>7,} tasks, fsync every 1000: {best:8.2f}s"
                    f"  {per_task[n] * 1e6:7.1f} us/task"
                )
            small, large = min(sizes), max(sizes)
            ratio = per_task[large] / per_task[small]
            verdict = "met" if ratio <= 3 else "NOT met"
            print(
                f"{shape:5} per-task ratio {large:,} vs {small:,}: {ratio:.2f}x "
                f"(target 3x: {verdict})"
            )
        plan = chain(1000)
        journal = root / "fsync.jsonl"
        ours, floor = [], []
        for _ in range(args.fsync_repeat):
            ours.append(timed_execute(plan, journal, 1))
            floor.append(
                bare_write_fsync(journal.read_bytes().splitlines(keepends=True), root / "bare")
            )
        events = len(journal.read_bytes().splitlines())
        ratio = min(ours) / min(floor)
        print(
            f"chain 1,000 tasks, fsync every event ({events:,} events): execute {min(ours):.2f}s"
            f"  bare write+fsync {min(floor):.2f}s  ratio {ratio:.2f}x "
            f"(target 1.5x: {'met' if ratio <= 1.5 else 'NOT met'})"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
