"""Live speed, as whole processes: 200 cases against the fake server (200 ms per call) at
``--concurrency 16``, and a rate-limited sweep: 1,000 calls against a server that allows R
requests per second.

The fake server runs in its own process (``python -m harness.testing``), as a real API would.
Each side is a whole process as a user runs it, start-up and the SDK import included, in
alternating pairs (``benchmarks/_paired.py``); the verdicts are on wall time (the calls wait on
the server: the wall is what a user waits, and the CPU is printed beside it).

1. **Concurrency.** ``planeval run evals/live.yaml --live --concurrency 16`` (200 cases, a
   vcrpy cassette recorded per case, as a real live run does) against a fresh interpreter
   running a plain asyncio script with the official SDK (``AsyncOpenAI``, ``asyncio.gather``
   under a semaphore of 16, the same 200 requests, nothing recorded or checked). Targets:
   within 1.2x of that script (wall, paired), and within 1.3x of the ideal wall time, 200 / 16
   x 0.2 s = 2.5 s (every call waiting on the server, none on us), over every measured run.
2. **Rate-limited** (``--scenario rate-limited``). Each side gets its own server (``--rate R``:
   429 beyond R requests per second), so each side's 429s are its own. ``planeval run`` of a
   suite with ``rate_limits: {openai: {requests_per_minute: 60 R}}`` against the same asyncio
   script pacing its calls at R per second. Targets: 1,000 calls within 1.15x of 1,000 / R
   seconds, over every measured run, and no 429 at all (the server's ``/_stats``); the paired
   ratio to the paced script is reported.

Usage: ``python benchmarks/bench_live.py [--scenario concurrency|rate-limited|all] [--calls N]
[--rate R] [--pairs P] [--as-is]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _installed_env import installed_env
from _paired import Paired, add_pairs_option, paired, verdict

CASES = 200
CONCURRENCY = 16
LATENCY = 0.2

ASYNCIO_SDK = """\
import asyncio, sys
import openai

url, calls, concurrency, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])


async def sweep():
    client = openai.AsyncOpenAI(api_key="sk-bench", base_url=url + "/v1", max_retries=0)
    gate = asyncio.Semaphore(concurrency)
    loop = asyncio.get_running_loop()
    began = loop.time()

    async def call(i):
        if rate:  # paced: call i starts no earlier than i / rate seconds in
            await asyncio.sleep(max(0.0, began + i / rate - loop.time()))
        async with gate:
            body = {
                "model": "gpt-bench",
                "messages": [{"role": "user", "content": f"Plan it.\\nHandle request {i}"}],
            }
            reply = await client.chat.completions.create(**body)
            return reply.choices[0].message.content

    await asyncio.gather(*(call(i) for i in range(calls)))
    await client.close()


asyncio.run(sweep())
"""
"""The floor: a plain asyncio script with the official SDK (no recording, no checks)."""


@contextmanager
def fake_server(rate: float | None = None, latency: float = LATENCY) -> Iterator[str]:
    """The fake planner server in its own process; its URL."""
    command = [sys.executable, "-m", "harness.testing", "--latency", str(latency)]
    if rate is not None:
        command += ["--rate", str(rate)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    try:
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(timeout=10)


def live_project(root: Path, suite: str, url: str, calls: int, extra: dict[str, object]) -> Path:
    """A project whose suite has ``calls`` cases and one OpenAI model at ``url``."""
    from harness.testing import make_project

    model = {"id": "gpt", "provider": "openai", "model": "gpt-bench", "base_url": url + "/v1"}
    return Path(
        make_project(
            root,
            suite=suite,
            models=[model],
            cases=[{"id": f"case-{i:04d}", "goal": f"Handle request {i}"} for i in range(calls)],
            extra=extra,
        )
    )


def live_run(
    name: str,
    suite: Path,
    root: Path,
    floor: list[str],
    pairs: int,
    env: dict[str, str],
    target: float | None,
) -> Paired:
    """``planeval run SUITE --live`` against ``floor``, paired on wall."""
    out = root / "out"
    command = [sys.executable, "-m", "harness", "run", str(suite), "--live"]
    command += ["--concurrency", str(CONCURRENCY), "--out", str(out)]
    return paired(
        name,
        command,
        floor,
        target=target,
        pairs=pairs,
        env=env,
        cwd=root,
        before=lambda: shutil.rmtree(out, ignore_errors=True),
        on="wall",
    )


def within_ideal(result: Paired, ideal: float, target: float) -> str:
    """The command's walls against the ideal: the range and the verdict."""
    ratios = [c.wall / ideal for c in result.command]
    return (
        f"  command wall / ideal ({ideal:.2f} s): {min(ratios):.2f}-{max(ratios):.2f}x over "
        f"{len(ratios)} runs; target <= {target:g}x: {verdict(min(ratios), max(ratios), target)}"
    )


