"""Credentials in a model's base_url (userinfo password, key-like query parameters) and in the
API key never reach a cassette, a result row, run.json, a report or any output: a live
recording against the local fake server, then every written file and all output is searched
for the sentinels."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness._redaction import redact_url
from harness.testing import FakePlannerServer, make_project

PASSWORD = "SENTINEL-pw-7f3a9c"
USER_TOKEN = "SENTINEL-tok-51bd02"
API_KEY = "sk-SENTINEL-key-0c4e88"
QUERY_KEY = "SENTINEL-qk-93e1d7"
SENTINELS = (PASSWORD, USER_TOKEN, API_KEY, QUERY_KEY)


def _planeval(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
    )


def _leaks(root: Path, outputs: list[str]) -> list[str]:
    found = [
        f"{path}: {sentinel}"
        for path in root.rglob("*")
        if path.is_file() and "evals" not in path.parts  # the suite: where the user wrote them
        for sentinel in SENTINELS
        if sentinel in path.read_text(encoding="utf-8", errors="replace")
    ]
    found += [f"output: {s}" for text in outputs for s in SENTINELS if s in text]
    return found


def test_redact_url() -> None:
    """Passwords, bare tokens and key-like query values go; the rest of the URL stays."""
    assert redact_url(f"https://me:{PASSWORD}@host:8080/v1?api_key={API_KEY}&x=1") == (
        "https://me:<REDACTED>@host:8080/v1?api_key=<REDACTED>&x=1"
    )
    assert redact_url(f"https://{USER_TOKEN}@host/v1") == "https://<REDACTED>@host/v1"
    assert redact_url("https://host/v1?model=a") == "https://host/v1?model=a"


@pytest.mark.parametrize(
    "name", ["api_key", "key", "access_token", "secret", "passwd", "password", "auth",
             "authorization", "sig", "signature", "credential", "session_id", "X-Api-Key"],
)  # fmt: skip
def test_every_key_like_query_parameter_is_redacted(name: str) -> None:
    """The names a cassette never records are the names every printed URL redacts: one rule."""
    assert redact_url(f"https://host/v1?{name}={QUERY_KEY}&model=a") == (
        f"https://host/v1?{name}=<REDACTED>&model=a"
    )


def test_live_recording_and_reports_hold_no_sentinel(tmp_path: Path) -> None:
    """Record live (answers and a failing call), report, compare: no sentinel anywhere."""
    with FakePlannerServer() as server:
        base = server.openai_base_url
        with_password = base.replace("://", f"://planeval:{PASSWORD}@", 1)
        with_token = base.replace("://", f"://{USER_TOKEN}@", 1)
        models = [
            {
                "id": "pw",
                "provider": "openai",
                "model": "m",
                "base_url": with_password,
                "retries": 0,
            },
            {"id": "tok", "provider": "openai", "model": "m", "base_url": with_token, "retries": 0},
        ]
        path = make_project(
            tmp_path,
            models=models,
            cases=[{"id": "ok", "goal": "Refund an order"}, {"id": "bad", "goal": "Crash"}],
        )
        server.fail("drop", when="Crash", times=100)
        env = {"OPENAI_API_KEY": API_KEY}
        live = _planeval("run", str(path), "--live", "--out", str(tmp_path / "run"), env=env)
        assert live.returncode == 4, live.stderr  # the failing case is an error row
        assert len(server.requests) >= 2
        report = _planeval("report", str(tmp_path / "run"), env=env)
        assert report.returncode == 0, report.stderr
    outputs = [live.stdout, live.stderr, report.stdout, report.stderr]
    assert _leaks(tmp_path, outputs) == []
    assert "<REDACTED>" in (tmp_path / "run" / "run.json").read_text()


@pytest.mark.parametrize("name", ["api_key", "auth"])
def test_a_key_in_a_query_parameter_or_echoed_by_the_server_reaches_no_file(
    tmp_path: Path, name: str
) -> None:
    """A key in the base_url's query string is sent (the server quotes the request path in
    its 404), and the API key header is quoted back by a 401: neither reaches a cassette,
    a result row, run.json, a report, the output or the progress lines."""
    with FakePlannerServer() as server:
        base = server.openai_base_url
        models = [
            {
                "id": "query",
                "provider": "openai",
                "model": "m",
                "base_url": f"{base}?{name}={QUERY_KEY}",
                "retries": 0,
            },
            {"id": "header", "provider": "openai", "model": "m", "base_url": base, "retries": 0},
        ]
        path = make_project(
            tmp_path,
            models=models,
            cases=[{"id": "ok", "goal": "Refund an order"}, {"id": "bad", "goal": "Crash"}],
        )
        server.fail("bad_key", when="Crash", times=100)
        env = {"OPENAI_API_KEY": API_KEY}
        live = _planeval("run", str(path), "--live", "--out", str(tmp_path / "run"), env=env)
        assert live.returncode == 4, live.stderr  # the failing calls are error rows
        sent = server.requests
        report = _planeval("report", str(tmp_path / "run"), env=env)
        assert report.returncode == 0, report.stderr
    assert any(r.headers.get("authorization") == f"Bearer {API_KEY}" for r in sent)
    rows = (tmp_path / "run" / "results.jsonl").read_text()
    assert "Incorrect API key provided: <REDACTED>" in rows  # the 401 was recorded, redacted
    assert f"Invalid URL (POST /v1/?{name}=<REDACTED>" in rows  # the query key went out
    outputs = [live.stdout, live.stderr, report.stdout, report.stderr]
    assert _leaks(tmp_path, outputs) == []
