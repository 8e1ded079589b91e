"""Executor overhead per task: linear in plan size, and close to the disk when fsync'ing.

1. The demo agent over a chain (each task needs the previous one) and a wide plan (independent
   tasks) of 1,000, 10,000 and 100,000 tasks, journal fsync'd every 1,000 events. Prints the
   time per task and the ratio of the largest plan's time per task to the smallest's
   (target: within 3x, i.e. linear).
2. A 300-task chain with fsync on every event, against a bare loop that writes the same
   journal bytes line by line with ``os.write`` + ``os.fsync`` (target: within 1.5x). The
   shared disk's fsync time drifts by 2x within minutes, so the two are measured in rounds,
   back to back, alternating which goes first; each round gives a ratio, and the verdict is
   on the median ratio (the range is printed beside it). The CPU time per event of both is
   printed too: it does not depend on the disk, and the executor's extra CPU per event over
   the bare loop's wall time per event bounds the ratio a free CPU would give.

Run:  python benchmarks/bench_execute.py [--sizes 1000,10000,100000] [--repeat N] [--dir DIR]
          [--fsync-tasks 300] [--fsync-rounds 7] [--only linear|fsync]
Each large-plan figure is the best of N runs (default 1).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
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
    """Wall-clock seconds of one execution into a fresh journal."""
    return timed_execute_cpu(plan, journal, fsync_every)[0]


def timed_execute_cpu(plan: Plan, journal: Path, fsync_every: int) -> tuple[float, float]:
    """(wall, CPU) seconds of one execution into a fresh journal (CPU of every thread)."""
    journal.unlink(missing_ok=True)
    cpu = time.process_time()
    began = time.perf_counter()
    result = execute(plan, journal, backoff=0.0, fsync_every=fsync_every, max_concurrency=4)
    elapsed = time.perf_counter() - began
    if not result.ok:
        raise SystemExit(f"the benchmark plan did not complete: {result.status}")
    return elapsed, time.process_time() - cpu


def bare_write_fsync_cpu(lines: list[bytes], path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the bare write + fsync loop."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        cpu = time.process_time()
        began = time.perf_counter()
        for line in lines:
            os.write(fd, line)
            os.fsync(fd)
        return time.perf_counter() - began, time.process_time() - cpu
    finally:
        os.close(fd)


def fsync_rounds(root: Path, tasks: int, rounds: int) -> None:
    """The fsync-every-event check: ``rounds`` back-to-back pairs, alternating the order."""
    plan = chain(tasks)
    journal = root / "fsync.jsonl"
    timed_execute_cpu(plan, journal, 1)  # warm-up; its bytes feed the bare loop
    lines = journal.read_bytes().splitlines(keepends=True)
    events = len(lines)
    ratios, ours_cpu, bare_cpu, bare_wall = [], [], [], []
    for number in range(rounds):
        if number % 2:
            bare = bare_write_fsync_cpu(lines, root / "bare")
            ours = timed_execute_cpu(plan, journal, 1)
        else:
            ours = timed_execute_cpu(plan, journal, 1)
            bare = bare_write_fsync_cpu(lines, root / "bare")
        ratios.append(ours[0] / bare[0])
        ours_cpu.append(ours[1])
        bare_cpu.append(bare[1])
        bare_wall.append(bare[0])
        print(
            f"  round {number + 1}: execute {ours[0]:.2f}s  bare write+fsync {bare[0]:.2f}s"
            f"  ratio {ratios[-1]:.2f}x"
        )
    median = statistics.median(ratios)
    per_event = 1e6 / events
    extra_cpu = statistics.median(ours_cpu) - statistics.median(bare_cpu)
    bound = 1 + max(extra_cpu, 0.0) / statistics.median(bare_wall)
    print(
        f"chain {tasks:,} tasks, fsync every event ({events:,} events): median ratio "
        f"{median:.2f}x (range {min(ratios):.2f}-{max(ratios):.2f}x over {rounds} rounds; "
        f"target 1.5x: {'met' if median <= 1.5 else 'NOT met'})"
    )
    print(
        f"  per event: execute CPU {statistics.median(ours_cpu) * per_event:.0f} us, bare CPU "
        f"{statistics.median(bare_cpu) * per_event:.0f} us, bare wall (the disk) "
        f"{statistics.median(bare_wall) * per_event:.0f} us; with a free CPU the ratio would "
        f"be about {bound:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=1, help="runs per large-plan figure")
    parser.add_argument("--fsync-tasks", type=int, default=300, help="chain of the fsync check")
    parser.add_argument("--fsync-rounds", type=int, default=7, help="rounds of the fsync check")
    parser.add_argument("--only", choices=("linear", "fsync"), default=None)
    parser.add_argument("--dir", type=Path, default=None, help="where journals go (its disk)")
    args = parser.parse_args()
    if args.dir is not None and not args.dir.is_dir():
        parser.error(f"--dir {args.dir}: no such folder; create it first or name another one")
    sizes = [int(s) for s in args.sizes.split(",")]
    root = Path(tempfile.mkdtemp(prefix="bench_execute_", dir=args.dir or Path.cwd()))
    print(f"disk: {root}  load average: {os.getloadavg()[0]:.2f}")
    try:
        if args.only != "fsync":
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
        if args.only != "linear":
            fsync_rounds(root, args.fsync_tasks, args.fsync_rounds)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
