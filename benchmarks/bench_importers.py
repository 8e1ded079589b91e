"""Importers and the pytest plugin on the shipped data, as whole processes against a floor.

Both parts use the shared paired method (``benchmarks/_paired.py``): separate processes,
alternating, at least 5 pairs, the median of the paired CPU and wall ratios with their spread,
peak memory of each child.

1. Import: ``planeval import worfbench FILE --root DIR`` for each of the five public WorfBench
   files, against a floor that reads the same file with ``json.loads`` and writes one response
   file per item (no parsing of turns, no suite, no staging, no atomic writes). Reported, no
   target: no issue has set one (measured 3-16x on a loaded machine, 2026-12-02).
2. pytest plugin: ``pytest --planeval evals/`` (every shipped suite) against ``planeval run
   evals/`` (the same replays through the runner). Reported, no target here: the plugin's
   target is against a hand-written check (``peers/run_peers.py``).

Run from the project root with ../shared/data beside it:
    python benchmarks/bench_importers.py [--pairs 5] [--only import|plugin]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from _installed_env import installed_env
from _paired import add_pairs_option, paired

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DOMAINS = ("toolbench", "toolalpaca", "seal_tools", "wikihow", "intercodesql")

FLOOR_IMPORT = """\
import json, sys
from pathlib import Path
source, root = Path(sys.argv[1]), Path(sys.argv[2])
for item in json.loads(source.read_text(encoding="utf-8")):
    out = root / "plan_fixtures" / source.stem / str(item["id"]) / "sample-0.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"response": item["conversations"][-1]["content"]}, indent=2))
"""
"""The least an importer does: read the file, write one response file per item."""


def planeval_command() -> list[str]:
    """The ``planeval`` console script beside this interpreter, else ``python -m harness``."""
    script = Path(sys.executable).with_name("planeval")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "harness"]


def _fresh(folder: Path) -> None:
    """Remove ``folder`` (an import refuses a suite that exists; a run folder is never
    overwritten)."""
    shutil.rmtree(folder, ignore_errors=True)


def bench_import(pairs: int, tmp: Path, env: dict[str, str]) -> None:
    floor_script = tmp / "floor_import.py"
    floor_script.write_text(FLOOR_IMPORT, encoding="utf-8")
    for domain in DOMAINS:
        source = DATA / "worfbench" / f"{domain}.json"
        ours, theirs = tmp / f"import-{domain}", tmp / f"floor-{domain}"
        paired(
            f"planeval import worfbench {source.name} vs json.loads + one file per item",
            [*planeval_command(), "import", "worfbench", str(source), "--root", str(ours)],
            [sys.executable, str(floor_script), str(source), str(theirs)],
            target=None,
            pairs=pairs,
            env=env,
            before=lambda ours=ours: _fresh(ours),
            floor_before=lambda theirs=theirs: _fresh(theirs),
        ).print()


def bench_plugin(pairs: int, tmp: Path, env: dict[str, str]) -> None:
    out = tmp / "runs"
    paired(
        "pytest --planeval evals/ vs planeval run evals/",
        [sys.executable, "-m", "pytest", "--planeval", "evals/", "-q", "-p", "no:cacheprovider"],
        [*planeval_command(), "run", "evals/", "--out", str(out)],
        target=None,
        pairs=pairs,
        env=env,
        cwd=ROOT,
        ok_codes=(0, 1),  # the shipped sloppy planner fails cases: pytest and run exit 1
        floor_ok_codes=(0, 1),
        floor_before=lambda: _fresh(out),
    ).print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_pairs_option(parser)
    parser.add_argument("--only", choices=("import", "plugin"), help="run one part")
    parser.add_argument("--as-is", action="store_true", help="keep the environment unchanged")
    args = parser.parse_args()
    if args.only != "plugin" and not (DATA / "worfbench").is_dir():
        raise SystemExit(f"the public data is not at {DATA}: run with --only plugin")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        env = installed_env(tmp / "pycache", as_is=args.as_is)
        if args.only != "plugin":
            bench_import(args.pairs, tmp, env)
        if args.only != "import":
            bench_plugin(args.pairs, tmp, env)


if __name__ == "__main__":
    main()
