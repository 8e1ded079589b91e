"""Batches survive any kill: a run killed at every step of creating two models' batches, then
run again with the same --out, loses no batch and pays for none twice; status checks ride
out a vendor's 5xx; batches split under the vendors' limits; record mode `all` never answers
a row from an older recording."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.testing import FakePlannerServer, make_project

KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}
CASES = 4
KILLER = """
import os, signal, sys
import harness.batch._collect as collect
target = os.environ["KILL_AT"]
seen = []
def _kill(*_args):
    os.kill(os.getpid(), signal.SIGKILL)
if target == "wait-2":  # once the first batch is recorded, before waiting for the second
    finish = collect._finish
    def waiting(*args, **kwargs):
        seen.append("wait")
        if len(seen) == 2:
            _kill()
        return finish(*args, **kwargs)
    collect._finish = waiting
elif target == "0":  # before batch.json exists
    collect.batch_state = _kill
else:
    def step(name):
        seen.append(name)
        if len(seen) == int(target):
            _kill()
    collect.step = step
from harness._cli.main import main
main(sys.argv[1:])
"""
STEPS = ("intent", "uploaded", "created", "saved", "created", "saved")
"""The steps of creating an OpenAI batch then an Anthropic one (Anthropic uploads no file)."""


def _suite(root: Path, server: FakePlannerServer) -> Path:
    models = [
        {"id": "gpt", "provider": "openai", "model": "g", "base_url": server.openai_base_url},
        {"id": "claude", "provider": "anthropic", "model": "c",
         "base_url": server.anthropic_base_url},
    ]  # fmt: skip
    cases = [{"id": f"c{i}", "goal": f"Refund order {i}"} for i in range(CASES)]
    return make_project(root, models=models, cases=cases)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", *args, "--batch-poll", "0.01"], env=KEYS)
    return result.exit_code, result.stderr


def _rows(out: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("kill_at", range(len(STEPS) + 1), ids=["before", *STEPS])
def test_killed_at_any_step_then_resumed(
    tmp_path: Path, server: FakePlannerServer, kill_at: int
) -> None:
    """SIGKILL at each step; the same command again: one batch per model, every row passes."""
    path = _suite(tmp_path, server)
    out = tmp_path / "run"
    (tmp_path / "killer.py").write_text(KILLER)
    args = ["run", str(path), "--live", "--batch", "--batch-poll", "0.01", "--out", str(out)]
    killed = subprocess.run(
        [sys.executable, str(tmp_path / "killer.py"), *args],
        env={**os.environ, **KEYS, "KILL_AT": str(kill_at)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -9, killed.stderr
    code, err = _run(*args[1:])
    assert code == 0, err
    book = server.batch_api
    assert book.created == 2, f"killed at {kill_at}: {book.created} batches created"
    assert sorted(len(b.requests) for b in book.batches.values()) == [CASES, CASES]
    rows = _rows(out)
    assert len(rows) == 2 * CASES and {r["status"] for r in rows} == {"pass"}
    assert not [r for r in server.requests if r.path in ("/v1/chat/completions", "/v1/messages")]


def test_status_checks_ride_out_server_errors(tmp_path: Path, server: FakePlannerServer) -> None:
    """Three 500s on status checks are retried with backoff; the run finishes."""
    server.batch_api.poll_failures = 3
    path = _suite(tmp_path, server)
    code, err = _run(str(path), "--live", "--batch", "--model", "gpt", "--out", str(tmp_path / "r"))
    assert code == 0, err
    assert server.batch_api.poll_failures == 0


def test_batches_split_under_the_vendors_limits(
    tmp_path: Path, server: FakePlannerServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a cap of 3 requests per batch, 4 requests go as two batches of 3 and 1."""
    import harness.batch._collect as collect

    monkeypatch.setitem(collect.LIMITS, "openai", (3, 200 * 1024 * 1024))
    path = _suite(tmp_path, server)
    code, err = _run(str(path), "--live", "--batch", "--model", "gpt", "--out", str(tmp_path / "r"))
    assert code == 0, err
    assert sorted(len(b.requests) for b in server.batch_api.batches.values()) == [1, 3]
    assert {r["status"] for r in _rows(tmp_path / "r")} == {"pass"}


