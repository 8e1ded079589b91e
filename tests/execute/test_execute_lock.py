"""One executor per journal: two `execute` processes at once, and a SIGKILLed holder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from harness.execute import execute
from harness.journal import JournalInUseError, JournalLock, lock_path, replay
from tests.execute._execute_helpers import chain_plan

AGENT = '''
"""Hand-written test agent: a little slow, and hangs on AGENT_HANG until killed."""
import os
import time
from pathlib import Path

from harness.execute import demo_agent


def agent(context):
    if context.task.id == os.environ.get("AGENT_HANG"):
        Path(os.environ["AGENT_READY"]).write_text("ready")
        time.sleep(60)
    time.sleep(0.02)
    return demo_agent(context)
'''

PLAN = {
    "plan_id": "lock-chain",
    "goal": "Exercise the journal lock",
    "tasks": [
        {"id": f"t{i}", "description": f"Step {i}", **({"needs": {"p": f"t{i - 1}"}} if i else {})}
        for i in range(6)
    ],
}


def _command(tmp_path: Path, journal: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "harness",
        "execute",
        str(tmp_path / "plan.json"),
        "--journal",
        str(journal),
        "--resume",
        "--agent",
        str(tmp_path / "lock_agent.py") + ":agent",
        "--max-concurrency",
        "1",
    ]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    (tmp_path / "lock_agent.py").write_text(AGENT)
    monkeypatch.setenv("AGENT_READY", str(tmp_path / "ready"))
    monkeypatch.delenv("AGENT_HANG", raising=False)
    return tmp_path


def _started_per_task(journal: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    for line in journal.read_text().splitlines():
        entry = json.loads(line)
        if entry["event"] == "task_started":
            counts[entry["task_id"]] += 1
    return counts


def test_two_processes_started_together_never_both_execute(workdir: Path) -> None:
    in_use = 0
    for trial in range(8):
        journal = workdir / f"j{trial}.jsonl"
        procs = [
            subprocess.Popen(
                _command(workdir, journal), stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            for _ in range(2)
        ]
        outcomes = [(p.communicate(timeout=60)[1].decode(), p.returncode) for p in procs]
        outcomes = [(code, err) for err, code in outcomes]
        codes = sorted(code for code, _ in outcomes)
        assert codes in ([0, 0], [0, 5]), outcomes
        started = _started_per_task(journal)
        assert set(started) == {f"t{i}" for i in range(6)}
        assert max(started.values()) == 1, f"a task ran twice in trial {trial}: {started}"
        replay(journal, "strict")
        for code, err in outcomes:
            if code == 5:
                in_use += 1
                assert "in use by another execution (pid " in err
                assert len(err.strip().splitlines()) == 1
    assert in_use >= 1, "the two processes never overlapped: the race was not exercised"


def test_a_sigkilled_holder_never_blocks_the_resume(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = workdir / "j.jsonl"
    env = {**os.environ, "AGENT_HANG": "t3"}
    holder = subprocess.Popen(
        _command(workdir, journal), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    while not (workdir / "ready").exists():
        assert time.monotonic() < deadline, "the holder never reached t3"
        time.sleep(0.02)
    second = subprocess.run(_command(workdir, journal), capture_output=True, timeout=60)
    assert second.returncode == 5
    assert f"pid {holder.pid}, started 20" in second.stderr.decode()
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)
    assert lock_path(journal).exists()  # the stale lock file stays; its lock is gone
    resumed = subprocess.run(_command(workdir, journal), capture_output=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr.decode()
    state = replay(journal, "strict")
    assert state.status == "completed"
    assert len(state.completed) == 6


def test_a_second_execution_in_the_same_process_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    with JournalLock(journal), pytest.raises(JournalInUseError) as caught:
        execute(chain_plan(3), journal)
    assert caught.value.holder_pid == os.getpid()
    assert not journal.exists()  # refused before anything was written
    assert execute(chain_plan(3), journal).ok  # released: the next one runs
