"""The secret sentinel sweep: credentials planted in every channel reach no file and no output.

Channels: API keys in the environment (OpenAI, Anthropic, a credential-named variable only an
agent reads), a ``base_url`` password (and the HTTP Basic token it becomes), secret query
parameters (``api_key``, ``api-key``, ``key``, ``sig``, ``token``) that a 404 quotes back,
request headers echoed in 200 (not JSON), 4xx and 5xx bodies, batch error files quoting the
key, and an ``execute`` agent whose output echoes a key. Each seed draws new sentinels (some
with ``+ / = ~`` that URLs quote); every byte written under the project and printed by
``run`` (direct and ``--batch``), ``report``, ``merge`` and ``execute`` is searched for every
form of every sentinel (as typed, URL-quoted, Base64 Basic).
"""

from __future__ import annotations

import base64
import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from harness.testing import FakePlannerServer, make_project

QUERY_NAMES = ("api_key", "api-key", "key", "sig", "token")
ECHO_STATUS = {"EchoOk": 200, "EchoDenied": 401, "EchoDown": 503}

AGENT = """
import os

def agent(context):
    return {"text": "token " + os.environ["SERVICE_TOKEN"],
            "header": "Bearer " + os.environ["OPENAI_API_KEY"]}
"""


def _sentinel(rng: random.Random, tag: str, punctuation: str = "-_") -> str:
    alphabet = string.ascii_letters + string.digits + punctuation
    return f"SNT{tag}" + "".join(rng.choice(alphabet) for _ in range(24))