def concurrency(pairs: int, env: dict[str, str]) -> None:
    ideal = CASES / CONCURRENCY * LATENCY
    with tempfile.TemporaryDirectory(prefix="bench-live-") as folder, fake_server() as url:
        root = Path(folder)
        suite = live_project(root, "live", url, CASES, {})
        floor = [sys.executable, "-c", ASYNCIO_SDK, url, str(CASES), str(CONCURRENCY), "0"]
        result = live_run(
            f"{CASES} cases, concurrency {CONCURRENCY}, {LATENCY * 1000:.0f} ms per call "
            "(planeval run --live / asyncio + AsyncOpenAI)",
            suite,
            root,
            floor,
            pairs,
            env,
            target=1.2,
        )
        recorded = len(list((root / "plan_fixtures").rglob("sample-0.yaml")))
    result.print()
    print(within_ideal(result, ideal, 1.3))
    print(f"  {recorded} cassettes recorded", flush=True)


def rejected(url: str) -> int:
    with urllib.request.urlopen(url + "/_stats") as answer:
        return int(json.loads(answer.read())["rejected"])


def rate_limited(calls: int, rate: float, pairs: int, env: dict[str, str]) -> None:
    latency = 0.05
    limits: dict[str, object] = {"rate_limits": {"openai": {"requests_per_minute": rate * 60}}}
    with (
        tempfile.TemporaryDirectory(prefix="bench-live-") as folder,
        fake_server(rate, latency) as ours,
        fake_server(rate, latency) as theirs,
    ):
        root = Path(folder)
        suite = live_project(root, "limited", ours, calls, limits)
        floor = [sys.executable, "-c", ASYNCIO_SDK, theirs, str(calls), str(CONCURRENCY)]
        result = live_run(
            f"rate-limited: {calls:,} calls, server limit {rate:g}/s, {latency * 1000:.0f} ms "
            f"per call (planeval run --live / asyncio paced at {rate:g}/s)",
            suite,
            root,
            [*floor, str(rate)],
            pairs,
            env,
            target=None,
        )
        ours_429, theirs_429 = rejected(ours), rejected(theirs)
    result.print()
    print(within_ideal(result, calls / rate, 1.15))
    runs = len(result.command) + 1  # with the unmeasured warm-up
    print(
        f"  429s sent to planeval over its {runs} runs: {ours_429} (target 0); to the paced "
        f"script: {theirs_429}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=["concurrency", "rate-limited", "all"], default="all")
    parser.add_argument("--calls", type=int, default=1000, help="rate-limited: calls")
    parser.add_argument("--rate", type=float, default=50.0, help="rate-limited: requests/s")
    add_pairs_option(parser)
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-live-cache-") as cache:
        env = installed_env(Path(cache), as_is=args.as_is)
        env["OPENAI_API_KEY"] = "sk-bench"
        if args.scenario in ("concurrency", "all"):
            concurrency(args.pairs, env)
        if args.scenario in ("rate-limited", "all"):
            rate_limited(args.calls, args.rate, args.pairs, env)


if __name__ == "__main__":
    main()
