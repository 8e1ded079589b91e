"""Synthetic run folders for tests (suite ``synthetic``; provenance: handwritten in code).

``make_run(dir, outcomes)`` writes run.json + results.jsonl from a compact description:
``outcomes[(model, case)]`` is a string of one status letter per sample
(``p`` pass, ``w`` pass with an ``isolated_task`` warning, ``f`` fail, ``u`` unparseable,
``m`` missing, ``s`` stale, ``e`` error). Each run also gets a prompts.json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.run import ResultRow, RunManifest

LETTERS = {
    "p": "pass",
    "w": "pass",
    "f": "fail",
    "u": "unparseable",
    "m": "missing",
    "s": "stale",
    "e": "error",
}

PLAN = {
    "plan_id": "synthetic",
    "goal": "a synthetic goal",
    "tasks": [
        {"id": "fetch", "description": "Fetch", "capabilities": ["read"], "depends_on": []},
        {
            "id": "use",
            "description": "Use it",
            "capabilities": ["write"],
            "depends_on": ["fetch"],
            "needs": [{"name": "x", "task": "fetch"}],
        },
    ],
}


def row(suite: str, model: str, case: str, sample: int, letter: str, **extra: Any) -> ResultRow:
    status = LETTERS[letter]
    parsed = status in ("pass", "fail")
    checks = {}
    violations: list[dict[str, Any]] = []
    if parsed:
        checks = {
            "schema": "pass",
            "acyclic": "pass",
            "deps_resolve": "pass",
            "isolated_task": "pass",
            "known_capabilities": "skip",
        }
        if letter == "w":
            checks["isolated_task"] = "warn"
            violations = [
                {
                    "check": "isolated_task",
                    "severity": "warning",
                    "task": "fetch",
                    "path": "/tasks/0",
                    "message": "task fetch is isolated",
                }
            ]
        if status == "fail":
            checks["acyclic"] = "fail"
            violations = [
                {
                    "check": "acyclic",
                    "severity": "error",
                    "task": "use",
                    "path": "/tasks/1/depends_on/0",
                    "message": "cycle use -> fetch -> use",
                }
            ]
    return ResultRow(
        suite=suite,
        case=case,
        model=model,
        sample=sample,
        status=status,  # type: ignore[arg-type]
        checks=checks,
        violations=violations,
        task_count=2 if parsed else None,
        latency_ms=100.0 + sample if status != "missing" else None,
        tokens={"input": 10, "output": 5} if parsed else None,
        tags=extra.get("tags", ["t1"]),
        detail=None if parsed or status == "pass" else f"{status}: synthetic detail",
        recording=f"plan_fixtures/{suite}/{model}/{case}/sample-{sample}.json",
        plan=PLAN if parsed else None,
        answer=(
            json.dumps(PLAN)
            if parsed
            else ("Sorry, I cannot plan that." if status == "unparseable" else None)
        ),
    )


def make_run(
    run_dir: Path,
    outcomes: dict[tuple[str, str], str],
    *,
    suite: str = "synthetic",
    torn: bool = False,
    format_version: int = 1,
) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    models = list(dict.fromkeys(m for m, _ in outcomes))
    samples = max(len(v) for v in outcomes.values()) if outcomes else 1
    rows = [
        row(suite, m, c, k, letter)
        for (m, c), letters in outcomes.items()
        for k, letter in enumerate(letters)
    ]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    manifest = RunManifest(
        run_id=run_dir.name,
        suite=suite,
        suite_path=f"evals/{suite}.yaml",
        prompt_hash="sha256:" + "0" * 64,
        models=[{"id": m, "provider": "dataset", "model": m, "params": {}} for m in models],
        samples=samples,
        record_mode="none",
        harness_version="0.1.0",
        git_commit=None,
        started_at="2026-11-29T00:00:00Z",
        finished_at="2026-11-29T00:01:00Z",
        counts=counts,
        format_version=format_version,
    )
    (run_dir / "run.json").write_text(json.dumps(manifest.to_dict()), encoding="utf-8")
    prompts = {c: f"Plan this goal: {c}" for _, c in outcomes}
    (run_dir / "prompts.json").write_text(json.dumps(prompts), encoding="utf-8")
    text = "".join(json.dumps(r.to_dict()) + "\n" for r in rows)
    if torn:
        text += json.dumps(row(suite, models[0], "torn-case", 0, "p").to_dict())[:40]
    (run_dir / "results.jsonl").write_text(text, encoding="utf-8")
    return run_dir