def _sentinels(seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    found = {
        "openai_key": "sk-" + _sentinel(rng, "oa"),
        "anthropic_key": "sk-ant-" + _sentinel(rng, "an"),
        "service_token": _sentinel(rng, "st"),
        "password": _sentinel(rng, "pw", "-_.~+/="),
    }
    for name in QUERY_NAMES:
        found[f"query:{name}"] = _sentinel(rng, name.replace("-", "").replace("_", ""), "-_.~+/=")
    return found


def _forms(secrets: dict[str, str]) -> set[str]:
    forms = {f for s in secrets.values() for f in (s, quote(s, safe=""), quote_plus(s))}
    forms.add(base64.b64encode(f"planeval:{secrets['password']}".encode()).decode())
    return forms


def _planeval(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def _models(server: FakePlannerServer, secrets: dict[str, str]) -> list[dict[str, object]]:
    base = server.openai_base_url
    password = quote(secrets["password"], safe="")
    models: list[dict[str, object]] = [
        {"id": "plain", "provider": "openai", "model": "m", "base_url": base, "retries": 0},
        {
            "id": "userinfo",
            "provider": "openai",
            "model": "m",
            "base_url": base.replace("://", f"://planeval:{password}@", 1),
            "retries": 0,
        },
        {
            "id": "claude",
            "provider": "anthropic",
            "model": "c",
            "base_url": server.anthropic_base_url,
            "retries": 0,
        },
    ]
    for name in QUERY_NAMES:
        value = quote(secrets[f"query:{name}"], safe="")
        models.append(
            {
                "id": f"q-{name}",
                "provider": "openai",
                "model": "m",
                "base_url": f"{base}?{name}={value}",
                "retries": 0,
            }
        )
    return models


def _leaks(root: Path, forms: set[str], outputs: list[str], *, skip: set[Path]) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if not path.is_file() or path in skip:
            continue
        data = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{path.relative_to(root)}: {f}" for f in forms if f in data]
    found += [f"output #{i}: {f}" for i, text in enumerate(outputs) for f in forms if f in text]
    return found


@pytest.mark.parametrize("seed", [1, 2])
def test_no_sentinel_reaches_a_file_or_the_output(tmp_path: Path, seed: int) -> None:
    """Direct and batch runs, reports, a merge and an execution: zero sentinel hits."""
    secrets = _sentinels(seed)
    env = {
        **os.environ,
        "OPENAI_API_KEY": secrets["openai_key"],
        "ANTHROPIC_API_KEY": secrets["anthropic_key"],
        "SERVICE_TOKEN": secrets["service_token"],
        "PYTHONPATH": str(tmp_path),
    }
    cases = [{"id": "ok", "goal": "Refund an order"}]
    cases += [{"id": w.lower(), "goal": f"{w} the request"} for w in ECHO_STATUS]
    outputs: list[str] = []
    with FakePlannerServer() as server:
        for word, status in ECHO_STATUS.items():
            server.fail("echo_headers", when=word, times=1000, status=status)
        direct = make_project(tmp_path / "direct", models=_models(server, secrets), cases=cases)
        run = _planeval("run", str(direct), "--live", "--out", "runs/direct", env=env, cwd=tmp_path)
        outputs += [run.stdout, run.stderr]
        assert run.returncode == 4, run.stderr  # echoes and 404s are error rows
        rows = (tmp_path / "runs/direct/results.jsonl").read_text()
        assert rows.count("<REDACTED>") >= 3  # the echoes were there, and were redacted

        server.reset()
        server.batch_api.fail_when.append("EchoDown")
        server.batch_api.echo_credentials = True
        batch_models = _models(server, secrets)[:3]
        batch = make_project(tmp_path / "batch", models=batch_models, cases=cases)
        codes = []
        for shard in ("1/2", "2/2"):
            out = f"runs/batch-{shard[0]}"
            args = ("run", str(batch), "--live", "--batch", "--batch-poll", "0.01", "--out", out)
            sent = _planeval(*args, "--shard", shard, env=env, cwd=tmp_path)
            outputs += [sent.stdout, sent.stderr]
            codes.append(sent.returncode)
        assert sorted(codes) == [0, 4], outputs[-3:]  # one shard holds the failed requests
        assert server.batch_api.created == 6  # two shards x three models
        quoted = [r for r in server.requests if "authorization" in r.headers]
        assert all(secrets["openai_key"] not in r.body for r in quoted if isinstance(r.body, str))

    merged = _planeval(
        "merge", "runs/batch-1", "runs/batch-2", "--out", "runs/merged", env=env, cwd=tmp_path
    )
    outputs += [merged.stdout, merged.stderr]
    assert merged.returncode == 0, merged.stderr
    merged_rows = (tmp_path / "runs/merged/results.jsonl").read_text()
    assert "<REDACTED>" in merged_rows
    answered = [json.loads(line) for line in merged_rows.splitlines()]
    # a base_url with a password replays its batch recording (its cassette holds no password)
    assert {r["model"]: r["status"] for r in answered if r["case"] == "ok"} == dict.fromkeys(
        ("plain", "userinfo", "claude"), "pass"
    )
    for folder in ("direct", "merged"):
        report = _planeval("report", f"runs/{folder}", env=env, cwd=tmp_path)
        outputs += [report.stdout, report.stderr]
        assert report.returncode == 0, report.stderr

    (tmp_path / "echo_agent.py").write_text(AGENT)
    plan = {"plan_id": "echo", "tasks": [{"id": "t1", "description": "Echo"}]}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    executed = _planeval(
        "execute", "plan.json", "--journal", "runs/j.jsonl", "--agent", "echo_agent:agent",
        env=env, cwd=tmp_path,
    )  # fmt: skip
    outputs += [executed.stdout, executed.stderr]
    assert executed.returncode == 0, executed.stderr
    assert "Bearer <REDACTED>" in (tmp_path / "runs/j.jsonl").read_text()

    written_by_the_user = {
        *(tmp_path / "direct" / "evals").iterdir(),
        *(tmp_path / "batch" / "evals").iterdir(),
    }
    leaks = _leaks(tmp_path, _forms(secrets), outputs, skip=written_by_the_user)
    assert leaks == []
