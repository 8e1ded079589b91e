"""The ``planeval run`` table: every figure readable, rates never rounded to 100% or 0%."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness._cli.main import app
from harness.testing import make_project, sound_plan, write_response

PLAN = json.dumps(sound_plan())
CYCLE = json.dumps({"tasks": [{"id": "x", "description": "loops", "depends_on": ["x"]}]})


def _project(tmp_path: Path, passes: int, fails: int) -> Path:
    """One dataset model, one case, ``passes + fails`` samples (provenance: handwritten)."""
    path = make_project(tmp_path, extra={"samples": passes + fails})
    for sample in range(passes + fails):
        text = PLAN if sample < passes else CYCLE
        write_response(tmp_path, "demo", "planner", "c1", text, sample=sample)
    return path


def test_one_failure_in_300_is_not_100_percent(tmp_path: Path) -> None:
    """299 passes of 300 read 99.7% in the table, never 100%."""
    result = CliRunner().invoke(app, ["run", str(_project(tmp_path, 299, 1))])
    assert result.exit_code == 1
    (row,) = [line for line in result.stdout.splitlines() if "planner" in line]
    cells = [cell.strip() for cell in row.split("│")]
    assert cells[3] == "99.7%"  # suite, model, then the pass rate
