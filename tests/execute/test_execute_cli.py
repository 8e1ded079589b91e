"""`planeval execute` and `planeval journal show|verify`: exit codes, output, signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.journal import replay

AGENT = '''
"""Hand-written test agent: logs each call; hangs on AGENT_HANG, fails on AGENT_FAIL."""
import os
from pathlib import Path

from harness.execute import demo_agent


def agent(context):
    with open(os.environ["AGENT_LOG"], "a") as log:
        log.write(context.task.id + "\\n")
    if context.task.id == os.environ.get("AGENT_HANG"):
        Path(os.environ["AGENT_READY"]).write_text("ready")
        if context.cancelled.wait(60):  # stopped: not done (returning would be a success)
            raise RuntimeError("cancelled")
    if context.task.id == os.environ.get("AGENT_FAIL"):
        raise RuntimeError("told to fail")
    return demo_agent(context)
'''

PLAN = {
    "plan_id": "cli-chain",
    "goal": "Exercise the CLI",
    "tasks": [
        {"id": "t1", "description": "First"},
        {"id": "t2", "description": "Second", "needs": {"a": "t1"}},
        {"id": "t3", "description": "Third", "needs": {"b": "t2"}},
        {"id": "t4", "description": "Fourth", "needs": {"c": "t3"}},
    ],
}


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    agent = tmp_path / "test_agent.py"
    agent.write_text(AGENT)
    log = tmp_path / "calls.log"
    monkeypatch.setenv("AGENT_LOG", str(log))
    monkeypatch.setenv("AGENT_READY", str(tmp_path / "ready"))
    monkeypatch.delenv("AGENT_HANG", raising=False)
    monkeypatch.delenv("AGENT_FAIL", raising=False)
    return {"plan": plan, "agent": agent, "log": log, "journal": tmp_path / "j.jsonl"}


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def calls(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


class TestExecute:
    def test_done_exits_0(self, setup: dict[str, Path]) -> None:
        """A plan whose tasks all succeed exits 0 and says so."""
        result = run("execute", str(setup["plan"]), "--journal", str(setup["journal"]))
        assert result.exit_code == 0, result.output
        assert "completed: 4/4 tasks succeeded" in result.stdout
        assert replay(setup["journal"], "strict").status == "completed"

    def test_failed_for_good_exits_1_and_resume_finishes(
        self, setup: dict[str, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A task that fails for good exits 1; --resume then finishes without repeats."""
        monkeypatch.setenv("AGENT_FAIL", "t3")
        agent = f"{setup['agent']}:agent"
        args = ["execute", str(setup["plan"]), "--journal", str(setup["journal"]), "--agent", agent]
        first = run(*args, "--backoff", "0")
        assert first.exit_code == 1
        assert "failed t3: RuntimeError: told to fail" in first.stdout
        assert "blocked t4 (by t3)" in first.stdout
        monkeypatch.delenv("AGENT_FAIL")
        second = run(*args, "--resume")
        assert second.exit_code == 0, second.output
        assert calls(setup["log"]) == ["t1", "t2", "t3", "t3", "t3", "t3", "t4"]

    def test_any_plan_format_loads(self, setup: dict[str, Path], tmp_path: Path) -> None:
        """A plan inside a model's prose and code fence executes like the canonical file."""
        text = tmp_path / "answer.md"
        text.write_text("Here is the plan:\n```json\n" + json.dumps(PLAN) + "\n```\nDone.")
        result = run("execute", str(text), "--journal", str(setup["journal"]))
        assert result.exit_code == 0, result.output
        assert replay(setup["journal"]).plan_id == "cli-chain"

    def test_json_output(self, setup: dict[str, Path]) -> None:
        """--format json prints the result, outputs included."""
        result = run(
            "execute", str(setup["plan"]), "--journal", str(setup["journal"]), "--format", "json"
        )
        data = json.loads(result.stdout)
        assert data["status"] == "completed" and data["plan_id"] == "cli-chain"
        assert set(data["outputs"]) == {"t1", "t2", "t3", "t4"}

    @pytest.mark.parametrize(
        ("extra", "message"),
        [
            (["--resume", "--from", "Thrid"], "Did you mean: 'Third'"),  # unknown task
            (["--agent", "no_such_module_xyz:agent"], "cannot import the agent module"),
            (["--agent", "harness.execute:nope"], "has no 'nope'"),
            (["--agent", "just-a-name"], "module:callable"),
        ],
    )
    def test_unusable_input_exits_2_in_one_line(
        self, setup: dict[str, Path], extra: list[str], message: str
    ) -> None:
        """Unusable input: one error line on stderr, exit 2, no traceback."""
        run("execute", str(setup["plan"]), "--journal", str(setup["journal"]))
        result = run("execute", str(setup["plan"]), "--journal", str(setup["journal"]), *extra)
        assert result.exit_code == 2
        assert message in result.stderr
        assert "Traceback" not in result.output and len(result.stderr.splitlines()) == 1

    def test_plan_id_mismatch_exits_2_and_force_accepts(
        self, setup: dict[str, Path], tmp_path: Path
    ) -> None:
        """A journal of another plan is refused (exit 2) unless --force."""
        run("execute", str(setup["plan"]), "--journal", str(setup["journal"]))
        other = tmp_path / "other.json"
        other.write_text(json.dumps({**PLAN, "plan_id": "another"}))
        args = ["execute", str(other), "--journal", str(setup["journal"]), "--resume"]
        refused = run(*args)
        assert refused.exit_code == 2 and "belongs to plan 'cli-chain'" in refused.stderr
        assert run(*args, "--force").exit_code == 0

    def test_bad_plan_file_exits_2(self, setup: dict[str, Path], tmp_path: Path) -> None:
        """A plan file that is not a plan exits 2 with one line."""
        bad = tmp_path / "bad.json"
        bad.write_text("[1, 2]")
        result = run("execute", str(bad), "--journal", str(setup["journal"]))
        assert result.exit_code == 2 and "planeval: error:" in result.stderr


