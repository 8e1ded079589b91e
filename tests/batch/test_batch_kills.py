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
target = int(os.environ["KILL_AT"])
seen = []
def _kill(*_args):
    os.kill(os.getpid(), signal.SIGKILL)
if target == 0:  # before batch.json exists
    collect.batch_state = _kill
else:
    def step(name):
        seen.append(name)
        if len(seen) == target:
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
