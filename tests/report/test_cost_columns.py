"""Tokens and cost per model in report.html, `report --format json` and `compare`, through
the column registry; an unknown cost is shown as unknown, never as 0."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.cost import Price, summarize_usage
from harness.report import load_run
from harness.report._columns import model_columns
from harness.testing import FakePlannerServer, make_project
from tests.cost._models import TWO_CASES, priced_unpriced_and_command

KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}
runner = CliRunner()


def _project(tmp_path: Path, server: FakePlannerServer) -> Path:
    """gpt has a price (handwritten), claude none, script is a command (no usage)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "prices.yaml").write_text(
        "format: planeval-prices/1\ntaken: '2026-12-01'\nmodels:\n"
        "  - {provider: openai, model: gpt-fake, input: 2.0, cached_input: 1.0, output: 8.0,"
        " source: handwritten}\n",
        encoding="utf-8",
    )
    return make_project(
        tmp_path,
        models=priced_unpriced_and_command(server),
        cases=TWO_CASES,
        extra={"prices": "../prices.yaml"},
    )


@pytest.fixture
def live_runs(tmp_path: Path, server: FakePlannerServer) -> tuple[Path, Path]:
    """Two live runs of the project against the fake server, with cache hits reported."""
    server.usage(cached_tokens=3)
    path = _project(tmp_path, server)
    for name in ("a", "b"):
        result = runner.invoke(
            app, ["run", str(path), "--live", "--out", str(tmp_path / name)], env=KEYS
        )
        assert result.exit_code == 0, result.stderr
    return tmp_path / "a", tmp_path / "b"


def _usage(run: Path) -> dict[str, dict]:
    loaded = load_run(run)
    from harness.cost import run_prices

    per_model, total = summarize_usage(loaded.rows, run_prices(loaded.manifest))
    return {**{str(s.model): s.to_dict() for s in per_model}, "total": total.to_dict()}


def test_report_json_has_tokens_and_cost_per_model_and_run(live_runs: tuple[Path, Path]) -> None:
    """Per model: tokens, calls with usage, cost and cost per pass (null when unknown or no
    usage); per run: the usage total. They agree with the per-call costs."""
    run, _ = live_runs
    result = runner.invoke(app, ["report", str(run), "--format", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    models = {m["model"]: m for m in data["models"]}
    expected = _usage(run)
    gpt, claude, script = models["gpt"], models["claude"], models["script"]
    assert gpt["cost_usd"] == pytest.approx(expected["gpt"]["cost_usd"]) and gpt["cost_usd"] > 0
    assert gpt["cost_per_pass_usd"] == pytest.approx(expected["gpt"]["cost_per_pass_usd"])
    assert gpt["tokens_in"] == expected["gpt"]["tokens"]["input"] and gpt["usage_calls"] == 2
    assert claude["usage_calls"] == 2 and claude["tokens_out"] > 0
    assert claude["cost_usd"] is None and claude["cost_per_pass_usd"] is None  # no price
    assert script["usage_calls"] == 0 and script["tokens_in"] is None
    assert script["cost_usd"] is None
    assert data["usage"]["cost_usd"] is None  # claude's cost is unknown, so the run's is
    assert data["usage"]["tokens"]["input"] == sum(
        expected[m]["tokens"]["input"] for m in ("gpt", "claude")
    )


def test_report_html_shows_cost_and_unknown(live_runs: tuple[Path, Path]) -> None:
    """The model table: a dollar figure for gpt, `unknown` for claude, `—` for the command
    model; never $0 for either; the line under it names the unpriced model."""
    run, _ = live_runs
    assert runner.invoke(app, ["report", str(run)]).exit_code == 0
    html = (run / "report.html").read_text(encoding="utf-8")
    assert "<th>cost total / per pass</th>" in html
    rows = {
        m: re.search(rf"<tr><td><code>{m}</code></td>(.*?)</tr>", html).group(1)
        for m in ("gpt", "claude", "script")
    }
    assert re.search(r"\$0\.\d+ / \$0\.\d+</td>$", rows["gpt"])
    assert rows["claude"].endswith("unknown / unknown</td>")
    assert rows["script"].endswith('— / —</td><td class="num">— / —</td>')  # tokens, cost
    assert "$" not in rows["script"] and ">0 / 0<" not in rows["script"]
    usage = re.search(r'<p class="meta" id="usage">(.*?)</p>', html).group(1)
    assert "cost unknown" in usage and "no price for claude" in usage
    assert "2026-12-01, handwritten" in usage


def test_compare_shows_cost_of_both_sides(live_runs: tuple[Path, Path]) -> None:
    """compare's figures (JSON, markdown and HTML) carry the cost on the compared cases."""
    a, b = live_runs
    data = json.loads(runner.invoke(app, ["compare", str(a), str(b), "--format", "json"]).stdout)
    for side in ("base", "cand"):
        figures = data["figures"][side]
        assert figures["gpt"]["cost_usd"] > 0 and figures["claude"]["cost_usd"] is None
    markdown = runner.invoke(app, ["compare", str(a), str(b), "--format", "markdown"]).stdout
    claude = next(x for x in markdown.splitlines() if x.startswith("| `claude`") and "->" in x)
    assert "unknown / unknown -> unknown / unknown" in claude
    html = runner.invoke(app, ["compare", str(a), str(b), "--format", "html"]).stdout
    assert "cost total / per pass" in html


class TestUnknownIsNeverZero:
    """The registry's cost on hand-made rows (provenance: handwritten)."""

    def _frame(self, **tokens: float) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "model": ["m", "m"],
                "passed": [True, False],
                "latency_ms": [1.0, 2.0],
                "tokens_in": [tokens.get("input", 100.0)] * 2,
                "tokens_out": [tokens.get("output", 10.0)] * 2,
                "tokens_cached": [tokens.get("cached", math.nan)] * 2,
                "tokens_cache_write": [math.nan] * 2,
            }
        )

    def test_cached_tokens_without_a_cached_rate_make_the_cost_unknown(self) -> None:
        """As for a single call: cache hits with no cached-input price are not guessed."""
        cols = model_columns(self._frame(cached=50.0), {"m": Price(2.0, 8.0)})
        assert math.isnan(cols.loc["m", "cost_usd"])
        priced = model_columns(self._frame(cached=50.0), {"m": Price(2.0, 8.0, 1.0)})
        # 2 calls x (50 uncached x $2 + 50 cached x $1 + 10 output x $8) per million
        assert priced.loc["m", "cost_usd"] == pytest.approx(2 * (100 + 50 + 80) / 1e6)
        assert priced.loc["m", "cost_per_pass_usd"] == pytest.approx(2 * 230 / 1e6)

    def test_no_pass_is_said(self) -> None:
        """A priced model none of whose plans passed has a cost and `no pass` per pass."""
        from harness.report._columns import MODEL_COLUMNS

        frame = self._frame().assign(passed=False)
        row = model_columns(frame, {"m": Price(2.0, 8.0)}).loc["m"]
        cost = next(c for c in MODEL_COLUMNS if c.header == "cost total / per pass")
        assert cost.render(row) == "$0.000560 / no pass"
