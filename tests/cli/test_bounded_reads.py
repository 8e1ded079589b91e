"""Every command that reads a user's file reads at most --max-bytes + 1 bytes of it, whatever
the file is: /dev/zero (endless, size 0) is refused as over the limit, a named pipe nobody
writes to reads as empty instead of hanging. Real processes, each with a timeout, so that a
regression fails instead of hanging the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TIMEOUT = 60


def _planeval(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=cwd,
    )


def _commands(source: str, tmp_path: Path) -> dict[str, list[str]]:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"goal": "g", "tasks": [{"id": "a", "description": "A"}]}))
    limit = ["--max-bytes", "4096"]
    journal, root = str(tmp_path / "j.jsonl"), str(tmp_path)
    return {
        "check": ["check", source, *limit],
        "execute": ["execute", source, "--journal", journal, *limit],
        "score": ["score", source, "--reference", str(plan), "--max-bytes", "4096"],
        "score reference": ["score", str(plan), "--reference", source, "--max-bytes", "4096"],
        "import ruby-vcr": ["import", "ruby-vcr", source, "--root", root, *limit],
        "import taskbench tools": [
            "import", "taskbench", str(plan), "--tools", source, "--root", str(tmp_path),
            "--max-bytes", "4096",
        ],
    }  # fmt: skip


COMMANDS = [
    "check",
    "execute",
    "score",
    "score reference",
    "import ruby-vcr",
    "import taskbench tools",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_dev_zero_is_over_the_limit_not_read_forever(tmp_path: Path, command: str) -> None:
    done = _planeval(*_commands("/dev/zero", tmp_path)[command], cwd=tmp_path)
    said = done.stdout + done.stderr  # check reports an unusable plan on stdout
    assert done.returncode == 2, said
    assert "/dev/zero" in said and "over the 4 KiB limit" in said
    assert "Traceback" not in said


@pytest.mark.parametrize("command", COMMANDS)
def test_a_pipe_nobody_writes_to_does_not_hang(tmp_path: Path, command: str) -> None:
    """Read as an empty file: unusable input (exit 2), or, for `score`'s answer, an empty
    answer that scores as unparseable (exit 1, as any empty model answer does)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = _planeval(*_commands(str(fifo), tmp_path)[command], cwd=tmp_path)
    said = done.stdout + done.stderr
    if command == "score":
        assert done.returncode == 1 and "status: unparseable" in said, said
    else:
        assert done.returncode == 2, said
        assert str(fifo) in said
    assert "Traceback" not in said
