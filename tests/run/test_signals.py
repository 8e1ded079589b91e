"""SIGINT and SIGTERM end ``planeval run`` the same way, every time: the rows written so far
are kept, run.json says ``"interrupted": true``, exit 130 and one line saying how to finish.

Each signal is sent 20 times, at a random moment after the first row, to a live run against
a command planner that answers after 50 ms, four runs at a time.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.testing import make_project, sound_plan

TRIALS = 20
CASES = 200
AT_ONCE = 4


def _start(root: Path, out: Path) -> subprocess.Popen[str]:
    """A live run (200 cases) of a command planner that answers a sound plan after 50 ms."""
    root.mkdir(parents=True)
    answer = root / "answer.json"
    answer.write_text(json.dumps(sound_plan()), encoding="utf-8")
    command = shlex.join(["sh", "-c", f"sleep 0.05; cat {shlex.quote(str(answer))}"])
    path = make_project(
        root,
        models=[{"id": "sh", "provider": "command", "command": command}],
        cases=[{"id": f"c{i:02d}", "goal": f"Goal {i}"} for i in range(CASES)],
    )
    argv = [sys.executable, "-m", "harness", "run", str(path), "--live", "--out", str(out)]
    return subprocess.Popen(
        [*argv, "--concurrency", "2"],
        env={**os.environ, "LIVE_EVALS": ""},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _rows(results: Path) -> int:
    try:
        return len(results.read_text().splitlines())
    except FileNotFoundError:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_always_ends_the_run_the_same_way(tmp_path: Path, sig: signal.Signals) -> None:
    """20 trials: exit 130, rows kept and counted in run.json, interrupted true, and one line
    on stderr naming the signal, the rows kept and the command that finishes the run."""
    jitter = random.Random(sig.value)
    outcomes = []
    for batch in range(0, TRIALS, AT_ONCE):
        trials = []
        for trial in range(batch, batch + AT_ONCE):
            root = tmp_path / f"t{trial}"
            trials.append((root / "run", _start(root, root / "run")))
        # Each run gets the signal at its own random moment 0-300 ms after its first row.
        due: dict[int, float] = {}
        deadline = time.monotonic() + 120
        while len(due) < len(trials) or any(t != -1.0 for t in due.values()):
            now = time.monotonic()
            assert now < deadline, "a run wrote no row in 120 s"
            for i, (out, proc) in enumerate(trials):
                if i not in due and _rows(out / "results.jsonl") >= 1:
                    due[i] = now + jitter.uniform(0.0, 0.3)
                elif due.get(i, -1.0) != -1.0 and now >= due[i]:
                    proc.send_signal(sig)
                    due[i] = -1.0
            time.sleep(0.01)
        for out, proc in trials:
            try:
                _, err = proc.communicate(timeout=60)
            finally:
                proc.kill()
            outcomes.append((out, proc.returncode, err))
    for out, code, err in outcomes:
        assert code == 130, err
        manifest = json.loads((out / "run.json").read_text())
        rows = _rows(out / "results.jsonl")
        assert manifest["interrupted"] is True and manifest["finished_at"] is None, err
        assert 1 <= rows < CASES and sum(manifest["counts"].values()) == rows
        assert "Traceback" not in err
        lines = [line for line in err.splitlines() if line.startswith("planeval: error:")]
        (line,) = lines
        assert f"interrupted ({sig.name}): {rows} of {CASES} rows kept in {out}" in line
        assert (
            "finish with: planeval run" in line and "--record-mode new_episodes" in line
        )  # only the gaps
    print(f"{sig.name}: {len(outcomes)} of {TRIALS} trials exited 130 with run.json interrupted")
