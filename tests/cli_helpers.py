"""Run the ``planeval`` command in-process, as a user's shell would, and capture its output
(``run_cli``), or as a separate process (``planeval_process``)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness._cli.main import main


@dataclass
class Result:
    """What one command printed and returned."""

    code: int
    out: str
    err: str


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    """Call ``planeval ARGS...`` and return its exit code, stdout and stderr."""
    capsys.readouterr()
    try:
        main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    else:  # pragma: no cover - main always exits
        code = 0
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


def planeval_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``planeval ARGS`` as its own process in ``cwd`` (``python -m harness``), text output."""
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def replayed_run_script(root: Path) -> str:
    """The start of a ``python -c`` script that makes a one-case project in ``root`` (a sound
    recorded plan), runs it with ``planeval run ... --out root/run`` and prints ``exit N`` to
    stderr: a test appends what it inspects in that fresh process (``sys.modules``, say)."""
    return f"""
import json, sys
from pathlib import Path
from harness.testing import make_project, sound_plan, write_response
from harness._cli.main import main
root = Path({str(root)!r})
suite = make_project(root)
write_response(root, "demo", "planner", "c1", json.dumps(sound_plan()))
try:
    main(["run", str(suite), "--out", str(root / "run")])
except SystemExit as done:
    print("exit", done.code, file=sys.stderr)
"""
