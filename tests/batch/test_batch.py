"""Batch mode end to end against the fake server's OpenAI Batch and Anthropic Message Batches."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.recording import read_meta, sample_paths
from harness.run import run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}
CASES = 5


def _suite(tmp_path: Path, server: FakePlannerServer, provider: str) -> Path:
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    return make_project(
        tmp_path,
        models=[{"id": "m", "provider": provider, "model": f"{provider}-fake", "base_url": base}],
        cases=[{"id": f"c{i}", "goal": f"Refund order {i}"} for i in range(CASES)],
    )


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["run", *args, "--batch-poll", "0.01"], env=KEYS)
    return result.exit_code, result.stdout, result.stderr


def _saved_batch(out: Path) -> bool:
    """True once batch.json names a created batch (it holds the intent before that)."""
    try:
        state = json.loads((out / "batch.json").read_text())
    except (OSError, ValueError):
        return False
    return any(entry.get("batch_id") for entry in state["batches"])


def _direct_calls(server: FakePlannerServer) -> int:
    return sum(r.path in ("/v1/chat/completions", "/v1/messages") for r in server.requests)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batch_run_records_like_a_direct_run(
    tmp_path: Path, server: FakePlannerServer, provider: str
) -> None:
    """Every call goes through one batch; the recordings replay like direct ones."""
    path = _suite(tmp_path, server, provider)
    code, _, err = _run(str(path), "--live", "--batch", "--out", str(tmp_path / "run"))
    assert code == 0, err
    assert "batch " in err and f"0/{CASES}" not in err.split("\n")[-1]
    assert _direct_calls(server) == 0 and server.batch_api.created == 1
    paths = sample_paths(tmp_path / "plan_fixtures", "demo", "m", "c0", 0)
    meta = read_meta(paths.meta)
    assert meta is not None and meta.provenance.source == "live"
    assert (meta.provenance.origin or "").startswith(f"{provider}-batch:")
    replay = run_suite(load_suite(path))
    assert [r.status for r in replay.rows] == ["pass"] * CASES
    assert all(r.tokens for r in replay.rows)


def test_partial_failures_are_errors(tmp_path: Path, server: FakePlannerServer) -> None:
    """A request the batch failed is an `error` row naming the batch; the others pass."""
    server.batch_api.fail_when.append("order 2")
    path = _suite(tmp_path, server, "openai")
    code, _, err = _run(str(path), "--live", "--batch", "--out", str(tmp_path / "run"))
    assert code == 4, err
    rows = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    by_case = {r["case"]: r for r in rows}
    assert by_case["c2"]["status"] == "error" and "batch_0001" in by_case["c2"]["detail"]
    assert all(by_case[f"c{i}"]["status"] == "pass" for i in (0, 1, 3, 4))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_expired_batch_then_gaps(tmp_path: Path, server: FakePlannerServer, provider: str) -> None:
    """An expired batch leaves the rest `missing`; new_episodes sends only those."""
    server.batch_api.expire_after = 2
    path = _suite(tmp_path, server, provider)
    code, _, err = _run(str(path), "--live", "--batch", "--out", str(tmp_path / "a"))
    assert code == 3
    rows = [json.loads(x) for x in (tmp_path / "a" / "results.jsonl").read_text().splitlines()]
    rows.sort(key=lambda r: r["case"])  # live rows are written as they finish
    assert [r["status"] for r in rows] == ["pass", "pass"] + ["missing"] * (CASES - 2)
    assert "ended before this request ran" in rows[-1]["detail"]
    server.batch_api.expire_after = None
    code, _, err = _run(
        str(path), "--record-mode", "new_episodes", "--batch", "--out", str(tmp_path / "b")
    )
    assert code == 0, err
    second = server.batch_api.batches["batch_0002" if provider == "openai" else "msgbatch_0002"]
    assert len(second.requests) == CASES - 2


def test_killed_while_waiting_resumes_the_same_batch(
    tmp_path: Path, server: FakePlannerServer
) -> None:
    """A run killed mid-wait, run again with the same --out, picks up its batch: no second."""
    server.batch_api.held = True
    path = _suite(tmp_path, server, "openai")
    out = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "harness",
        "run",
        str(path),
        "--live",
        "--batch",
        "--batch-poll",
        "0.05",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(
        command, env={**os.environ, **KEYS}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while not _saved_batch(out) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _saved_batch(out)  # created and its id saved: the run is waiting on it
        time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert server.batch_api.created == 1
    assert json.loads((out / "run.json").read_text())["finished_at"] is None
    server.batch_api.held = False
    code, _, err = _run(str(path), "--live", "--batch", "--out", str(out))
    assert code == 0, err
    assert server.batch_api.created == 1 and _direct_calls(server) == 0
    rows = (out / "results.jsonl").read_text().splitlines()
    assert len(rows) == CASES


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_record_mode_once_batches_only_the_gaps(
    tmp_path: Path, server: FakePlannerServer, provider: str
) -> None:
    """With --record-mode once a batch holds only the samples with no recording: a stale one
    is replayed and reported `stale`, as a direct run in that mode does, never sent again."""
    path = _suite(tmp_path, server, provider)
    code, _, err = _run(str(path), "--live", "--batch", "--out", str(tmp_path / "first"))
    assert code == 0, err
    prompt = path.parent / "demo.prompt.md"
    prompt.write_text(prompt.read_text() + "\nAnswer with JSON only.\n")  # now stale
    for case in ("c1", "c3"):  # two gaps
        paths = sample_paths(tmp_path / "plan_fixtures", "demo", "m", case, 0)
        paths.cassette.unlink()
        paths.meta.unlink()
    code, _, err = _run(str(path), "--record-mode", "once", "--batch", "--out", str(tmp_path / "b"))
    assert code == 3, err  # stale rows are not counted: exit 3 as in a direct run
    assert server.batch_api.created == 2 and _direct_calls(server) == 0
    second = server.batch_api.batches["batch_0002" if provider == "openai" else "msgbatch_0002"]
    assert len(second.requests) == 2
    rows = [json.loads(x) for x in (tmp_path / "b" / "results.jsonl").read_text().splitlines()]
    statuses = {r["case"]: r["status"] for r in rows}
    assert statuses == {"c0": "stale", "c1": "pass", "c2": "stale", "c3": "pass", "c4": "stale"}
    code, _, _ = _run(str(path), "--record-mode", "once", "--batch", "--out", str(tmp_path / "c"))
    assert server.batch_api.created == 2  # nothing left to send: no third batch
