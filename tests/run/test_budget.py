"""Budgets on live runs: --max-cost and --max-calls stop calls at the right one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.cost import Price, call_cost
from harness.run import Budget, run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

KEY = {"OPENAI_API_KEY": "sk-test"}
CASES = 12


def _suite(tmp_path: Path, server: FakePlannerServer) -> Path:
    (tmp_path / "prices.yaml").parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "prices.yaml").write_text(
        "models:\n  - {provider: openai, model: gpt-fake, input: 1000, output: 4000,"
        " source: handwritten}\n",
        encoding="utf-8",
    )
    # goals of equal length: every call uses the same number of tokens
    return make_project(
        tmp_path,
        models=[
            {
                "id": "gpt",
                "provider": "openai",
                "model": "gpt-fake",
                "base_url": server.openai_base_url,
            }
        ],
        cases=[{"id": f"c{i:02d}", "goal": f"Refund order {i:02d}"} for i in range(CASES)],
        extra={"prices": "../prices.yaml"},
    )


def _per_call(tmp_path: Path, server: FakePlannerServer) -> float:
    """What one call costs (measured on a throw-away run without a budget)."""
    suite = load_suite(_suite(tmp_path / "probe", server))
    run = run_suite(suite, record_mode="all", env=KEY, models=["gpt"])
    costs = {call_cost(r.tokens, Price(1000, 4000)) for r in run.rows}
    assert len(costs) == 1
    server.reset()
    return costs.pop() or 0.0


class TestMaxCost:
    @pytest.mark.parametrize("concurrency", [1, 8])
    def test_stops_before_the_call_that_would_exceed(
        self, tmp_path: Path, server: FakePlannerServer, concurrency: int
    ) -> None:
        """A budget of 3.5 calls makes exactly 3 calls; the rest are missing with the reason."""
        per_call = _per_call(tmp_path, server)
        suite = load_suite(_suite(tmp_path / "run", server))
        run = run_suite(
            suite,
            record_mode="all",
            env=KEY,
            concurrency=concurrency,
            budget=Budget(max_cost=3.5 * per_call),
        )
        called = [r for r in run.rows if r.status == "pass"]
        assert len(server.requests) == len(called)
        # the first call is estimated without history; later ones from the calls before
        assert len(called) <= 3 + (concurrency - 1)
        assert len(called) * per_call <= 3.5 * per_call + (concurrency - 1) * per_call
        if concurrency == 1:
            assert len(called) == 3
        stopped = run.manifest.budget and run.manifest.budget["stopped"]
        assert stopped and "--max-cost budget" in stopped
        missing = [r for r in run.rows if r.status == "missing"]
        assert len(missing) == CASES - len(called)
        assert all(r.detail == stopped for r in missing)

    def test_continuing_pays_only_for_the_gaps(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """The printed command (new_episodes) records only the samples the budget stopped."""
        per_call = _per_call(tmp_path, server)
        path = _suite(tmp_path / "run", server)
        result = CliRunner().invoke(
            app,
            [
                "run",
                str(path),
                "--live",
                "--concurrency",
                "1",
                "--max-cost",
                f"{2.5 * per_call:.10f}",
            ],
            env=KEY,
        )
        assert result.exit_code == 3
        err = " ".join(result.stderr.split())
        assert "budget:" in err and f"{CASES - 2} sample(s) were not called" in err
        assert "--record-mode new_episodes" in err
        server.reset()
        again = CliRunner().invoke(
            app, ["run", str(path), "--record-mode", "new_episodes"], env=KEY
        )
        assert again.exit_code == 0, again.stderr
        assert len(server.requests) == CASES - 2

    def test_needs_a_price(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """--max-cost with a model without a price is refused before any call (exit 2)."""
        path = _suite(tmp_path, server)
        (tmp_path / "prices.yaml").write_text("models: []\n", encoding="utf-8")
        result = CliRunner().invoke(app, ["run", str(path), "--live", "--max-cost", "1"], env=KEY)
        assert result.exit_code == 2 and "needs a price" in result.stderr
        assert not server.requests


class TestMaxCalls:
    @pytest.mark.parametrize("concurrency", [1, 8])
    def test_exact_number_of_calls(
        self, tmp_path: Path, server: FakePlannerServer, concurrency: int
    ) -> None:
        """--max-calls 5 makes exactly five calls at any concurrency."""
        suite = load_suite(_suite(tmp_path, server))
        run = run_suite(
            suite, record_mode="all", env=KEY, concurrency=concurrency, budget=Budget(max_calls=5)
        )
        assert len(server.requests) == 5
        assert sum(r.status == "pass" for r in run.rows) == 5
        data = json.loads((run.run_dir / "run.json").read_text())
        assert data["budget"]["max_calls"] == 5 and "--max-calls" in data["budget"]["stopped"]
