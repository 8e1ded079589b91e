"""Ctrl+C during a live run: finished rows kept, run.json marked, no half-written recording."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from harness.testing import FakePlannerServer, make_project


def _wait_for_rows(results: Path, count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_text().splitlines()) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} rows in {results} after {timeout}s")


def test_ctrl_c_keeps_finished_rows(tmp_path: Path) -> None:
    """SIGINT mid-run: exit 130, rows kept, run.json interrupted, every recording whole."""
    with FakePlannerServer(latency=0.3) as server:
        path = make_project(
            tmp_path,
            models=[
                {
                    "id": "gpt",
                    "provider": "openai",
                    "model": "m",
                    "base_url": server.openai_base_url,
                }
            ],
            cases=[{"id": f"c{i:02d}", "goal": f"Goal {i}"} for i in range(40)],
        )
        out = tmp_path / "run"
        env = {**os.environ, "OPENAI_API_KEY": "sk-interrupt", "LIVE_EVALS": ""}
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "harness",
                "run",
                str(path),
                "--live",
                "--concurrency",
                "2",
                "--out",
                str(out),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # a parent that ignores SIGINT would hand that on: the child must see Ctrl+C
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            _wait_for_rows(out / "results.jsonl", 3)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["interrupted"] is True and manifest["finished_at"] is None
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert 3 <= len(rows) < 40
    assert sum(manifest["counts"].values()) == len(rows)
    cassettes = sorted((tmp_path / "plan_fixtures").rglob("sample-0.yaml"))
    assert len(cassettes) >= len(rows)
    for cassette in cassettes:  # written via temp file + rename: whole or absent
        assert len(yaml.safe_load(cassette.read_text())["interactions"]) == 1
