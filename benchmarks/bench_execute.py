"""Executor overhead per task, as whole processes: linear in plan size, and close to the disk
when fsync'ing.

Every figure times ``planeval execute PLAN --journal J --backoff 0`` (the demo agent) as its own
process, as a user runs it, in alternating pairs against a floor (``benchmarks/_paired.py``):

1. **Linear.** A chain (each task needs the previous one) and a wide plan (independent tasks)
   of 1,000, 10,000 and 100,000 tasks, journal fsync'd every 1,000 events, each paired with the
   same command on a 1-task plan (start-up, imports, opening the journal: the least work that
   executes a plan). Each pair gives the CPU per task with that start-up taken off,
   (command - floor) / (N - 1); the target is the largest plan's per-task CPU within 3x of the
   smallest's (linear), on the medians, with the range of the pairs beside it.
2. **fsync every event.** A 300-task chain with ``--fsync-every 1`` against a fresh interpreter
   that writes the same journal bytes (from an untimed run) line by line with ``os.write`` +
   ``os.fsync``. Target: wall within 1.5x (the disk is the cost here, so the verdict is on wall;
   the shared disk's fsync time drifts by 2x within minutes, which the pairing absorbs). The CPU
   per event of both is printed too: it does not depend on the disk, and the executor's extra
   CPU per event over the bare loop's wall per event bounds the ratio a free CPU would give.

Run:  python benchmarks/bench_execute.py [--sizes 1000,10000,100000] [--pairs P] [--dir DIR]
          [--fsync-tasks 300] [--fsync-pairs 7] [--only linear|fsync] [--as-is]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _installed_env import installed_env
from _paired import add_pairs_option, measure, paired, verdict

BARE_WRITE = """\
import os, sys
with open(sys.argv[1], "rb") as fh:
    lines = fh.readlines()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
try:
    for line in lines:
        os.write(fd, line)
        os.fsync(fd)
finally:
    os.close(fd)
"""
"""The fsync floor: the journal's bytes written line by line, each line fsync'd."""


def chain(n: int) -> dict[str, Any]:
    """Hand-built chain t0 -> t1 -> ..., each needing the previous task's output."""
    tasks: list[dict[str, Any]] = [{"id": "t0", "description": "Step 0"}]
    tasks += [
        {"id": f"t{i}", "description": f"Step {i}", "needs": {"previous": f"t{i - 1}"}}
        for i in range(1, n)
    ]
    return {"plan_id": f"bench-chain-{n}", "goal": "chain", "tasks": tasks}


def wide(n: int) -> dict[str, Any]:
    """Hand-built wide plan: n independent tasks."""
    tasks = [{"id": f"t{i}", "description": f"Step {i}"} for i in range(n)]
    return {"plan_id": f"bench-wide-{n}", "goal": "wide", "tasks": tasks}


def plan_file(root: Path, doc: dict[str, Any]) -> Path:
    path = root / f"{doc['plan_id']}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def execute_command(plan: Path, journal: Path, fsync_every: int) -> list[str]:
    """``planeval execute`` of ``plan`` into ``journal`` (which must not exist yet)."""
    return [
        sys.executable,
        "-m",
        "harness",
        "execute",
        str(plan),
        "--journal",
        str(journal),
        "--backoff",
        "0",
        "--fsync-every",
        str(fsync_every),
    ]


