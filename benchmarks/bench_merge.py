"""Merge speed: 10 shard runs of 20,000 rows each joined by ``merge_runs``.

The floor is reading the same 200,000 lines with ``json.loads`` (what any merge must at least
do to know which row is which). Target: merge within 3x of that floor.
Usage: ``python benchmarks/bench_merge.py [--shards 10] [--rows 20000]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from _installed_env import installed_env
from _paired import add_pairs_option, loads_loop, paired

from harness.run import ResultRow, RunManifest

TARGET = 3.0


def _plan(i: int) -> dict[str, object]:
    tasks = [
        {
            "id": f"t{k}",
            "description": f"Step {k} of case {i}",
            "capabilities": ["email_read"],
            "depends_on": [f"t{k - 1}"] if k else [],
            "needs": [{"name": "prior", "task": f"t{k - 1}"}] if k else [],
        }
        for k in range(5)
    ]
    return {"plan_id": f"p{i}", "goal": f"Goal {i}", "tasks": tasks}


def write_shards(root: Path, shards: int, rows: int) -> list[Path]:
    """``shards`` shard runs of one suite; row i of the whole run goes to shard i % shards."""
    total = shards * rows
    cases = [f"case-{i:06d}" for i in range(total // 2)]
    models = [
        {"id": "a", "provider": "dataset", "model": None, "params": {}},
        {"id": "b", "provider": "dataset", "model": None, "params": {}},
    ]
    dirs = []
    for s in range(shards):
        run = root / f"shard-{s + 1}"
        run.mkdir()
        with (run / "results.jsonl").open("w", encoding="utf-8") as out:
            for j in range(s, total, shards):
                model, case = models[j // len(cases)]["id"], cases[j % len(cases)]
                row = ResultRow(
                    suite="bench",
                    case=case,
                    model=str(model),
                    sample=0,
                    status="pass",
                    checks={"schema": "pass", "acyclic": "pass", "needs_resolve": "pass"},
                    task_count=5,
                    latency_ms=812.5,
                    tokens={"input": 900, "output": 240},
                    tags=["bench"],
                    recording=f"plan_fixtures/bench/{model}/{case}/sample-0.json",
                    plan=_plan(j),
                )
                out.write(json.dumps(row.to_dict()) + "\n")
        manifest = RunManifest(
            run_id=run.name,
            suite="bench",
            suite_path="evals/bench.yaml",
            prompt_hash="sha256:x",
            models=models,
            samples=1,
            record_mode="none",
            harness_version="bench",
            git_commit=None,
            started_at="2026-12-01T00:00:00+00:00",
            finished_at="2026-12-01T00:01:00+00:00",
            counts={"pass": rows},
            shard={"index": s + 1, "count": shards, "items": total},
            case_ids=cases,
        )
        (run / "run.json").write_text(json.dumps(manifest.to_dict()), encoding="utf-8")
        dirs.append(run)
    return dirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, default=10)
    parser.add_argument("--rows", type=int, default=20_000)
    add_pairs_option(parser)
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dirs = write_shards(root, args.shards, args.rows)
        results = [d / "results.jsonl" for d in dirs]
        size = sum(f.stat().st_size for f in results)
        print(f"{args.shards} shards x {args.rows:,} rows ({size / 1e6:.0f} MB)", flush=True)
        merged = root / "merged"
        command = [sys.executable, "-m", "harness", "merge", *map(str, dirs), "--out", str(merged)]
        result = paired(
            "planeval merge vs the json.loads floor",
            command,
            loads_loop(*results),
            target=TARGET,
            pairs=args.pairs,
            env=installed_env(root / "pycache", as_is=args.as_is),
            before=lambda: shutil.rmtree(merged, ignore_errors=True),
        )
        lines = sum(1 for _ in (merged / "results.jsonl").open(encoding="utf-8"))
        if lines != args.shards * args.rows:
            raise SystemExit(
                f"the merged run holds {lines:,} rows, not {args.shards * args.rows:,}"
            )
    result.print()


if __name__ == "__main__":
    main()
