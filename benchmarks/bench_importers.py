"""Speed of the importers and of the pytest plugin on the shipped data, as ratios to a floor.

1. Import: `import_worfbench` over the five WorfBench files plus `import_ruby_vcr` over the
   gem's cassette, versus the floor of reading the same JSON and writing the same number of
   response files in a bare loop (no parsing of turns, no registry, no staging).
2. pytest plugin: `pytest --planeval evals/` (all shipped suites) versus `planeval run
   evals/*.yaml` (the same replays through the runner), both as subprocesses.

Run alone, on a quiet machine, from the project root with ../shared/data beside it:
    python benchmarks/bench_importers.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DOMAINS = ("toolbench", "toolalpaca", "seal_tools", "wikihow", "intercodesql")


def _best(fn: object, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def bench_import() -> tuple[float, float]:
    from harness.importers import import_ruby_vcr, import_worfbench

    def run_import() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            for d in DOMAINS:
                import_worfbench(DATA / "worfbench" / f"{d}.json", root=Path(tmp))
            import_ruby_vcr(DATA / "agentic" / "plan_ruby_coding_agent.yml", root=Path(tmp))

    def floor() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            for d in DOMAINS:
                for item in json.loads((DATA / "worfbench" / f"{d}.json").read_text()):
                    out = Path(tmp) / d / item["id"] / "sample-0.json"
                    out.parent.mkdir(parents=True)
                    answer = item["conversations"][-1]["content"]
                    out.write_text(json.dumps({"response": answer}, indent=2))

    return _best(run_import), _best(floor)


def bench_plugin() -> tuple[float, float]:
    suites = sorted((ROOT / "evals").glob("*.yaml"))
    planeval = shutil.which("planeval", path=str(Path(sys.executable).parent)) or "planeval"
    out = Path(tempfile.mkdtemp())

    def run_cli() -> None:
        batch = Path(tempfile.mkdtemp(dir=out))  # runs are never overwritten: a fresh folder
        argv = [planeval, "run", *map(str, suites), "--out", str(batch)]
        subprocess.run(argv, cwd=ROOT, check=True, capture_output=True)

    def run_pytest() -> None:
        argv = [sys.executable, "-m", "pytest", "--planeval", "evals/", "-q"]
        subprocess.run([*argv, "-p", "no:cacheprovider"], cwd=ROOT, check=True,
                       capture_output=True)  # fmt: skip

    try:
        return _best(run_pytest, 2), _best(run_cli, 2)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    imported, floor = bench_import()
    print(f"import all shipped data: {imported:.2f} s; floor (read + write files): {floor:.2f} s;"
          f" ratio {imported / floor:.1f}x")  # fmt: skip
    plugin, cli = bench_plugin()
    print(f"pytest --planeval evals/: {plugin:.2f} s; planeval run evals/*.yaml: {cli:.2f} s;"
          f" ratio {plugin / cli:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