def linear(root: Path, sizes: list[int], pairs: int, env: dict[str, str]) -> None:
    """Per-task CPU of each plan size, start-up taken off; the largest vs the smallest."""
    journal = root / "journal.jsonl"

    def fresh() -> None:
        journal.unlink(missing_ok=True)

    for shape, build in (("chain", chain), ("wide", wide)):
        floor = execute_command(plan_file(root, build(1)), journal, 1000)
        per_task: dict[int, list[float]] = {}
        for n in sizes:
            result = paired(
                f"{shape} of {n:,} tasks, fsync every 1,000 events (execute / 1-task plan)",
                execute_command(plan_file(root, build(n)), journal, 1000),
                floor,
                target=None,
                pairs=pairs,
                env=env,
                before=fresh,
                floor_before=fresh,
            )
            result.print()
            per_task[n] = [
                (c.cpu - f.cpu) / (n - 1) for c, f in zip(result.command, result.floor, strict=True)
            ]
            print(
                f"  per task {1e6 * statistics.median(per_task[n]):.1f} us CPU, start-up off "
                f"(spread {1e6 * min(per_task[n]):.1f}-{1e6 * max(per_task[n]):.1f} us)",
                flush=True,
            )
        small, large = min(sizes), max(sizes)
        if min(per_task[small]) <= 0 or min(per_task[large]) <= 0:
            print(
                f"{shape}: the start-up's spread exceeds the plan's own cost in some pair: "
                "no per-task verdict (use larger --sizes)",
                flush=True,
            )
            continue
        ratio = statistics.median(per_task[large]) / statistics.median(per_task[small])
        low = min(per_task[large]) / max(per_task[small])
        high = max(per_task[large]) / min(per_task[small])
        print(
            f"{shape}: per-task CPU at {large:,} vs {small:,} tasks: {ratio:.2f}x "
            f"(range {low:.2f}-{high:.2f}x; target <= 3x: {verdict(low, high, 3.0)})",
            flush=True,
        )


def fsync_every_event(root: Path, tasks: int, pairs: int, env: dict[str, str]) -> None:
    """The executor with an fsync per event against a bare write + fsync of the same bytes."""
    journal = root / "fsync.jsonl"
    command = execute_command(plan_file(root, chain(tasks)), journal, 1)
    # an untimed run: it warms the command and writes the bytes the floor writes
    measure(command, env=env)
    lines = root / "fsync-lines.jsonl"
    shutil.copyfile(journal, lines)
    events = len(lines.read_bytes().splitlines())
    bare = root / "bare.jsonl"
    result = paired(
        f"chain of {tasks:,} tasks, fsync every event ({events:,} events) (execute / bare "
        "write + fsync)",
        command,
        [sys.executable, "-c", BARE_WRITE, str(lines), str(bare)],
        target=1.5,
        pairs=pairs,
        env=env,
        before=lambda: journal.unlink(missing_ok=True),
        warm=False,
        on="wall",
    )
    result.print()
    ours_cpu = statistics.median(c.cpu for c in result.command)
    bare_cpu = statistics.median(f.cpu for f in result.floor)
    bare_wall = statistics.median(f.wall for f in result.floor)
    bound = 1 + max(ours_cpu - bare_cpu, 0.0) / bare_wall
    print(
        f"  per event: execute CPU {1e6 * ours_cpu / events:.0f} us, bare CPU "
        f"{1e6 * bare_cpu / events:.0f} us, bare wall (the disk) {1e6 * bare_wall / events:.0f} "
        f"us; with a free CPU the wall ratio would be about {bound:.2f}x",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    add_pairs_option(parser)
    parser.add_argument("--fsync-tasks", type=int, default=300, help="chain of the fsync check")
    parser.add_argument("--fsync-pairs", type=int, default=7, help="pairs of the fsync check")
    parser.add_argument("--only", choices=("linear", "fsync"), default=None)
    parser.add_argument("--dir", type=Path, default=None, help="where journals go (its disk)")
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    if args.dir is not None and not args.dir.is_dir():
        parser.error(f"--dir {args.dir}: no such folder; create it first or name another one")
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if sizes[0] < 2:
        parser.error("--sizes: each plan needs at least 2 tasks (1 task is the floor)")
    root = Path(tempfile.mkdtemp(prefix="bench_execute_", dir=args.dir or Path.cwd()))
    print(f"disk: {root}  load average: {os.getloadavg()[0]:.2f}", flush=True)
    try:
        env = installed_env(root / "pycache", as_is=args.as_is)
        if args.only != "fsync":
            linear(root, sizes, args.pairs, env)
        if args.only != "linear":
            fsync_every_event(root, args.fsync_tasks, args.fsync_pairs, env)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
