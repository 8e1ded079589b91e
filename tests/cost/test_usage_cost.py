"""Token usage recorded and replayed, and its cost with and without prices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.cost import (
    Price,
    call_cost,
    default_prices,
    load_prices,
    summarize_usage,
    usage_from_body,
    usage_markdown,
    usage_total_line,
)
from harness.report import write_report
from harness.run import run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project
from tests.cost._models import TWO_CASES, priced_unpriced_and_command

KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}


def _prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.yaml"
    tmp_path.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "format: planeval-prices/1\ntaken: '2026-12-01'\nmodels:\n"
        "  - {provider: openai, model: gpt-fake, input: 2.0, cached_input: 1.0, output: 8.0,"
        " source: handwritten}\n"
        "  - {provider: anthropic, model: claude-fake, input: 3.0, cached_input: 0.3,"
        " cache_write_input: 3.75, output: 15.0, source: handwritten}\n",
        encoding="utf-8",
    )
    return path


def _suite(tmp_path: Path, server: FakePlannerServer, *, prices: bool) -> Path:
    extra = {"prices": "../prices.yaml"} if prices else None
    if prices:
        _prices(tmp_path)
    return make_project(
        tmp_path,
        models=priced_unpriced_and_command(server),
        cases=TWO_CASES,
        extra=extra,
    )


class TestUsageFromBody:
    def test_openai_details(self) -> None:
        """Cached and reasoning tokens come from the *_tokens_details objects."""
        body = {
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 40,
                "prompt_tokens_details": {"cached_tokens": 60},
                "completion_tokens_details": {"reasoning_tokens": 25},
            }
        }
        assert usage_from_body(body) == {
            "input": 100,
            "output": 40,
            "cached_input": 60,
            "reasoning": 25,
        }

    def test_anthropic_input_counts_cache_reads_and_writes(self) -> None:
        """Anthropic's input_tokens excludes cache reads and writes; ours includes both."""
        body = {
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "cache_read_input_tokens": 70,
                "cache_creation_input_tokens": 20,
            }
        }
        assert usage_from_body(body) == {
            "input": 100,
            "output": 5,
            "cached_input": 70,
            "cache_write_input": 20,
        }

    def test_no_usage_is_unknown_not_zero(self) -> None:
        """A body without usage gives None."""
        assert usage_from_body({"choices": []}) is None


class TestPrices:
    def test_snapshot_names_match_and_others_do_not(self) -> None:
        """A dated snapshot matches its model; an unlisted sibling model has no price."""
        table = default_prices()
        assert table.lookup("anthropic", "claude-sonnet-4-5-20250929") is not None
        assert table.lookup("anthropic", "claude-sonnet-4-7") is None
        assert table.lookup("openai", "gpt-4o-mini") is None  # not verified: unknown
        assert all(p.source.startswith("https://") and p.taken for p in table.entries.values())

    def test_call_cost(self) -> None:
        """Cached tokens at the cached rate; cached tokens without a cached rate: unknown."""
        price = Price(input=2.0, output=8.0, cached_input=1.0)
        tokens = {"input": 1_000_000, "cached_input": 500_000, "output": 250_000}
        assert call_cost(tokens, price) == pytest.approx(0.5 * 2 + 0.5 * 1 + 0.25 * 8)
        assert call_cost(tokens, Price(input=2.0, output=8.0)) is None
        assert call_cost(None, price) is None

    def test_bad_price_file_is_one_clear_error(self, tmp_path: Path) -> None:
        """A negative rate names the entry."""
        path = tmp_path / "p.yaml"
        path.write_text("models:\n  - {provider: openai, model: x, input: -1, output: 1}\n")
        with pytest.raises(ValueError, match="non-negative") as info:
            load_prices(path)
        assert "/models/0" in str(info.value.location)  # type: ignore[attr-defined]


