"""``planeval resume-eval`` over the imported public suites, as whole processes.

Imports the five WorfBench domains and the agentic gem's cassette from the public data (by
default ``../shared/data``) into a temporary folder with ``planeval import`` (1,193 plans),
then, for each ``--workers`` value, measures ``planeval resume-eval evals/`` as a user runs it
in alternating pairs (``benchmarks/_paired.py``) against ``planeval run evals/`` on the same
suites (the same recorded plans read and checked, without the crash-and-resume scenarios: what
the scenarios add is the ratio).

Target (issue 10): under 60 s wall clock for the command, every measured run (the verdict is on
the range of the runs: ``on the line`` when it crosses 60 s). The CPU figure is complete for
``--workers 1`` only: the pool's workers are forked by a fork server that the command does not
wait for, so their CPU is not in the command's figure (the wall is). Usage::

    python benchmarks/bench_resume_eval.py [--data DIR] [--workers 0,1] [--pairs P]
        [--suites toolbench,wikihow,...] [--as-is]

``--workers 0`` means the command's default (one worker process per available CPU).
``--suites`` imports only those (WorfBench domains, ``agentic-ruby``), for a short run.
"""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _installed_env import installed_env
from _paired import add_pairs_option, paired, verdict

WORFBENCH = ("toolbench", "toolalpaca", "seal_tools", "wikihow", "intercodesql")
AGENTIC = "agentic-ruby"
TARGET_SECONDS = 60.0


def import_suites(data: Path, root: Path, suites: list[str], env: dict[str, str]) -> None:
    """Import the chosen WorfBench domains and the agentic cassette into ``root``."""
    commands = [
        ["import", "worfbench", str(data / "worfbench" / f"{domain}.json")]
        for domain in WORFBENCH
        if domain in suites
    ]
    if AGENTIC in suites:
        cassette = data / "agentic" / "plan_ruby_coding_agent.yml"
        commands.append(["import", "ruby-vcr", str(cassette), "--suite", AGENTIC])
    for command in commands:
        subprocess.run(
            [sys.executable, "-m", "harness", *command, "--root", str(root)],
            check=True,
            stdout=subprocess.DEVNULL,
            env=env,
        )


def plans_and_passes(out: Path) -> tuple[int, bool]:
    """The rows a run wrote under ``out`` (one suite: ``out`` is its run; several: a run per
    suite inside it), and whether every one passed."""
    count, passed = 0, True
    for results in sorted(out.rglob("results.jsonl")):
        with results.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    count += 1
                    passed = passed and json.loads(line)["status"] == "pass"
    return count, passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--workers", default="0,1", help="comma-separated; 0: the default")
    parser.add_argument(
        "--suites", default=",".join((*WORFBENCH, AGENTIC)), help="comma-separated, to import"
    )
    add_pairs_option(parser)
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    if not (args.data / "worfbench").is_dir():
        sys.exit(f"bench_resume_eval: no public data at {args.data} (pass --data DIR)")
    suites = args.suites.split(",")
    unknown = sorted(set(suites) - {*WORFBENCH, AGENTIC})
    if unknown:
        known = ", ".join((*WORFBENCH, AGENTIC))
        parser.error(f"--suites: unknown {', '.join(unknown)}; choose from {known}")
    with tempfile.TemporaryDirectory(prefix="bench-resume-eval-") as tmp:
        root = Path(tmp)
        env = installed_env(root / "pycache", as_is=args.as_is)
        project = root / "public"
        import_suites(args.data, project, suites, env)
        evals = str(project / "evals")
        run_out = root / "run"
        floor = [sys.executable, "-m", "harness", "run", evals, "--out", str(run_out)]
        for workers in (int(w) for w in args.workers.split(",")):
            out = root / f"resume-{workers}"
            command = [sys.executable, "-m", "harness", "resume-eval", evals, "--out", str(out)]
            if workers:
                command += ["--workers", str(workers)]
            label = "default" if not workers else str(workers)
            result = paired(
                f"resume-eval --workers {label} (resume-eval / run, same suites)",
                command,
                floor,
                target=None,
                pairs=args.pairs,
                env=env,
                ok_codes=(0, 1),
                floor_ok_codes=(0, 1),
                before=functools.partial(shutil.rmtree, out, ignore_errors=True),
                floor_before=lambda: shutil.rmtree(run_out, ignore_errors=True),
            )
            result.print()
            walls = [c.wall for c in result.command]
            plans, all_pass = plans_and_passes(out)
            within = verdict(min(walls), max(walls), TARGET_SECONDS)
            print(
                f"  command wall {min(walls):.1f}-{max(walls):.1f} s over {len(walls)} runs; "
                f"target under {TARGET_SECONDS:g} s: {within}"
                f"; {plans:,} plans, all pass: {all_pass}",
                flush=True,
            )
            if workers != 1:
                print("  (CPU without the pool's workers: complete only for --workers 1)")


if __name__ == "__main__":
    main()
