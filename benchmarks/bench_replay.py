"""Replay speed: ``planeval run`` over 1,000 recorded cases vs a bare loop over the same files.

Generates a project with one OpenAI-provider model and 1,000 cases, each with a vcrpy cassette
(written by vcrpy's own serializer, in the format a live run records) and its provenance. Then:

- floor: a fresh process that loads each cassette's YAML, takes the response body and parses
  its plan with ``harness.plan.load_plan``, in a bare loop (no checks, no output);
- the ``planeval run`` command in a fresh process (replay, checks, results.jsonl, report).

Both run as an installed package does, with bytecode cached (``benchmarks/_installed_env.py``;
``--as-is`` keeps this environment unchanged), in alternating pairs (``benchmarks/_paired.py``).

Target: ``planeval run`` within 3x of the floor's CPU.
Usage: ``python benchmarks/bench_replay.py [--pairs P] [--as-is]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _installed_env import installed_env
from _paired import add_pairs_option, paired

from harness import __version__
from harness.providers import OpenAIProvider
from harness.recording import Provenance, open_cassette, sample_paths, write_meta
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


FLOOR = """\
import json, sys
from pathlib import Path
import yaml
from harness.plan import load_plan
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
for path in sorted(Path(sys.argv[1]).rglob("sample-0.yaml")):
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    body = json.loads(data["interactions"][0]["response"]["body"]["string"])
    load_plan(body["choices"][0]["message"]["content"])
"""
"""The floor: load every cassette and parse its plan in a bare loop, in a fresh process."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="run the end-to-end command in this environment unchanged (see _installed_env)",
    )
    add_pairs_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        path = build(root)
        print(f"generated {CASES} cases with cassettes in {time.perf_counter() - t0:.1f}s")
        env = installed_env(root / "pycache", as_is=args.as_is)
        out = root / "runs" / "cli"
        result = paired(
            f"planeval run, {CASES:,} replayed cases",
            [sys.executable, "-m", "harness", "run", str(path), "--out", str(out)],
            [sys.executable, "-c", FLOOR, str(root / "plan_fixtures")],
            target=3.0,
            pairs=args.pairs,
            env=env,
            before=lambda: shutil.rmtree(out, ignore_errors=True),
        )
        counts = json.loads((out / "run.json").read_text(encoding="utf-8"))["counts"]
        assert counts.get("pass") == CASES, counts
    result.print()


if __name__ == "__main__":
    main()
