"""Bounded crash loops: a total attempts budget over every execution of a journal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.execute import EXHAUSTED, execute
from harness.journal import replay
from tests.execute._execute_helpers import RecordingAgent, chain_plan

KILLER = '''
"""Hand-written test agent: kills its own process (SIGKILL) on AGENT_KILL."""
import os
import signal

from harness.execute import demo_agent


def agent(context):
    if context.task.id == os.environ.get("AGENT_KILL"):
        os.kill(os.getpid(), signal.SIGKILL)
    return demo_agent(context)
'''


def _cli(tmp_path: Path, *extra: str, kill: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "AGENT_KILL"}
    if kill:
        env["AGENT_KILL"] = kill
    command = [
        sys.executable,
        "-m",
        "harness",
        "execute",
        str(tmp_path / "plan.json"),
        "--journal",
        str(tmp_path / "j.jsonl"),
        "--agent",
        str(tmp_path / "killer.py") + ":agent",
        "--max-total-attempts",
        "3",
        *extra,
    ]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


def test_a_task_that_kills_the_process_is_failed_for_good_after_the_budget(
    tmp_path: Path,
) -> None:
    (tmp_path / "plan.json").write_text(json.dumps(chain_plan(4, plan_id="crash-loop").to_dict()))
    (tmp_path / "killer.py").write_text(KILLER)
    codes = [_cli(tmp_path, kill="t2").returncode]
    codes += [_cli(tmp_path, "--resume", kill="t2").returncode for _ in range(2)]
    assert codes == [-9, -9, -9]  # three real SIGKILLs, each mid-attempt of t2
    spent = _cli(tmp_path, "--resume", kill="t2")
    assert spent.returncode == 1, spent.stderr
    assert EXHAUSTED in spent.stdout and "blocked t3 (by t2)" in spent.stdout
    state = replay(tmp_path / "j.jsonl", "strict")
    assert state.tasks["t2"].status == "failed" and state.tasks["t2"].attempts == 3
    assert state.tasks["t2"].error_type == EXHAUSTED
    assert state.blocked == {"t3": "t2", "t4": "t2"}

    again = _cli(tmp_path, "--resume", kill="t2")  # a plain resume does not try it again
    assert again.returncode == 1
    assert replay(tmp_path / "j.jsonl").tasks["t2"].attempts == 3

    shown = subprocess.run(
        [sys.executable, "-m", "harness", "journal", "show", str(tmp_path / "j.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    row = next(line for line in shown.stdout.splitlines() if line.startswith("t2 "))
    assert row.split()[1:3] == ["failed", "3"]

    fixed = _cli(tmp_path, "--resume", "--from", "t2", kill=None)  # asked for: fresh budget
    assert fixed.returncode == 0, fixed.stderr
    state = replay(tmp_path / "j.jsonl", "strict")
    assert state.status == "completed" and state.tasks["t2"].attempts == 4


def test_reset_attempts_gives_a_spent_task_a_fresh_budget(journal: Path) -> None:
    plan = chain_plan(3)
    failing = RecordingAgent({"t2": -1})
    first = execute(plan, journal, agent=failing, max_attempts=2, max_total_attempts=3, backoff=0)
    assert first.failed["t2"].error_type == "RuntimeError"
    second = execute(
        plan, journal, agent=failing, resume=True, max_attempts=2, max_total_attempts=3, backoff=0
    )
    assert failing.calls["t2"] == 3  # 2 + 1: the total budget cut the second execution short
    assert second.failed["t2"].error_type == "RuntimeError"
    third = execute(plan, journal, agent=failing, resume=True, max_total_attempts=3)
    assert failing.calls["t2"] == 3 and third.failed["t2"].error_type == EXHAUSTED
    healed = RecordingAgent()
    with pytest.raises(ValueError):
        execute(plan, journal, agent=healed, reset_attempts=True, max_total_attempts=0)
    fourth = execute(
        plan, journal, agent=healed, resume=True, reset_attempts=True, max_total_attempts=3
    )
    assert fourth.ok and healed.calls["t2"] == 1
    assert fourth.attempts["t2"] == 4  # attempt numbers keep counting
    assert replay(journal).tasks["t2"].attempts_since_reset == 1