class TestJournalCommands:
    def test_show_lists_tasks_with_status_and_attempts(
        self, setup: dict[str, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`journal show` prints each task's status, attempts and duration."""
        monkeypatch.setenv("AGENT_FAIL", "t2")
        agent = f"{setup['agent']}:agent"
        run(
            "execute",
            str(setup["plan"]),
            "-j",
            str(setup["journal"]),
            "--agent",
            agent,
            "--backoff",
            "0",
            "--max-attempts",
            "2",
        )
        result = run("journal", "show", str(setup["journal"]))
        assert result.exit_code == 0
        rows = {line.split()[0]: line.split()[1:3] for line in result.stdout.splitlines()[3:7]}
        assert rows == {
            "t1": ["succeeded", "1"],
            "t2": ["failed", "2"],
            "t3": ["blocked", "0"],
            "t4": ["blocked", "0"],
        }
        data = json.loads(run("journal", "show", str(setup["journal"]), "--format", "json").stdout)
        assert data["failed"] == ["t2"] and data["plan_id"] == "cli-chain"

    def test_verify(self, setup: dict[str, Path]) -> None:
        """verify: 0 when clean; damage listed; --strict exits 1 on damage; 2 when missing."""
        journal = setup["journal"]
        run("execute", str(setup["plan"]), "--journal", str(journal))
        clean = run("journal", "verify", str(journal), "--strict")
        assert clean.exit_code == 0 and clean.stdout.startswith("ok:")
        with open(journal, "ab") as handle:
            handle.write(b"\xff\xfe not a line\n")
        tolerant = run("journal", "verify", str(journal))
        assert tolerant.exit_code == 0 and "invalid UTF-8" in tolerant.stdout
        strict = run("journal", "verify", str(journal), "--strict")
        assert strict.exit_code == 1
        assert "line 11" in strict.stdout
        missing = run("journal", "verify", str(journal) + ".nope")
        assert missing.exit_code == 2 and "cannot read the journal" in missing.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_interrupts_and_resume_finishes(setup: dict[str, Path], sig: signal.Signals) -> None:
    """Ctrl+C or SIGTERM: exit 130, plan_interrupted journalled; a resume skips done tasks."""
    env = {**os.environ, "AGENT_HANG": "t3"}
    command = [
        sys.executable,
        "-m",
        "harness",
        "execute",
        str(setup["plan"]),
        "--journal",
        str(setup["journal"]),
        "--agent",
        f"{setup['agent']}:agent",
    ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ready = Path(env["AGENT_READY"])
    deadline = time.monotonic() + 60
    while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert ready.exists(), process.communicate()
    process.send_signal(sig)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    last = json.loads(setup["journal"].read_bytes().splitlines()[-1])
    assert last["event"] == "plan_interrupted" and last["reason"] == sig.name
    assert last["running"] == ["t3"]

    env.pop("AGENT_HANG")
    resumed = subprocess.run(
        [*command, "--resume"], env=env, capture_output=True, timeout=60, check=False
    )
    assert resumed.returncode == 0, resumed.stderr
    assert calls(setup["log"]) == ["t1", "t2", "t3", "t3", "t4"]
    assert replay(setup["journal"], "strict").status == "completed"