class TestRecordedAndReplayed:
    def test_usage_on_rows_live_and_replayed(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """Live rows carry the reported usage; replay carries the same; command rows none."""
        server.usage(cached_tokens=3, reasoning_tokens=2)
        suite = load_suite(_suite(tmp_path, server, prices=True))
        live = run_suite(suite, record_mode="all", env=KEYS, concurrency=2)
        by = {(r.model, r.case): r for r in live.rows}
        gpt = by[("gpt", "c1")].tokens
        assert gpt is not None and gpt["cached_input"] == 3 and gpt["reasoning"] == 2
        claude = by[("claude", "c1")].tokens
        assert claude is not None and claude["cached_input"] == 3
        assert by[("script", "c1")].tokens is None
        replay = run_suite(suite)
        assert [r.tokens for r in replay.rows] == [r.tokens for r in live.rows]

    def test_cost_with_and_without_prices(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """With the suite's prices the cost is known; without, it is unknown, never 0."""
        priced = load_suite(_suite(tmp_path / "a", server, prices=True))
        run = run_suite(priced, record_mode="all", env=KEYS)
        assert run.manifest.prices and run.manifest.prices["gpt"]["input"] == 2.0
        assert run.manifest.prices["script"] is None
        per_model, total = summarize_usage(run.rows, {"gpt": Price(2.0, 8.0, 1.0)})
        gpt = next(s for s in per_model if s.model == "gpt")
        expected = sum(
            call_cost(r.tokens, Price(2.0, 8.0, 1.0)) or 0 for r in run.rows if r.model == "gpt"
        )
        assert gpt.known_cost == pytest.approx(expected) and gpt.known_cost > 0
        assert gpt.cost_per_pass == pytest.approx(expected / 2)
        assert total.known_cost is None  # claude has usage but no price given here
        unpriced = load_suite(_suite(tmp_path / "b", server, prices=False))
        bare = run_suite(unpriced, record_mode="all", env=KEYS)
        assert bare.manifest.prices == {"gpt": None, "claude": None, "script": None}

    def test_cli_and_report_show_tokens_and_cost(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """`run` prints a tokens-and-cost table; summary.md has the section; — for no usage."""
        path = _suite(tmp_path, server, prices=True)
        result = CliRunner().invoke(
            app, ["run", str(path), "--live", "--out", str(tmp_path / "run")], env=KEYS
        )
        assert result.exit_code == 0, result.stderr
        out = " ".join(result.stdout.split())
        assert "tokens and cost" in out
        usage_part = result.stdout[result.stdout.index("tokens and cost") :]
        script_line = next(line for line in usage_part.splitlines() if "script" in line)
        assert "—" in script_line and " 0 " not in script_line
        gpt_line = next(line for line in usage_part.splitlines() if "gpt" in line)
        assert "$" in gpt_line
        summary = write_report(tmp_path / "run").summary_md.read_text(encoding="utf-8")
        assert "### Tokens and cost" in summary and "handwritten" in summary
        lines = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
        rows = [json.loads(x) for x in lines]
        assert all(r["tokens"] is None for r in rows if r["model"] == "script")


class TestCompare:
    def test_compare_shows_tokens_and_cost_of_both_runs(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """`compare` has a tokens-and-cost section and a `usage` key in its JSON."""
        path = _suite(tmp_path, server, prices=True)
        for name in ("a", "b"):
            code = (
                CliRunner()
                .invoke(app, ["run", str(path), "--live", "--out", str(tmp_path / name)], env=KEYS)
                .exit_code
            )
            assert code == 0
        result = CliRunner().invoke(
            app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "markdown"]
        )
        assert result.exit_code == 0, result.stderr
        assert "### Tokens and cost" in result.stdout and "$" in result.stdout
        section = result.stdout[result.stdout.index("### Tokens and cost") :]
        script = next(x for x in section.splitlines() if x.startswith("| `script`"))
        assert script.count("—") == 6  # no usage on either side, never 0
        data = json.loads(
            CliRunner()
            .invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json"])
            .stdout
        )
        assert data["usage"]["models"]["gpt"]["base"]["cost_usd"] > 0
        assert data["usage"]["models"]["script"]["cand"]["tokens"] is None


@pytest.mark.parametrize(
    ("source", "taken", "said"),
    [
        ("", "", None),
        ("https://example.com/prices", "", "(prices of https://example.com/prices)"),
        ("", "2026-12-01", "(prices of 2026-12-01)"),
        (
            "https://example.com/prices",
            "2026-12-01",
            "(prices of 2026-12-01, https://example.com/prices)",
        ),
    ],
)
def test_the_cost_line_says_only_what_the_prices_say(
    source: str, taken: str, said: str | None
) -> None:
    """A prices file may leave out where or when its prices were read: the cost line then
    leaves that part out (it printed "(prices of , )")."""
    price = Price(input=1.0, output=2.0, source=source, taken=taken)
    rows = [{"model": "m", "status": "pass", "tokens": {"input": 1000, "output": 500}}]
    line = usage_total_line(rows, {"m": price})
    table = "\n".join(usage_markdown(rows, {"m": price}))
    assert line is not None and "$0.0020" in line
    assert ", )" not in line and "(, " not in line and "()" not in table
    if said is None:
        assert "prices of" not in line and "Prices:" not in table
    else:
        assert said in line
