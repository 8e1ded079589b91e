"""``planeval resume-eval`` over the imported public suites: wall clock and CPU time.

Imports the five WorfBench domains and the agentic gem's cassette from the public data (by
default ``../shared/data``) into a temporary folder with ``planeval import`` (1,193 plans),
then runs ``planeval resume-eval`` on them as a user would, once per ``--workers`` value,
and prints per run: the wall clock, the CPU time (user + system of the command and every
process it waited for: complete for ``--workers 1``; the pool's workers are forked by a fork
server that is not waited for, so other runs show no CPU figure), the load average before
it, the plans and whether all passed.

Target (issue 10): under 60 s wall clock. The machine is shared: read the figures with the
load average beside them, and run a few times. Usage::

    python benchmarks/bench_resume_eval.py [--data DIR] [--workers 0,1] [--repeat N]

``--workers 0`` means the command's default (one worker process per available CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORFBENCH = ("toolbench", "toolalpaca", "seal_tools", "wikihow", "intercodesql")
TARGET_SECONDS = 60.0


def import_suites(data: Path, root: Path) -> None:
    """Import the WorfBench domains and the agentic cassette into ``root``."""
    commands = [
        ["import", "worfbench", str(data / "worfbench" / f"{domain}.json")] for domain in WORFBENCH
    ]
    commands.append(
        [
            "import",
            "ruby-vcr",
            str(data / "agentic" / "plan_ruby_coding_agent.yml"),
            "--suite",
            "agentic-ruby",
        ]
    )
    for command in commands:
        subprocess.run(
            [sys.executable, "-m", "harness", *command, "--root", str(root)],
            check=True,
            stdout=subprocess.DEVNULL,
        )


def measure(root: Path, workers: int, out: Path) -> dict[str, float | int | bool]:
    """Run resume-eval once; wall, CPU (this child and its waited-for descendants), rows."""
    command = [sys.executable, "-m", "harness", "resume-eval", str(root / "evals"), "--out"]
    command.append(str(out))
    if workers:
        command += ["--workers", str(workers)]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr.decode(errors="replace"))
    rows = [
        json.loads(line)
        for results in sorted(out.glob("*/results.jsonl"))
        for line in results.read_text().splitlines()
    ]
    return {
        "wall": wall,
        "cpu": cpu,
        "load": load,
        "plans": len(rows),
        "all_pass": done.returncode == 0 and all(r["status"] == "pass" for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--workers", default="0,1", help="comma-separated; 0: the default")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if not (args.data / "worfbench").is_dir():
        sys.exit(f"bench_resume_eval: no public data at {args.data} (pass --data DIR)")
    with tempfile.TemporaryDirectory(prefix="bench-resume-eval-") as tmp:
        root = Path(tmp)
        import_suites(args.data, root / "public")
        print(f"{'workers':>8} {'plans':>6} {'wall s':>8} {'cpu s':>8} {'load':>6}  verdict")
        for attempt in range(args.repeat):
            for workers in (int(w) for w in args.workers.split(",")):
                out = root / f"run-{attempt}-{workers}"
                got = measure(root / "public", workers, out)
                verdict = "within" if got["wall"] < TARGET_SECONDS else "over"
                label = "default" if not workers else str(workers)
                cpu = f"{got['cpu']:.1f}" if workers == 1 else "-"
                print(
                    f"{label:>8} {got['plans']:>6} {got['wall']:>8.1f} {cpu:>8} "
                    f"{got['load']:>6.1f}  {verdict} the {TARGET_SECONDS:g} s target; "
                    f"all plans pass: {got['all_pass']}"
                )


if __name__ == "__main__":
    main()
