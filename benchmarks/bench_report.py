"""Benchmark: ``planeval report`` and ``planeval compare`` on a synthetic 200,000-row run.

The run is 1,000 cases x 20 models x 10 samples (suite ``synthetic-bench``; every row is
generated here, nothing is real). The reference is a bare stdlib pass over the same
results.jsonl: ``json.loads`` of every line. Targets: ``planeval report`` and ``planeval compare
--format html`` each within 2x that time (compare reads two runs, so its reference is the
pass over both files), and report.html and the compare page each under 10 MB (report.html's
case table past 1 MB is in its side folder ``report-data-*/``, whose size is printed apart).

    python benchmarks/bench_report.py [--cases 1000 --models 20 --samples 10] [--keep DIR]
        [--pairs P] [--as-is] [--only report|compare]

With ``--keep DIR`` the runs DIR/base and DIR/cand are made once and reused (or bring your
own: link them there); the row counts printed are those of the files measured.

The commands and their floors are timed as separate processes in alternating pairs
(``benchmarks/_paired.py``: median of the paired ratios with their spread, CPU and wall, peak
memory), so the figures include interpreter start-up and imports, as a user sees them; the
verdict is on the CPU ratio, the steadier one on a loaded machine.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _installed_env import installed_env
from _paired import add_pairs_option, loads_loop, paired

from harness.run import ResultRow, RunManifest

CHECKS = (
    "schema",
    "unique_ids",
    "deps_resolve",
    "self_dependency",
    "acyclic",
    "needs_resolve",
    "needs_earlier_output",
    "task_count_band",
    "known_capabilities",
    "isolated_task",
    "redundant_dependency",
)


def _plan(case: int, model: int, tasks: int) -> dict[str, Any]:
    ids = [f"t{case}_{model}_{i}" for i in range(tasks)]
    return {
        "plan_id": f"bench-{case}-{model}",
        "goal": f"Synthetic goal number {case}",
        "tasks": [
            {
                "id": ids[i],
                "description": f"Step {i} of case {case}",
                "capabilities": [f"cap_{(case + i) % 17}"],
                "depends_on": [ids[i - 1]] if i else [],
                "needs": [{"name": "input", "task": ids[i - 1]}] if i else [],
            }
            for i in range(tasks)
        ],
    }


def make_run(
    run_dir: Path, cases: int, models: int, samples: int, skill_shift: float, seed: int
) -> None:
    rng = random.Random(seed)
    run_dir.mkdir(parents=True)
    counts: dict[str, int] = {}
    model_ids = [f"model-{m:02d}" for m in range(models)]
    with (run_dir / "results.jsonl").open("w", encoding="utf-8") as f:
        for c in range(cases):
            difficulty = rng.random()
            for m, model in enumerate(model_ids):
                skill = 0.35 + 0.6 * m / max(1, models - 1) + skill_shift
                plan = _plan(c, m, 3 + (c + m) % 4)
                for k in range(samples):
                    u = rng.random()
                    if u < 0.004:
                        status = "missing"
                    elif u < 0.006:
                        status = "error"
                    elif u < 0.03:
                        status = "unparseable"
                    else:
                        status = "pass" if rng.random() < skill - 0.3 * difficulty else "fail"
                    parsed = status in ("pass", "fail")
                    checks = {x: "pass" for x in CHECKS} if parsed else {}
                    violations = []
                    if status == "fail":
                        bad = CHECKS[(c + k) % 9]
                        checks[bad] = "fail"
                        violations = [
                            {
                                "check": bad,
                                "severity": "error",
                                "task": plan["tasks"][1]["id"],
                                "path": "/tasks/1/depends_on/0",
                                "message": f"synthetic {bad} violation",
                            }
                        ]
                    row = ResultRow(
                        suite="synthetic-bench",
                        case=f"case-{c:04d}",
                        model=model,
                        sample=k,
                        status=status,  # type: ignore[arg-type]
                        checks=checks,
                        violations=violations,
                        task_count=len(plan["tasks"]) if parsed else None,
                        latency_ms=round(rng.uniform(300, 4000), 1)
                        if status != "missing"
                        else None,
                        tokens={"input": 900 + c % 50, "output": 200 + k} if parsed else None,
                        tags=[f"tag-{c % 7}"],
                        detail=None if parsed else f"{status}: synthetic",
                        recording=f"plan_fixtures/synthetic-bench/{model}/case-{c:04d}/sample-{k}.json",
                        plan=plan if parsed else None,
                    )
                    counts[status] = counts.get(status, 0) + 1
                    f.write(json.dumps(row.to_dict()) + "\n")
    manifest = RunManifest(
        run_id=run_dir.name,
        suite="synthetic-bench",
        suite_path="evals/synthetic-bench.yaml",
        prompt_hash="sha256:" + "0" * 64,
        models=[{"id": m, "provider": "dataset", "model": m, "params": {}} for m in model_ids],
        samples=samples,
        record_mode="none",
        harness_version="bench",
        git_commit=None,
        started_at="2026-01-01T00:00:00Z",
        finished_at="2026-01-01T01:00:00Z",
        counts=counts,
    )
    (run_dir / "run.json").write_text(json.dumps(manifest.to_dict()), encoding="utf-8")


def count_rows(results: Path) -> int:
    """The lines of a results.jsonl (one row each), read in blocks."""
    rows, tail = 0, b"\n"
    with results.open("rb") as f:
        while block := f.read(1 << 24):
            rows += block.count(b"\n")
            tail = block[-1:]
    return rows + (tail != b"\n")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--models", type=int, default=20)
    ap.add_argument("--samples", type=int, default=10)
    add_pairs_option(ap)
    ap.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    ap.add_argument(
        "--keep", type=Path, help="write the runs here and keep them (reused when already there)"
    )
    ap.add_argument(
        "--only", choices=("report", "compare"), help="measure only this command (default: both)"
    )
    a = ap.parse_args()
    root = a.keep or Path(tempfile.mkdtemp(prefix="planeval-bench-"))
    try:
        t = time.perf_counter()
        if not (root / "cand" / "run.json").is_file():  # --keep DIR of an earlier run: reuse
            shutil.rmtree(root / "base", ignore_errors=True)
            shutil.rmtree(root / "cand", ignore_errors=True)
            make_run(root / "base", a.cases, a.models, a.samples, 0.0, seed=1)
            make_run(root / "cand", a.cases, a.models, a.samples, 0.02, seed=2)
        base, cand = root / "base" / "results.jsonl", root / "cand" / "results.jsonl"
        rows = count_rows(base)
        print(
            f"runs of {rows:,} and {count_rows(cand):,} rows ({base.stat().st_size / 1e6:.0f} MB "
            f"and {cand.stat().st_size / 1e6:.0f} MB) ready in {time.perf_counter() - t:.1f}s"
        )

        env = installed_env(root / "pycache", as_is=a.as_is)
        py = [sys.executable, "-m", "harness"]
        if a.only != "compare":
            _measure_report(root, rows, py, env, a.pairs)
        if a.only != "report":
            _measure_compare(root, py, env, a.pairs)
    finally:
        if a.keep is None:
            shutil.rmtree(root, ignore_errors=True)


def _measure_report(root: Path, rows: int, py: list[str], env: dict[str, str], pairs: int) -> None:
    paired(
        f"planeval report, {rows:,} rows",
        [*py, "report", str(root / "base")],
        loads_loop(root / "base" / "results.jsonl"),
        target=2.0,
        pairs=pairs,
        env=env,
    ).print()
    html = (root / "base" / "report.html").stat().st_size
    side = [f for d in (root / "base").glob("report-data-*") for f in d.iterdir()]
    side_mb = sum(f.stat().st_size for f in side) / 1e6
    md = len((root / "base" / "summary.md").read_text(encoding="utf-8"))
    print(
        f"report.html: {html / 1e6:.2f} MB (target < 10 MB; side folder {side_mb:.2f} MB, "
        f"{len(side)} files); summary.md: {md:,} characters (limit 60,000): "
        + ("met" if html < 10_000_000 and md < 60_000 else "MISSED")
    )


def _measure_compare(root: Path, py: list[str], env: dict[str, str], pairs: int) -> None:
    page = root / "compare.html"
    paired(
        "planeval compare --format html (floor: both runs)",
        [*py, "compare", str(root / "base"), str(root / "cand"), "--format", "html"],
        loads_loop(root / "base" / "results.jsonl", root / "cand" / "results.jsonl"),
        target=2.0,
        pairs=pairs,
        env=env,
        stdout=page,
    ).print()
    size = page.stat().st_size
    print(
        f"compare page: {size / 1e6:.2f} MB (target < 10 MB): "
        + ("met" if size < 1e7 else "MISSED")
    )


if __name__ == "__main__":
    main()
