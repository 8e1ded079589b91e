"""What the fake server bills under --max-cost, per scenario (not a speed figure: a money one).

The server bills like a vendor (``usage(whole_request=True)``: the whole request counts as
input, reasoning tokens as output up to ``max_tokens``, and answers the client never received
are billed too). Each scenario runs 40 cases under a budget of 12 calls' real cost and prints
the cap, the server's bill, what planeval counted as spent, the calls billed and the attempts
whose outcome was unknown. The promise: billed <= cap in every row.

Not a speed figure, so not on ``benchmarks/_paired.py``: the figures are money and counts.

Usage: ``python benchmarks/bench_budget.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from harness.run import Budget, Shard, run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

KEY = {"OPENAI_API_KEY": "sk-bench", "ANTHROPIC_API_KEY": "sk-ant-bench"}
PRICES = {"gpt-fake": (1000.0, 4000.0), "claude-fake": (1000.0, 4000.0)}
CASES = 40


def _suite(root: Path, server: FakePlannerServer, name: str, provider: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "prices.yaml").write_text(
        "models:\n"
        "  - {provider: openai, model: gpt-fake, input: 1000, output: 4000, source: handwritten}\n"
        "  - {provider: anthropic, model: claude-fake, input: 1000, output: 4000,"
        " source: handwritten}\n",
        encoding="utf-8",
    )
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    model = {
        "id": "m",
        "provider": provider,
        "model": "gpt-fake" if provider == "openai" else "claude-fake",
        "base_url": base,
        "timeout": 0.4,
        "retries": 1,
        "params": {"max_tokens": 400},
    }
    cases = [{"id": f"c{i:03d}", "goal": f"Refund order {i:03d}"} for i in range(CASES)]
    return make_project(
        root, suite=name, models=[model], cases=cases, extra={"prices": "../prices.yaml"}
    )


def _scenario(
    name: str, *, concurrency: int, faults: bool, batch: bool, suites: int = 1, shards: int = 1
) -> None:
    with FakePlannerServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.usage(reasoning_tokens=150, whole_request=True)
        probe = _suite(Path(tmp) / "probe", server, "probe", "openai")
        run_suite(load_suite(probe), record_mode="all", env=KEY, models=["m"], samples=1)
        per_call = server.billed_usd(PRICES) / CASES
        server.reset()
        server.usage(reasoning_tokens=150, whole_request=True)
        if faults and batch:
            server.batch_api.fail_when.append("order 003")
            server.batch_api.expire_after = 30
        elif faults:
            server.fail("slow", times=3, delay=0.8)
            server.fail("drop", times=2)
            server.fail("server_error", times=3)
        cap = 12 * per_call
        budget = Budget(max_cost=cap, shards=shards)
        root = Path(tmp) / "project"
        paths = [_suite(root, server, f"s{k}", "openai") for k in range(suites)]
        for path in paths:
            run_suite(
                load_suite(path),
                record_mode="all",
                env=KEY,
                concurrency=concurrency,
                budget=budget,
                batch=batch,
                batch_poll=0.01,
                shard=Shard(1, shards) if shards > 1 else None,
                out=Path(tmp) / "runs" / path.stem,
            )
        server.wait_idle()
        billed = server.billed_usd(PRICES)
        share = cap / shards
        ok = "ok" if billed <= share else "OVER"
        print(
            f"{name:<34} cap ${share:8.3f}  billed ${billed:8.3f}  counted "
            f"${budget.ledger.spent:8.3f}  calls {server.billed_calls:3d}  "
            f"unknown {budget.ledger.uncertain}  {ok}"
        )


def main() -> None:
    for concurrency in (1, 4, 16, 64):
        for faults in (False, True):
            label = f"direct c={concurrency} {'faults' if faults else 'clean'}"
            _scenario(label, concurrency=concurrency, faults=faults, batch=False)
    for faults in (False, True):
        _scenario(
            f"batch {'faults' if faults else 'clean'}", concurrency=4, faults=faults, batch=True
        )
    _scenario("folder of 3 suites c=16", concurrency=16, faults=False, batch=False, suites=3)
    _scenario("shard 1/2 (cap = X/2) c=16", concurrency=16, faults=False, batch=False, shards=2)


if __name__ == "__main__":
    main()
