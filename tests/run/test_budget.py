"""Budgets on live runs are a promise: what the server bills never passes --max-cost.

The fake server bills like a vendor (``usage(whole_request=True)``): the input counts the whole
request (the plan schema too), the output counts reasoning tokens, capped at ``max_tokens``,
and an answer the client never received (a timeout, a dropped connection) is billed all the
same. ``server.billed_usd`` is that bill.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.providers import http_provider
from harness.run import Budget, run_suite
from harness.run._live import worst_case_tokens
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

KEY = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}
CASES = 12
PRICE = (1000.0, 4000.0)  # USD per million input and output tokens: calls cost cents
PRICES = {"gpt-fake": PRICE, "claude-fake": PRICE}
MAX_TOKENS = 400
REASONING = 150


@pytest.fixture
def own_server() -> Iterator[FakePlannerServer]:
    """A server of the test's own: a slow answer billed after the test ends bills no other."""
    with FakePlannerServer() as server:
        yield server


def _prices(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "prices.yaml").write_text(
        "models:\n"
        "  - {provider: openai, model: gpt-fake, input: 1000, output: 4000, source: handwritten}\n"
        "  - {provider: anthropic, model: claude-fake, input: 1000, output: 4000,"
        " source: handwritten}\n",
        encoding="utf-8",
    )


def _suite(
    root: Path,
    server: FakePlannerServer,
    *,
    name: str = "demo",
    cases: int = CASES,
    provider: str = "openai",
    timeout: float = 120.0,
    retries: int = 4,
    max_tokens: int | None = MAX_TOKENS,
) -> Path:
    _prices(root)
    server.usage(reasoning_tokens=REASONING, whole_request=True)
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    model: dict[str, object] = {
        "id": "m",
        "provider": provider,
        "model": "gpt-fake" if provider == "openai" else "claude-fake",
        "base_url": base,
        "timeout": timeout,
        "retries": retries,
    }
    if max_tokens is not None:
        model["params"] = {"max_tokens": max_tokens}
    # goals of equal length: every call is billed the same
    return make_project(
        root,
        suite=name,
        models=[model],
        cases=[{"id": f"c{i:03d}", "goal": f"Refund order {i:03d}"} for i in range(cases)],
        extra={"prices": "../prices.yaml"},
    )


def _worst(path: Path) -> float:
    """The budget's reservation for one call of the suite's (only) model."""
    suite = load_suite(path)
    model = suite.models[0]
    provider = http_provider(model.provider)
    assert provider is not None
    tokens_in, tokens_out = worst_case_tokens(
        provider.request_body(model, suite.render_prompt(suite.cases[0]))
    )
    assert tokens_out == MAX_TOKENS
    return (tokens_in * PRICE[0] + tokens_out * PRICE[1]) / 1e6


def _billed_per_call(tmp_path: Path, server: FakePlannerServer) -> float:
    suite = load_suite(_suite(tmp_path / "probe", server, cases=1))
    run_suite(suite, record_mode="all", env=KEY)
    billed = server.billed_usd(PRICES)
    server.reset()
    return billed


