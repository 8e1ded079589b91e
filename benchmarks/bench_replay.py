"""Replay speed: ``planeval run`` over 1,000 recorded cases vs a bare loop over the same files.

Generates a project with one OpenAI-provider model and 1,000 cases, each with a vcrpy cassette
(written by vcrpy's own serializer, in the format a live run records) and its provenance. Then:

- floor: load each cassette's YAML, take the response body, and parse its plan with
  ``harness.plan.load_plan``, in a bare loop (in process, no checks, no output);
- run (in process): ``harness.run.run_suite`` on the suite (replay, checks, results.jsonl);
- run (end to end): the ``planeval run`` command in a fresh process.

The end-to-end command runs as an installed package does, with its bytecode cached
(``benchmarks/_installed_env.py``; ``--as-is`` keeps this environment unchanged).

Target: the end-to-end run within 3x of the floor.
Usage: ``python benchmarks/bench_replay.py [--as-is]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from _installed_env import installed_env

from harness import __version__
from harness.plan import load_plan
from harness.providers import OpenAIProvider
from harness.recording import Provenance, open_cassette, sample_paths, write_meta
from harness.run import run_suite
from harness.suite import load_suite
from harness.testing import make_project

CASES = 1000


def build(root: Path) -> Path:
    """Write the suite and one cassette + meta per case."""
    path = make_project(
        root,
        suite="bench",
        models=[
            {
                "id": "gpt",
                "provider": "openai",
                "model": "gpt-bench",
                "params": {"temperature": 0.2},
            }
        ],
        cases=[{"id": f"case-{i:04d}", "goal": f"Handle request number {i}"} for i in range(CASES)],
    )
    suite = load_suite(path)
    model = suite.models[0]
    provider = OpenAIProvider()
    from vcr.request import Request

    for i, case in enumerate(suite.cases):
        tasks = [
            {
                "id": f"t{j}",
                "description": f"Step {j} of request {i}",
                "depends_on": [f"t{j - 1}"] if j else [],
                "needs": [{"name": "prior", "task": f"t{j - 1}"}] if j else [],
            }
            for j in range(3 + i % 5)
        ]
        answer = json.dumps({"goal": case.goal, "tasks": tasks})
        body = {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "model": "gpt-bench",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": answer},
                }
            ],
            "usage": {"prompt_tokens": 300, "completion_tokens": 120},
        }
        paths = sample_paths(root / "plan_fixtures", "bench", "gpt", case.id, 0)
        cassette = open_cassette(paths.cassette, record_mode="all")
        request_body = json.dumps(provider.request_body(model, suite.render_prompt(case)))
        cassette.append(
            Request(
                "POST",
                provider.url(model),
                request_body.encode(),
                {"content-type": "application/json", "authorization": "Bearer sk-x"},
            ),
            {
                "status": {"code": 200, "message": "OK"},
                "headers": {"content-type": ["application/json"]},
                "body": {"string": json.dumps(body).encode()},
            },
        )
        cassette._save()
        write_meta(
            paths.meta,
            Provenance(
                source="handwritten",
                model="gpt-bench",
                prompt_hash=suite.prompt_hash,
                recorded_at="2026-01-01T00:00:00+00:00",
                harness_version=__version__,
                params={"temperature": 0.2},
            ),
            latency_ms=800.0,
        )
    return path


def floor(root: Path) -> tuple[float, float]:
    """Load every cassette and parse its plan in a bare loop: (wall, cpu) seconds."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    files = sorted((root / "plan_fixtures").rglob("sample-0.yaml"))
    wall, cpu = time.perf_counter(), time.process_time()
    for path in files:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
        body = json.loads(data["interactions"][0]["response"]["body"]["string"])
        load_plan(body["choices"][0]["message"]["content"])
    return time.perf_counter() - wall, time.process_time() - cpu


def in_process(path: Path, out: Path) -> tuple[float, float]:
    """``run_suite`` on the suite: (wall, cpu) seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = run_suite(load_suite(path), out=out)
    elapsed = time.perf_counter() - wall, time.process_time() - cpu
    assert result.manifest.counts["pass"] == CASES, result.manifest.counts
    return elapsed


def end_to_end(path: Path, out: Path, env: dict[str, str]) -> tuple[float, float]:
    """``planeval run SUITE`` in a fresh process: (wall, cpu of the child) seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="run the end-to-end command in this environment unchanged (see _installed_env)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        path = build(root)
        print(f"generated {CASES} cases with cassettes in {time.perf_counter() - t0:.1f}s")
        floor(root)  # warm the page cache and the imports
        bare = min(floor(root) for _ in range(3))
        inproc = min(in_process(path, root / "runs" / f"in-{k}") for k in range(3))
        env = installed_env(root / "pycache", as_is=args.as_is)
        end_to_end(path, root / "runs" / "cli-warm", env)  # writes the bytecode cache
        cli = min(end_to_end(path, root / "runs" / f"cli-{k}", env) for k in range(3))
        shutil.rmtree(root / "runs")
    print(f"{'':34}{'wall':>8}{'cpu':>8}{'ratio (wall / cpu)':>22}")
    print(f"{'floor: load + parse, bare loop':34}{bare[0]:8.3f}{bare[1]:8.3f}")
    for label, (wall, cpu) in (
        ("run_suite, in process", inproc),
        ("planeval run, end to end", cli),
    ):
        print(f"{label:34}{wall:8.3f}{cpu:8.3f}{wall / bare[0]:12.2f}x{cpu / bare[1]:9.2f}x")
    print("target: end to end within 3x of the floor")


if __name__ == "__main__":
    main()
