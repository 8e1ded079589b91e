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
from harness.journal import JournalInUseError, JournalLock, replay
from tests.execute._execute_helpers import chain_plan

AGENT = '''
"""Hand-written test agent: a little slow, and hangs on AGENT_HANG until killed."""
import os
import time
from pathlib import Path

from harness.execute import demo_agent


def agent(context):
    log = os.environ.get("AGENT_LOG")
    if log:  # every real call, outside planeval's control (a payment would be made here)
        with open(log, "a") as calls:
            calls.write(f"{context.task.id} {os.getpid()}\\n")
    if context.task.id == os.environ.get("AGENT_HANG"):
        Path(os.environ["AGENT_READY"]).write_text("ready")
        time.sleep(60)
    time.sleep(float(os.environ.get("AGENT_SLEEP", "0.02")))
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


def _command(tmp_path: Path, journal: Path | str) -> list[str]:
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
                # The holder is named by pid (from the kernel's lock table).
                assert "in use by another execution (" in err
                assert "(pid " in err or "(another process)" in err
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
    assert [p.name for p in workdir.iterdir() if p.name.startswith("j.")] == ["j.jsonl"]
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


SPELLINGS = ["same path", "symlink", "hard link", "relative path", "all at once", "bind mount"]
BIND = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
"""Run a command in a mount namespace of its own where folder $1 is also seen at $2."""


def _bind_mounts_allowed(tmp_path: Path) -> bool:
    """Whether this process may make a private mount namespace and bind a folder in it (root,
    or a container that allows it)."""
    seen = tmp_path / "bind-probe"
    seen.mkdir()
    probe = ["unshare", "-m", "sh", "-c", BIND, "bind", str(tmp_path), str(seen), "true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except OSError:  # no unshare on this system
        return False
    finally:
        seen.rmdir()


def _through(workdir: Path, name: str, command: list[str]) -> list[str]:
    """``command``, in a namespace of its own where ``workdir`` is bound at ``workdir/bind``
    when ``name`` goes through that bind."""
    bind = workdir / "bind"
    if not name.startswith(str(bind) + os.sep):
        return command
    return ["unshare", "-m", "sh", "-c", BIND, "bind", str(workdir), str(bind), *command]


def _spellings(workdir: Path, journal: Path, spelling: str) -> list[str]:
    """Three names for one journal, as three `execute` processes are given them; relative
    names are relative to the processes' working folder, ``workdir / "cwd"``."""
    relative = f"../{journal.name}"
    if spelling == "same path":
        return [str(journal)] * 3
    if spelling == "symlink":  # the journal does not exist yet: the link dangles
        link = workdir / f"link-{journal.name}"
        link.symlink_to(journal)
        return [str(journal), str(link), str(link)]
    if spelling == "hard link":  # a hard link needs the file: an empty journal
        journal.touch()
        twin = workdir / "cwd" / f"twin-{journal.name}"
        os.link(journal, twin)
        return [str(journal), str(twin), str(twin)]
    if spelling == "relative path":
        return [str(journal), relative, relative]
    if spelling == "bind mount":  # the folder bound elsewhere: same inode, another mount
        bound = str(workdir / "bind" / journal.name)
        return [str(journal), bound, bound]
    link = workdir / f"link-{journal.name}"
    link.symlink_to(journal)
    journal.touch()
    os.link(journal, workdir / "cwd" / f"twin-{journal.name}")
    return [str(link), f"twin-{journal.name}", relative]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_one_journal_under_several_names_is_executed_once(workdir: Path, spelling: str) -> None:
    """Three resumes started within milliseconds, through the same path, a symlink, a hard
    link, a relative path or a bind mount of the folder (each of those two processes in a
    mount namespace of its own): every task calls the agent once, whoever wins the lock."""
    if spelling == "bind mount" and not _bind_mounts_allowed(workdir):
        pytest.skip("bind mounts need a private mount namespace (unshare -m), not allowed here")
    (workdir / "cwd").mkdir()
    (workdir / "bind").mkdir()
    codes_seen: Counter[int] = Counter()
    for trial in range(3):
        journal = workdir / f"j{trial}.jsonl"
        calls = workdir / f"calls{trial}.log"
        # 0.25 s a task: an execution lasts longer than the start-up spread of three
        # processes on a loaded machine, so that they overlap and the lock is contended
        env = {**os.environ, "AGENT_LOG": str(calls), "AGENT_SLEEP": "0.25"}
        names = _spellings(workdir, journal, spelling)
        procs = [
            subprocess.Popen(
                _through(workdir, name, _command(workdir, name)),
                cwd=workdir / "cwd",
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for name in names
        ]
        outcomes = [(p.returncode, p.communicate(timeout=120)[1].decode()) for p in procs]
        outcomes = [(p.returncode, err) for p, (_, err) in zip(procs, outcomes, strict=True)]
        codes = sorted(code for code, _ in outcomes)
        codes_seen.update(codes)
        assert set(codes) <= {0, 5} and 0 in codes, outcomes
        agent_calls = Counter(line.split()[0] for line in calls.read_text().splitlines())
        assert agent_calls == Counter({f"t{i}": 1 for i in range(6)}), (
            f"trial {trial}: {agent_calls}, exit codes {codes}"
        )
        assert replay(journal, "strict").status == "completed"
    assert codes_seen[5] >= 1, f"the processes never overlapped: {codes_seen}"
