"""planeval against the hand-written check on the 1,192 public WorfBench gold plans.

Imports the five WorfBench domains of ``../shared/data/worfbench`` (1,192 items) into a
scratch project, then measures in alternating pairs, whole processes
(``benchmarks/_paired.py``):

1. ``planeval run evals/`` (every check, metrics, results.jsonl, run.json) against
   ``pytest benchmarks/peers/handwritten/test_plans.py`` (a pytest + networkx script that checks
   two properties: acyclic, no dangling edge). Target: planeval at least 1.5x less CPU, i.e. a
   ratio of at most 0.67.
2. ``pytest --planeval evals/`` (the plugin: one test per case x model x sample) against the
   same hand-written check under the same pytest. Target: no slower (ratio at most 1).

The framework peers (promptfoo, Inspect AI) are measured by ``run_frameworks.py`` beside this
script, on the same imported plans.

Run: ``python benchmarks/peers/run_peers.py [--pairs P] [--only NAME] [--without PLUGIN]
[--as-is]``. ``--only run`` or ``--only plugin`` measures one of the two comparisons (both
when not given). ``--without PLUGIN`` (repeatable) disables that pytest plugin with
``-p no:PLUGIN`` in every pytest command of the benchmark, both sides alike (e.g.
``--without hypothesispytest``: hypothesis' plugin, installed with the dev dependencies, costs
each pytest start-up the same). Skips, with the reason, when the public data is not beside the
checkout.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from _installed_env import installed_env  # noqa: E402
from _paired import add_pairs_option, paired  # noqa: E402

DATA = HERE.parents[2] / "shared" / "data" / "worfbench"
IMPORT = [sys.executable, "-m", "harness", "import", "worfbench"]
DOMAINS = ("toolbench", "toolalpaca", "seal_tools", "wikihow", "intercodesql")
COMPARISONS = ("run", "plugin")


def missing_data() -> str | None:
    """Why the public WorfBench data cannot be used, or None when it is there."""
    missing = [d for d in DOMAINS if not (DATA / f"{d}.json").is_file()]
    if missing:
        return f"the public WorfBench data is not at {DATA} ({', '.join(missing)})"
    return None


def imported_project(root: Path, env: dict[str, str]) -> Path:
    """``root/project``: the five WorfBench domains imported (suites and recorded answers)."""
    project = root / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    for domain in DOMAINS:
        data = str(DATA / f"{domain}.json")
        subprocess.run(
            [*IMPORT, data, "--suite", f"worfbench-{domain}", "--root", str(project)],
            check=True,
            stdout=subprocess.DEVNULL,
            env=env,
        )
    plans = sum(1 for _ in (project / "plan_fixtures").rglob("sample-0.json"))
    print(f"{plans:,} recorded WorfBench plans in {len(DOMAINS)} suites", flush=True)
    return project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_pairs_option(parser)
    parser.add_argument(
        "--only",
        choices=COMPARISONS,
        action="append",
        help="measure only this comparison (repeatable; default: both)",
    )
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="PLUGIN",
        help="disable this pytest plugin (-p no:PLUGIN) in every pytest command, both sides",
    )
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    only = set(args.only or COMPARISONS)
    why = missing_data()
    if why:
        print(f"skipped: {why}")
        return
    with tempfile.TemporaryDirectory(prefix="peers-") as folder:
        root = Path(folder)
        env = installed_env(root / "pycache", as_is=args.as_is)
        project = imported_project(root, env)
        peer_env = {**env, "PLANS_DIR": str(project / "plan_fixtures")}
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        for name in args.without:
            pytest += ["-p", f"no:{name}"]
        handwritten = [*pytest, "-p", "no:planeval", str(HERE / "handwritten" / "test_plans.py")]
        out = root / "run"
        if "run" in only:
            run_comparison(project, out, handwritten, env, peer_env, args.pairs)
        if "plugin" in only:
            plugin_comparison(project, pytest, handwritten, env, peer_env, args.pairs)


def run_comparison(
    project: Path,
    out: Path,
    handwritten: list[str],
    env: dict[str, str],
    peer_env: dict[str, str],
    pairs: int,
) -> None:
    """``planeval run evals/`` against the hand-written check (target 1.5x less CPU)."""
    run = paired(
        "planeval run evals/ vs the hand-written pytest + networkx check",
        [sys.executable, "-m", "harness", "run", "evals", "--out", str(out)],
        handwritten,
        target=1 / 1.5,
        pairs=pairs,
        env=env,
        floor_env=peer_env,
        cwd=project,
        ok_codes=(0, 1),
        before=lambda: shutil.rmtree(out, ignore_errors=True),
    )
    run.print()
    print("  (ratio = planeval / hand-written; 0.67 is 1.5x less CPU)")


def plugin_comparison(
    project: Path,
    pytest: list[str],
    handwritten: list[str],
    env: dict[str, str],
    peer_env: dict[str, str],
    pairs: int,
) -> None:
    """``pytest --planeval evals/`` against the hand-written check under the same pytest."""
    plugin = paired(
        "pytest --planeval evals/ vs the hand-written check under the same pytest",
        [*pytest, "--planeval", "evals"],
        handwritten,
        target=1.0,
        pairs=pairs,
        env=env,
        floor_env=peer_env,
        cwd=project,
        ok_codes=(0, 1),
    )
    plugin.print()


if __name__ == "__main__":
    main()