class TestMaxCost:
    @pytest.mark.parametrize("concurrency", [1, 8])
    def test_stops_before_the_call_whose_worst_case_would_exceed(
        self, tmp_path: Path, server: FakePlannerServer, concurrency: int
    ) -> None:
        """Calls start while their worst case fits; the bill stays under the budget and the
        refused samples are missing with the reason."""
        per_call = _billed_per_call(tmp_path, server)
        path = _suite(tmp_path / "run", server)
        worst = _worst(path)
        assert worst > per_call  # the reservation covers the schema, reasoning and max_tokens
        cap = 3 * per_call + worst  # room for exactly four calls, one at a time
        run = run_suite(
            load_suite(path),
            record_mode="all",
            env=KEY,
            concurrency=concurrency,
            budget=Budget(max_cost=cap),
        )
        called = [r for r in run.rows if r.status == "pass"]
        assert server.billed_usd(PRICES) <= cap
        assert len(server.requests) == len(called) == 4  # waits for room, never overspends
        budget = run.manifest.budget
        assert budget is not None and "--max-cost budget" in budget["stopped"]
        assert budget["spent"] == pytest.approx(server.billed_usd(PRICES))
        missing = [r for r in run.rows if r.status == "missing"]
        assert len(missing) == CASES - 4 and all(r.detail == budget["stopped"] for r in missing)

    def test_refuses_command_planners(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """A command planner reports no usage and has no output cap, so --max-cost cannot
        hold for it: refused before any call (exit 2, naming it and what to do), even with a
        price; the HTTP model alone runs under the budget, and the command planner runs under
        --max-calls. It used to be admitted at a prompt-length estimate and charged that."""
        path = _suite(tmp_path, server, cases=2)
        marker = tmp_path / "called"
        planner = tmp_path / "planner.py"
        planner.write_text(
            "import pathlib, sys\n"
            f"pathlib.Path({str(marker)!r}).touch()\n"
            "sys.stdin.read()\n"
            'print(\'{"tasks": [{"id": "a", "description": "Act"}]}\')\n',
            encoding="utf-8",
        )
        suite = path.read_text(encoding="utf-8").replace(
            "models:\n",
            "models:\n- id: script\n  provider: command\n  model: script\n"
            f"  command: {sys.executable} {planner}\n",
            1,
        )
        path.write_text(suite, encoding="utf-8")
        (tmp_path / "prices.yaml").write_text(
            (tmp_path / "prices.yaml").read_text(encoding="utf-8")
            + "  - {provider: command, model: script, input: 1000, output: 4000,"
            " source: handwritten}\n",
            encoding="utf-8",
        )
        runner = CliRunner()
        out = tmp_path / "refused"
        refused = runner.invoke(
            app, ["run", str(path), "--live", "--max-cost", "100", "--out", str(out)], env=KEY
        )
        assert refused.exit_code == 2, refused.stderr
        assert "--max-cost cannot hold for command planners" in refused.stderr
        assert "'script'" in refused.stderr and "--model" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert not server.requests and not marker.exists() and not out.exists()
        http_only = runner.invoke(
            app,
            ["run", str(path), "--live", "--max-cost", "100", "--model", "m"],
            env=KEY,
        )
        assert http_only.exit_code == 0, http_only.stderr
        assert len(server.requests) == 2 and not marker.exists()
        counted = runner.invoke(
            app, ["run", str(path), "--live", "--max-calls", "1", "--model", "script"], env=KEY
        )
        assert counted.exit_code == 3, counted.stderr  # one call made, one left missing
        assert marker.exists()

    def test_needs_a_price(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """--max-cost with a model without a price is refused before any call (exit 2)."""
        path = _suite(tmp_path, server)
        (tmp_path / "prices.yaml").write_text("models: []\n", encoding="utf-8")
        result = CliRunner().invoke(app, ["run", str(path), "--live", "--max-cost", "1"], env=KEY)
        assert result.exit_code == 2 and "needs a price" in result.stderr
        assert not server.requests

    def test_needs_an_output_cap(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """Without max_tokens a call's worst case is unbounded: refused, naming the setting."""
        path = _suite(tmp_path, server, max_tokens=None)
        result = CliRunner().invoke(app, ["run", str(path), "--live", "--max-cost", "1"], env=KEY)
        err = " ".join(result.stderr.split())
        assert result.exit_code == 2, err
        assert "no max_tokens for model(s) 'm'" in err and "params: {max_tokens: N}" in err
        assert not server.requests

    def test_an_unanswered_call_is_charged_its_worst_case(
        self, tmp_path: Path, own_server: FakePlannerServer
    ) -> None:
        """A client timeout the server billed counts as its reservation, never 0; the run says
        its cost is an upper bound."""
        server = own_server
        path = _suite(tmp_path, server, cases=3, timeout=0.3, retries=0)
        server.fail("slow", when="order 001", delay=1.0)
        result = CliRunner().invoke(
            app,
            ["run", str(path), "--live", "--concurrency", "1", "--max-cost", "100"],
            env=KEY,
        )
        assert result.exit_code == 4, result.stderr
        assert server.wait_idle() and server.billed_calls == 3
        err = " ".join(result.stderr.split())
        assert "is an upper bound: 1 attempt(s) ended without an answer" in err
        runs = list((tmp_path / "reports" / "runs").glob("*/run.json"))
        budget = json.loads(runs[0].read_text())["budget"]
        assert budget["uncertain"] == 1
        assert budget["spent"] >= server.billed_usd(PRICES)  # the timed-out call was billed
        assert budget["spent"] >= _worst(path)


def _bill_after(
    tmp_path: Path,
    server: FakePlannerServer,
    *,
    concurrency: int,
    faults: bool,
    batch: bool,
    provider: str = "openai",
) -> tuple[float, float, dict[str, object]]:
    """Run 40 cases under a budget of about 12 calls; (billed, cap, run.json budget)."""
    per_call = _billed_per_call(tmp_path / "probe", server)
    path = _suite(tmp_path, server, cases=40, provider=provider, timeout=0.4, retries=1)
    cap = 12 * per_call
    if faults and batch:
        server.batch_api.fail_when.append("order 003")
        server.batch_api.expire_after = 30
    elif faults:
        server.fail("slow", times=3, delay=0.8)  # billed, never received
        server.fail("drop", times=2)  # billed, never received
        server.fail("server_error", times=3)  # not billed
    args = ["run", str(path), "--live", "--concurrency", str(concurrency)]
    args += ["--max-cost", f"{cap:.10f}", "--out", str(tmp_path / "run")]
    if batch:
        args += ["--batch", "--batch-poll", "0.01"]
    result = CliRunner().invoke(app, args, env=KEY)
    assert result.exit_code in (3, 4), result.stderr
    assert server.wait_idle()  # answers the client gave up on are billed too
    budget = json.loads((tmp_path / "run" / "run.json").read_text())["budget"]
    assert budget["stopped"], budget
    return server.billed_usd(PRICES), cap, budget


class TestTheBillNeverPassesTheBudget:
    @pytest.mark.parametrize("faults", [False, True], ids=["clean", "faults"])
    @pytest.mark.parametrize("concurrency", [1, 4, 16, 64])
    def test_direct(
        self, tmp_path: Path, own_server: FakePlannerServer, concurrency: int, faults: bool
    ) -> None:
        """Direct calls at any concurrency, with timeouts and dropped connections that the
        server bills: the bill stays under the budget."""
        billed, cap, budget = _bill_after(
            tmp_path, own_server, concurrency=concurrency, faults=faults, batch=False
        )
        assert 0 < billed <= cap
        spent = budget["spent"]
        assert isinstance(spent, float) and spent >= billed * 0.999  # never counts less
        if faults:
            assert budget["uncertain"]

    @pytest.mark.parametrize("faults", [False, True], ids=["clean", "faults"])
    @pytest.mark.parametrize("provider", ["openai", "anthropic"])
    def test_batch(
        self, tmp_path: Path, server: FakePlannerServer, provider: str, faults: bool
    ) -> None:
        """A batch is cut to what the budget admits before it is sent; run.json says so."""
        billed, cap, budget = _bill_after(
            tmp_path, server, concurrency=4, faults=faults, batch=True, provider=provider
        )
        assert 0 < billed <= cap
        assert server.batch_api.created == 1
        (sent,) = server.batch_api.batches.values()
        assert len(sent.requests) < 40
        assert "--max-cost" in str(budget["stopped"])

    def test_a_folder_of_suites_shares_one_budget(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """Three suites under one --max-cost: the command's bill stays under it."""
        per_call = _billed_per_call(tmp_path / "probe", server)
        for name in ("one", "two", "three"):
            _suite(tmp_path, server, name=name, cases=8)
        cap = 10 * per_call
        result = CliRunner().invoke(
            app,
            ["run", str(tmp_path / "evals"), "--live", "--max-cost", f"{cap:.10f}"],
            env=KEY,
        )
        assert result.exit_code == 3, result.stderr
        assert 0 < server.billed_usd(PRICES) <= cap
        assert server.billed_calls < 24

    def test_each_shard_spends_its_share(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """--shard i/n --max-cost X: each shard's bill stays under X/n."""
        per_call = _billed_per_call(tmp_path / "probe", server)
        path = _suite(tmp_path, server, cases=20)
        cap = 10 * per_call
        for index in (1, 2):
            server.reset()
            server.usage(reasoning_tokens=REASONING, whole_request=True)
            result = CliRunner().invoke(
                app,
                ["run", str(path), "--live", "--shard", f"{index}/2", "--max-cost", f"{cap:.10f}"],
                env=KEY,
            )
            assert result.exit_code == 3, result.stderr
            assert 0 < server.billed_usd(PRICES) <= cap / 2


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

    def test_a_folder_stopped_by_the_budget_says_how_to_continue(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """A folder of two suites stopped by --max-calls: each suite's gaps come with the line
        that records them (the folder's), not "they belong to dataset models" (said because a
        folder's line names no --model)."""
        for name in ("one", "two"):
            _suite(tmp_path, server, name=name, cases=2)
        result = CliRunner().invoke(
            app, ["run", str(tmp_path / "evals"), "--live", "--max-calls", "1"], env=KEY
        )
        assert result.exit_code == 3, result.stderr
        assert "dataset models" not in result.stderr
        lines = [x for x in result.stderr.splitlines() if x.startswith("re-record them with:")]
        assert len(lines) == 2 and all(str(tmp_path / "evals") in x for x in lines), lines
        assert all("--record-mode new_episodes" in x and "--max-calls 1" in x for x in lines)

    def test_batch_is_cut_to_the_call_budget(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """--batch --max-calls 5 sends a batch of five, and run.json says the budget stopped."""
        path = _suite(tmp_path, server)
        result = CliRunner().invoke(
            app,
            ["run", str(path), "--live", "--batch", "--batch-poll", "0.01", "--max-calls", "5",
             "--out", str(tmp_path / "run")],
            env=KEY,
        )  # fmt: skip
        assert result.exit_code == 3, result.stderr
        (sent,) = server.batch_api.batches.values()
        assert len(sent.requests) == 5
        data = json.loads((tmp_path / "run" / "run.json").read_text())
        assert "--max-calls" in data["budget"]["stopped"]
        rows = [
            json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()
        ]
        assert sum(r["status"] == "pass" for r in rows) == 5


def test_the_worst_case_never_undercounts_real_usage(shared_data: Path) -> None:
    """Against the usage OpenAI reported for the agentic gem's recorded calls (real requests
    with a response schema), the reserved input is never below the billed input."""
    from harness.recording import read_cassette

    pairs = read_cassette(shared_data / "agentic" / "plan_ruby_coding_agent.yml")
    assert pairs
    for request, response in pairs:
        body = json.loads(request["body"])
        usage = json.loads(response["body"]["string"])["usage"]
        reserved, _ = worst_case_tokens(body)
        assert reserved >= usage["prompt_tokens"], (reserved, usage)


def test_a_call_waiting_for_room_gives_up_when_the_run_stops() -> None:
    """A call whose worst case does not fit waits for the calls in flight; when the run stops
    meanwhile it is not made, and the budget does not claim to have stopped the run."""
    import threading

    from harness.cost import Price
    from harness.run import LiveControls
    from harness.suite import ModelSpec

    model = ModelSpec(id="m", provider="openai", model="gpt-fake", params={"max_tokens": 100})
    body = {"model": "gpt-fake", "messages": [{"role": "user", "content": "x"}], "max_tokens": 100}
    stopping = threading.Event()
    controls = LiveControls(
        budget=Budget(max_cost=1.5 * (sum(worst_case_tokens(body)[i] or 0 for i in (0, 1)))),
        prices={"m": Price(1_000_000.0, 1_000_000.0)},  # $1 per token: the worst case in USD
        cancelled=stopping.is_set,
    )
    first = controls.admit(model, "x", body)
    assert not isinstance(first, str)
    answer: list[object] = []
    waiter = threading.Thread(target=lambda: answer.append(controls.admit(model, "x", body)))
    waiter.start()
    waiter.join(0.3)
    assert waiter.is_alive() and not answer  # waiting for the first call to settle
    stopping.set()
    waiter.join(5)
    assert answer == ["not called: the run was stopped"] and controls.stopped is None
