"""Merge speed: 10 shard runs of 20,000 rows each joined by ``merge_runs``.

The floor is reading the same 200,000 lines with ``json.loads`` (what any merge must at least
do to know which row is which). Target: merge within 3x of that floor.
Usage: ``python benchmarks/bench_merge.py [--shards 10] [--rows 20000]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from harness.run import ResultRow, RunManifest, merge_runs


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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shards", type=int, default=10)
    parser.add_argument("--rows", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dirs = write_shards(root, args.shards, args.rows)
        size = sum((d / "results.jsonl").stat().st_size for d in dirs)
        floors, merges = [], []
        for k in range(3):
            started = time.perf_counter()
            for d in dirs:
                with (d / "results.jsonl").open(encoding="utf-8") as handle:
                    for line in handle:
                        json.loads(line)
            floors.append(time.perf_counter() - started)
            started = time.perf_counter()
            merged = merge_runs(dirs, root / f"merged-{k}")
            merges.append(time.perf_counter() - started)
            assert merged.rows == args.shards * args.rows
    floor, best = min(floors), min(merges)
    print(f"{args.shards} shards x {args.rows:,} rows ({size / 1e6:.0f} MB)")
    print("json.loads floor: " + ", ".join(f"{t:.2f}s" for t in floors))
    print("merge_runs:       " + ", ".join(f"{t:.2f}s" for t in merges))
    print(f"ratio: {best / floor:.2f}x (best of 3 each; target <= 3x)")


if __name__ == "__main__":
    main()
