"""Credentials of the model agent (a key in the base URL's query, a password in its userinfo,
the API key sent as a header) never reach the journal, the progress lines or the summary of
``planeval execute``, even when the server quotes them back in its error messages."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

from harness.testing import FakePlannerServer

QUERY_KEY = "SENTINEL-agent-qk-4d2e"
PASSWORD = "SENTINEL-agent-pw-8b1c"
API_KEY = "sk-SENTINEL-agent-key-77a0"
SENTINELS = (QUERY_KEY, PASSWORD, API_KEY)
PLAN = {"plan_id": "secrets", "tasks": [{"id": "t1", "description": "Say hello"}]}


def _execute(
    tmp_path: Path, name: str, base_url: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    journal = tmp_path / f"{name}.jsonl"
    env = {
        **os.environ,
        "PLANEVAL_AGENT_MODEL": "m",
        "PLANEVAL_AGENT_BASE_URL": base_url,
        "PLANEVAL_AGENT_API_KEY_ENV": "AGENT_KEY",
        "AGENT_KEY": API_KEY,
    }
    done = subprocess.run(
        [sys.executable, "-m", "harness", "execute", str(plan), "--journal", str(journal),
         "--agent", "harness.execute:model_agent", "--max-attempts", "1"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )  # fmt: skip
    return done, journal


def _leaks(tmp_path: Path, *outputs: str, sentinels: tuple[str, ...]) -> list[str]:
    found = [
        f"{path.name}: {sentinel}"
        for path in tmp_path.iterdir()
        if path.is_file()
        for sentinel in sentinels
        if sentinel in path.read_text(errors="replace")
    ]
    return found + [f"output: {s}" for text in outputs for s in sentinels if s in text]


def test_quoted_credentials_reach_no_journal_and_no_output(tmp_path: Path) -> None:
    """A 404 quoting the query key, a 401 quoting the API key, and one quoting the HTTP Basic
    token a password in the URL becomes: each task fails, and its error is journalled and
    printed with the credential redacted."""
    basic = base64.b64encode(f"agent:{PASSWORD}".encode()).decode()
    with FakePlannerServer() as server:
        base = server.openai_base_url
        query, query_journal = _execute(tmp_path, "query", f"{base}?api_key={QUERY_KEY}")
        server.fail("bad_key", times=10)
        bearer, bearer_journal = _execute(tmp_path, "bearer", base)
        with_password = base.replace("://", f"://agent:{PASSWORD}@", 1)
        basic_run, basic_journal = _execute(tmp_path, "basic", with_password)
        sent = [r.headers.get("authorization") for r in server.requests]
    runs = (query, bearer, basic_run)
    assert [run.returncode for run in runs] == [1, 1, 1], [run.stderr for run in runs]
    assert f"Bearer {API_KEY}" in sent and f"Basic {basic}" in sent  # really sent
    assert "Invalid URL (POST /v1/?api_key=<REDACTED>" in query_journal.read_text()
    for journal in (bearer_journal, basic_journal):
        assert "Incorrect API key provided: <REDACTED>" in journal.read_text()
    assert "<REDACTED>" in query.stderr and "<REDACTED>" in bearer.stdout  # progress, summary
    outputs = [text for run in runs for text in (run.stdout, run.stderr)]
    assert _leaks(tmp_path, *outputs, sentinels=(*SENTINELS, basic)) == []