def test_split_by_bytes(
    tmp_path: Path, server: FakePlannerServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A byte cap that holds two requests' lines splits four requests into two batches."""
    import harness.batch._collect as collect

    path = _suite(tmp_path, server)  # a first run measures the size of one request
    code, err = _run(
        str(path), "--live", "--batch", "--model", "claude", "--out", str(tmp_path / "probe")
    )
    assert code == 0, err
    (probe,) = server.batch_api.batches.values()
    line = max(len(json.dumps(r["params"])) for r in probe.requests) + 200
    server.reset()
    monkeypatch.setitem(collect.LIMITS, "anthropic", (100_000, int(2.2 * line / 0.95)))
    code, err = _run(
        str(path), "--live", "--batch", "--model", "claude", "--out", str(tmp_path / "r")
    )
    assert code == 0, err
    assert sorted(len(b.requests) for b in server.batch_api.batches.values()) == [2, 2]


def test_record_mode_all_never_answers_from_an_older_recording(
    tmp_path: Path, server: FakePlannerServer
) -> None:
    """A batch.json that lost a model's batch (killed by an older planeval between creating
    and saving it): in mode `all` that model's rows are missing, not replayed from the older
    recordings, and run.json says record_mode all."""
    path = _suite(tmp_path, server)
    code, err = _run(str(path), "--live", "--batch", "--out", str(tmp_path / "first"))
    assert code == 0, err
    out = tmp_path / "second"
    code, err = _run(str(path), "--live", "--batch", "--model", "gpt", "--out", str(out))
    assert code == 0, err
    state = json.loads((out / "batch.json").read_text())
    (out / "results.jsonl").unlink()
    manifest = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**manifest, "finished_at": None}))
    (out / "batch.json").write_text(json.dumps({**state, "batches": []}))
    server.reset()
    code, err = _run(str(path), "--live", "--batch", "--model", "gpt", "--out", str(out))
    assert code == 3, err
    rows = _rows(out)
    assert {r["status"] for r in rows} == {"missing"}
    assert all("not in this run's batches" in str(r["detail"]) for r in rows)
    assert json.loads((out / "run.json").read_text())["record_mode"] == "all"


BUDGET_CASES = 4
BUDGET_PRICES = {"gpt-fake": (1.0, 100.0)}  # USD per million: output dominates the bill


@pytest.mark.parametrize("kill_at", ["7", "wait-2"], ids=["both-batches-saved", "one-recorded"])
def test_a_resumed_batch_counts_against_the_budget(
    tmp_path: Path, server: FakePlannerServer, kill_at: str
) -> None:
    """A folder of two suites under one --max-cost with room for 5.5 worst-case calls; the
    first suite's two models send batches of 2; the run is killed once both are sent (or once
    the first is recorded), then run again: the resuming process counts them (a pending batch
    held at its worst case until answered, a recorded one at its usage), so the second
    suite's batch gets 1 request, the server's bill stays under the budget and run.json's
    `spent` is that bill. It used to count nothing: the second suite got 4 and the bill was
    8 calls."""
    from harness.providers import http_provider
    from harness.run._live import worst_case_tokens
    from harness.suite import load_suite

    server.usage(reasoning_tokens=1000, whole_request=True)  # every answer bills max_tokens
    (tmp_path / "prices.yaml").write_text(
        "models:\n  - {provider: openai, model: gpt-fake, input: 1, output: 100,"
        " source: handwritten}\n",
        encoding="utf-8",
    )
    models = [
        {
            "id": name,
            "provider": "openai",
            "model": "gpt-fake",
            "base_url": server.openai_base_url,
            "params": {"max_tokens": 400},
        }
        for name in ("gpt", "gpt-b")
    ]
    for name, count in (("one", 2), ("two", BUDGET_CASES)):
        cases = [{"id": f"c{i}", "goal": f"Refund order {i}"} for i in range(count)]
        path = make_project(
            tmp_path,
            suite=name,
            models=models if name == "one" else models[:1],
            cases=cases,
            extra={"prices": "../prices.yaml"},
        )
    suite = load_suite(path)
    provider = http_provider("openai")
    assert provider is not None
    body = provider.request_body(suite.models[0], suite.render_prompt(suite.cases[0]))
    tokens_in, tokens_out = worst_case_tokens(body)
    assert tokens_out == 400
    cap = 5.5 * (tokens_in * 1.0 + tokens_out * 100.0) / 1e6
    out = tmp_path / "run"
    (tmp_path / "killer.py").write_text(KILLER)
    args = ["run", str(tmp_path / "evals"), "--live", "--batch", "--batch-poll", "0.01"]
    args += ["--max-cost", f"{cap:.10f}", "--out", str(out)]
    killed = subprocess.run(
        [sys.executable, str(tmp_path / "killer.py"), *args],
        env={**os.environ, **KEYS, "KILL_AT": kill_at},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -9, killed.stderr
    code, err = _run(*args[1:])
    assert code == 3, err  # the budget left the second suite's other samples missing
    book = server.batch_api
    assert sorted(len(b.requests) for b in book.batches.values()) == [1, 2, 2]
    billed = server.billed_usd(BUDGET_PRICES)
    assert server.billed_calls == 5
    assert billed <= cap
    budget = json.loads((out / "two" / "run.json").read_text())["budget"]
    assert budget["spent"] == pytest.approx(billed)
    assert "--max-cost" in str(budget["stopped"])
