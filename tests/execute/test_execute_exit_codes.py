"""Exit codes of `planeval execute` for broken agents and unusable journal paths, in real
processes: one line, the documented code, no traceback, no journal written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLAN = {"plan_id": "exit-codes", "goal": "Exit codes", "tasks": [{"id": "a", "description": "A"}]}


def _execute(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    done = subprocess.run(
        [sys.executable, "-m", "harness", "execute", str(plan), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("def agent(context)\n    return 1\n", "SyntaxError: expected ':'"),
        ("raise RuntimeError('no config file')\n", "RuntimeError: no config file"),
        ("import not_a_module_anywhere\n", "No module named 'not_a_module_anywhere'"),
    ],
    ids=["syntax error", "error at import", "missing import"],
)
def test_a_broken_agent_module_exits_2_before_any_task(
    tmp_path: Path, source: str, said: str
) -> None:
    (tmp_path / "broken.py").write_text(source)
    journal = tmp_path / "j.jsonl"
    code, stderr = _execute(
        tmp_path, "--journal", str(journal), "--agent", f"{tmp_path / 'broken.py'}:agent"
    )
    assert code == 2, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1
    assert stderr.startswith("planeval: error: ") and said in stderr
    assert not journal.exists()


@pytest.mark.parametrize("missing", ["PLANEVAL_AGENT_MODEL", "OPENAI_API_KEY"])
def test_a_misconfigured_model_agent_exits_2_before_any_task(tmp_path: Path, missing: str) -> None:
    env = {**os.environ, "PLANEVAL_AGENT_MODEL": "m", "OPENAI_API_KEY": "sk-not-a-key"}
    env.pop("PLANEVAL_AGENT_API_KEY_ENV", None)
    env.pop(missing)
    journal = tmp_path / "j.jsonl"
    agent = "harness.execute:model_agent"
    code, stderr = _execute(tmp_path, "--journal", str(journal), "--agent", agent, env=env)
    assert code == 2, stderr
    assert missing in stderr and "no task was started" in stderr
    assert "Traceback" not in stderr and not journal.exists()


def test_a_symlink_loop_as_journal_is_a_path_error(tmp_path: Path) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    code, stderr = _execute(tmp_path, "--journal", str(loop))
    assert code == 2, stderr
    assert "Too many levels of symbolic links" in stderr and "Traceback" not in stderr
