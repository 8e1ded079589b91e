"""Start-up: ``planeval check`` on a small plan against ``python -c pass``, in fresh processes.

A one-case command is almost all start-up (interpreter, imports, building the command line),
so this measures what a user waits for when they type it. Each command runs ``--runs`` times,
interleaved with the reference so both see the same machine load; every run is timed on the
wall clock and in CPU time (user + system of the child), and the script prints the minimum and
the median of each, and the ratios of the medians and of the minimums.

- reference: ``python -c pass`` with the same interpreter (and so the same ``site`` set-up);
- target: ``planeval check PLAN`` (the console script) on a valid 3-task plan;
- for information: ``planeval --version`` and ``planeval check --help`` (rich's help panels).

Bytecode: the children run with ``PYTHONDONTWRITEBYTECODE`` removed and a private
``PYTHONPYCACHEPREFIX`` warmed up before timing, as an installed package runs (its ``.pyc``
files exist). ``--as-is`` keeps the environment unchanged instead (with
``PYTHONDONTWRITEBYTECODE=1`` every start compiles every module from source).

Target: ``planeval check`` within 5x of ``python -c pass`` (median CPU time and median wall).

    python benchmarks/bench_startup.py [--runs 15] [--as-is]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 5.0
PLAN = {
    "goal": "Refund a damaged order",
    "tasks": [
        {"id": "find", "description": "Find the order", "depends_on": []},
        {"id": "check", "description": "Check the damage report", "depends_on": ["find"]},
        {"id": "refund", "description": "Issue the refund", "depends_on": ["check"]},
    ],
}


def planeval_command() -> list[str]:
    """The ``planeval`` console script beside this interpreter, else ``python -m harness``."""
    script = Path(sys.executable).with_name("planeval")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "harness"]


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run ``command`` once: (wall seconds, CPU seconds of the child). Fails on a non-zero exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def child_env(as_is: bool, pycache: Path) -> dict[str, str]:
    """The children's environment (see the module docstring on bytecode)."""
    env = dict(os.environ)
    if not as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def measure(commands: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, list]:
    """``runs`` interleaved timings of every command (after two untimed warm-up runs each)."""
    for command in commands.values():
        for _ in range(2):
            timed(command, env)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            samples[name].append(timed(command, env))
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each command")
    parser.add_argument("--as-is", action="store_true", help="keep the environment unchanged")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "plan.json"
        plan.write_text(json.dumps(PLAN), encoding="utf-8")
        planeval = planeval_command()
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "planeval check PLAN": [*planeval, "check", str(plan)],
            "planeval --version": [*planeval, "--version"],
            "planeval check --help": [*planeval, "check", "--help"],
        }
        samples = measure(commands, child_env(args.as_is, Path(tmp) / "pycache"), args.runs)
    ref_wall = [w for w, _ in samples["python -c pass"]]
    ref_cpu = [c for _, c in samples["python -c pass"]]
    print(f"{args.runs} runs each, interleaved; seconds (min / median); ratio to python -c pass")
    print(
        f"{'':24}{'wall min':>9}{'median':>8}{'cpu min':>9}{'median':>8}"
        f"{'wall ratio (median/min)':>25}{'cpu ratio (median/min)':>24}"
    )
    figures: dict[str, tuple[float, float]] = {}
    for name, runs in samples.items():
        wall = [w for w, _ in runs]
        cpu = [c for _, c in runs]
        wall_ratio = (
            statistics.median(wall) / statistics.median(ref_wall),
            min(wall) / min(ref_wall),
        )
        cpu_ratio = (statistics.median(cpu) / statistics.median(ref_cpu), min(cpu) / min(ref_cpu))
        figures[name] = (wall_ratio[0], cpu_ratio[0])
        print(
            f"{name:24}{min(wall):9.3f}{statistics.median(wall):8.3f}{min(cpu):9.3f}"
            f"{statistics.median(cpu):8.3f}{wall_ratio[0]:15.2f}x /{wall_ratio[1]:5.2f}x"
            f"{cpu_ratio[0]:14.2f}x /{cpu_ratio[1]:5.2f}x"
        )
    wall_ratio, cpu_ratio = figures["planeval check PLAN"]
    verdict = "met" if max(wall_ratio, cpu_ratio) <= TARGET else "NOT met"
    print(
        f"target: planeval check within {TARGET:g}x of python -c pass (medians): {verdict} "
        f"(wall {wall_ratio:.2f}x, cpu {cpu_ratio:.2f}x)"
    )


if __name__ == "__main__":
    main()
