"""``gate`` and ``baseline`` refuse an incomplete run: exit 3, how many rows are missing and
the command that finishes it (run as a user would, in a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.gate import completeness
from harness.report import load_run
from harness.testing import make_project, sound_plan, write_response

PLAN = json.dumps(sound_plan())


def planeval(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete replay of 3 cases x 2 samples (6 rows) of one command model."""
    root = tmp_path_factory.mktemp("project")
    make_project(
        root,
        models=[{"id": "rb", "provider": "command", "command": "agentic plan --json"}],
        cases=[{"id": f"c{i}", "goal": f"Goal {i}"} for i in range(3)],
        extra={"samples": 2},
    )
    for i in range(3):
        for sample in range(2):
            write_response(root, "demo", "rb", f"c{i}", PLAN, sample=sample)
    done = planeval("run", "evals/demo.yaml", "--out", "reports/runs/full", cwd=root)
    assert done.returncode == 0, done.stderr
    return root / "reports" / "runs" / "full"


def _copy(run: Path, name: str, *, keep: int, interrupted: bool) -> Path:
    """The run cut to its first ``keep`` rows, marked interrupted or not."""
    out = run.parent / name
    out.mkdir()
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:keep]))
    manifest = json.loads((run / "run.json").read_text())
    manifest["interrupted"] = interrupted
    if interrupted:
        manifest["finished_at"] = None
    (out / "run.json").write_text(json.dumps(manifest))
    return out


@pytest.mark.parametrize("interrupted", [True, False], ids=["interrupted", "rows-missing"])
@pytest.mark.parametrize("command", ["gate", "baseline"])
def test_incomplete_run_is_refused(finished_run: Path, command: str, interrupted: bool) -> None:
    """2 of 6 rows: exit 3, '4 of 6 rows are missing', the command that finishes the run,
    and no baseline written."""
    name = f"cut-{command}-{interrupted}"
    run = _copy(finished_run, name, keep=2, interrupted=interrupted)
    root = finished_run.parents[2]
    done = planeval(command, str(run), cwd=root)
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "4 of 6 rows are missing" in line
    assert ("interrupted" in line) == interrupted
    assert "planeval run evals/demo.yaml --model rb --samples 2" in line
    assert "Traceback" not in done.stderr
    assert not (root / "reports" / "baselines" / "demo.json").exists()


def test_complete_run_is_accepted(finished_run: Path) -> None:
    """The finished run is complete, and baseline then gate accept it."""
    state = completeness(load_run(finished_run))
    assert state.complete and state.expected == 6 and state.rows == 6
    root = finished_run.parents[2]
    assert planeval("baseline", str(finished_run), cwd=root).returncode == 0
    assert planeval("gate", str(finished_run), "--no-new-failures", cwd=root).returncode == 0


def test_runs_without_a_case_count_use_the_suite_file(finished_run: Path) -> None:
    """A run.json written before it recorded the case count is checked against the suite."""
    run = _copy(finished_run, "old-format", keep=4, interrupted=False)
    manifest = json.loads((run / "run.json").read_text())
    del manifest["cases"]
    (run / "run.json").write_text(json.dumps(manifest))
    state = completeness(load_run(run))
    assert (state.expected, state.missing) == (6, 2)
