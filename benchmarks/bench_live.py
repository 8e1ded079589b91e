"""Live speed: 200 cases against the fake server (200 ms per call) at --concurrency 16.

The ideal wall time is 200 / 16 x 0.2 s = 2.5 s (every call waiting on the server, none on
us). The fake server runs in its own process (``python -m harness.testing``), as a real API
would, so its work does not compete with the run for the GIL. The run records a vcrpy
cassette per case, as a real live run does. The SDK import and the first TLS context are paid
before timing (one-off costs of any live run).

Target: within 1.3x of the ideal. Usage: ``python benchmarks/bench_live.py``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness.providers import RetryPolicy
from harness.run import run_suite
from harness.suite import ModelSpec, load_suite
from harness.testing import make_project

CASES = 200
CONCURRENCY = 16
LATENCY = 0.2


def measure(url: str) -> tuple[list[tuple[float, float]], int]:
    """Three live runs of the suite: [(wall, cpu)] and the number of cassettes written."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = make_project(
            root,
            suite="live",
            models=[
                {"id": "gpt", "provider": "openai", "model": "gpt-bench", "base_url": url + "/v1"}
            ],
            cases=[{"id": f"case-{i:03d}", "goal": f"Handle request {i}"} for i in range(CASES)],
        )
        env = {"OPENAI_API_KEY": "sk-bench"}
        suite = load_suite(path)
        # warm-up: one call pays the SDK import and the TLS context
        warm = suite.cases[0].id
        run_suite(
            suite,
            samples=1,
            record_mode="all",
            env=env,
            out=root / "runs" / "warm",
            concurrency=1,
            models=["gpt"],
        )
        (root / "plan_fixtures" / "live" / "gpt" / warm / "sample-0.yaml").unlink()
        walls = []
        for k in range(3):
            wall, cpu = time.perf_counter(), time.process_time()
            result = run_suite(
                suite,
                record_mode="all",
                concurrency=CONCURRENCY,
                env=env,
                out=root / "runs" / f"r{k}",
                retry=RetryPolicy(retries=0),
            )
            walls.append((time.perf_counter() - wall, time.process_time() - cpu))
            assert result.manifest.counts["pass"] == CASES, result.manifest.counts
        recorded = len(list((root / "plan_fixtures").rglob("sample-0.yaml")))
    return walls, recorded


def bare_sdk(url: str) -> float:
    """Reference: the same 200 calls through the bare OpenAI SDK (no recording, no checks)."""
    import openai

    from harness.providers import OpenAIProvider

    model = load_suite_model(url)
    local = threading.local()
    http_module = OpenAIProvider().http_module(model)

    def call(i: int) -> str:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = openai.OpenAI(
                api_key="sk-bench", base_url=url + "/v1", max_retries=0
            )
        body = OpenAIProvider().request_body(model, f"Plan it.\nHandle request {i}")
        return str(client.post("/chat/completions", body=body, cast_to=http_module.Response).text)

    call(0)
    started = time.perf_counter()
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        list(pool.map(call, range(CASES)))
    return time.perf_counter() - started


def load_suite_model(url: str) -> ModelSpec:
    return ModelSpec(id="gpt", provider="openai", model="gpt-bench", base_url=url + "/v1")


def main() -> None:
    ideal = CASES / CONCURRENCY * LATENCY
    server = subprocess.Popen(
        [sys.executable, "-m", "harness.testing", "--latency", str(LATENCY)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    try:
        walls, recorded = measure(url)
        reference = min(bare_sdk(url) for _ in range(2))
    finally:
        server.terminate()
        server.wait(timeout=10)
    best_wall, best_cpu = min(walls)
    print(
        f"{CASES} cases, concurrency {CONCURRENCY}, {LATENCY * 1000:.0f} ms per call, "
        f"{recorded} cassettes recorded"
    )
    print(f"ideal wall time: {ideal:.2f}s")
    runs = ", ".join(f"{w:.2f}s" for w, _ in walls)
    print(f"run_suite live: best {best_wall:.2f}s wall ({best_cpu:.2f}s cpu); runs: {runs}")
    print(f"ratio: {best_wall / ideal:.2f}x  (target <= 1.3x)")
    print(
        f"reference, bare SDK calls (no recording, no checks): {reference:.2f}s "
        f"= {reference / ideal:.2f}x of the ideal"
    )


if __name__ == "__main__":
    main()
