"""Start-up: ``planeval check`` on a small plan against ``python -c pass``, in fresh processes.

A one-case command is almost all start-up (interpreter, imports, building the command line),
so this measures what a user waits for when they type it. Each command is measured against
``python -c pass`` (the same interpreter, so the same ``site`` set-up) with the shared paired
method (``benchmarks/_paired.py``): separate processes, alternating, at least 5 pairs, the
median of the paired CPU and wall ratios with their spread, peak memory of each child.

- target: ``planeval check PLAN`` (the console script) on a valid 3-task plan;
- for information: ``planeval --version`` and ``planeval check --help`` (rich's help panels).

Bytecode: the children run with ``PYTHONDONTWRITEBYTECODE`` removed and a private
``PYTHONPYCACHEPREFIX`` warmed up before timing, as an installed package runs (its ``.pyc``
files exist). ``--as-is`` keeps the environment unchanged instead (with
``PYTHONDONTWRITEBYTECODE=1`` every start compiles every module from source).

Target: ``planeval check`` within 5x of ``python -c pass`` (median of the paired CPU ratios).

    python benchmarks/bench_startup.py [--pairs 15] [--as-is]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from _installed_env import installed_env
from _paired import add_pairs_option, paired

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_pairs_option(parser)
    parser.add_argument("--as-is", action="store_true", help="keep the environment unchanged")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "plan.json"
        plan.write_text(json.dumps(PLAN), encoding="utf-8")
        planeval = planeval_command()
        floor = [sys.executable, "-c", "pass"]
        env = installed_env(Path(tmp) / "pycache", as_is=args.as_is)
        commands = {
            "planeval check PLAN": ([*planeval, "check", str(plan)], TARGET),
            "planeval --version": ([*planeval, "--version"], None),
            "planeval check --help": ([*planeval, "check", "--help"], None),
        }
        for name, (command, target) in commands.items():
            result = paired(
                f"{name} vs python -c pass",
                command,
                floor,
                target=target,
                pairs=args.pairs,
                env=env,
            )
            result.print()


if __name__ == "__main__":
    main()
