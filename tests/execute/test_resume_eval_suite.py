"""``resume-eval``: crash-and-resume scenarios over a suite's recorded plans, as a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.execute import RESUME_SUFFIX, resume_eval_suite, resume_row
from harness.run import ResultRow
from harness.suite import load_suite
from harness.testing import make_project, sound_plan, write_response
from tests.cli_helpers import run_cli

CYCLE = {"tasks": [{"id": "a", "depends_on": ["b"]}, {"id": "b", "depends_on": ["a"]}]}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A hand-written suite: a sound plan, a cyclic plan, and a case never recorded."""
    path = make_project(
        tmp_path,
        cases=[
            {"id": "sound", "goal": "g"},
            {"id": "cycle", "goal": "g"},
            {"id": "none", "goal": "g"},
        ],
    )
    write_response(tmp_path, "demo", "planner", "sound", json.dumps(sound_plan(tasks=4)))
    write_response(tmp_path, "demo", "planner", "cycle", json.dumps(CYCLE))
    return path


def test_rows_carry_one_check_per_crash_mode(project: Path, tmp_path: Path) -> None:
    """A sound plan passes every crash mode; each mode is a check of the row."""
    result = resume_eval_suite(load_suite(project), out=tmp_path / "run")
    rows = {row.case: row for row in result.rows}
    sound = rows["sound"]
    assert sound.status == "pass"
    assert sound.checks == {
        "executable": "pass",
        "resume_raise": "pass",
        "resume_interrupt": "pass",
        "resume_torn_write": "pass",
        "resume_kill": "pass",  # the first plans also get a real SIGKILL at their middle task
        "resume_no_rerun": "pass",
        "resume_outputs_equal": "pass",
        "resume_exact_rerun": "pass",
        "resume_from_closure": "pass",
        "resume_torn_tail": "pass",
        "resume_strict_replay": "pass",
    }
    assert sound.detail == "13 crash scenarios"  # 4 tasks x 3 modes + 1 kill
    assert sound.suite == "demo" + RESUME_SUFFIX
    assert result.manifest.suite == "demo.resume"


def test_a_plan_that_cannot_run_fails_and_missing_stays_missing(
    project: Path, tmp_path: Path
) -> None:
    """A cyclic plan fails 'executable'; a case without a recording stays missing."""
    result = resume_eval_suite(load_suite(project), out=tmp_path / "run", modes=("raise",))
    rows = {row.case: row for row in result.rows}
    assert rows["cycle"].status == "fail"
    assert rows["cycle"].violations[0]["check"] == "executable"
    assert rows["none"].status == "missing"
    assert result.exit_code == 3


def test_a_dependent_built_on_a_failure_is_rebuilt_at_every_crash_point() -> None:
    """A dependent that ran on a failed input (on_failure: continue) runs again when the
    resume fixes its input: every property holds at every crash point (it broke
    ``resume_outputs_equal`` at 'a' before)."""
    plan = {
        "tasks": [
            {"id": "a", "on_failure": "continue"},
            {"id": "b", "depends_on": ["a"], "needs": {"x": "a"}},
        ]
    }
    row = ResultRow(suite="s", case="c", model="m", sample=0, status="pass", plan=plan)
    out = resume_row(row, modes=("raise",))
    assert out.status == "pass" and out.violations == []
    assert out.checks["resume_raise"] == "pass" and out.checks["resume_outputs_equal"] == "pass"
    assert out.checks["resume_no_rerun"] == "pass" and out.checks["resume_exact_rerun"] == "pass"
    assert out.checks["resume_torn_tail"] == "skip"  # torn_write was not run


def test_cli_exit_code_and_table(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    """The command prints the table with the .resume label and exits like run (3: missing)."""
    result = run_cli(
        capsys, "resume-eval", str(project), "--mode", "raise", "--out", str(tmp_path / "r")
    )
    assert result.code == 3
    assert "demo.resume" in result.out
    assert run_cli(capsys, "resume-eval", str(project), "--mode", "explode").code == 2


def test_worker_processes_give_the_same_rows(tmp_path: Path) -> None:
    """--workers 2 runs the scenarios in two processes: the rows are the ones a single
    process writes, in the same order; the SIGKILL goes to the first executable plans."""
    cases = [{"id": f"c{i}", "goal": "g"} for i in range(6)]
    project = make_project(tmp_path, cases=cases)
    write_response(tmp_path, "demo", "planner", "c0", json.dumps(CYCLE))
    for i in range(1, 6):
        write_response(tmp_path, "demo", "planner", f"c{i}", json.dumps(sound_plan(tasks=i)))
    suite = load_suite(project)
    one = resume_eval_suite(suite, out=tmp_path / "one", workers=1)
    two = resume_eval_suite(suite, out=tmp_path / "two", workers=2)

    def comparable(path: Path) -> list[dict[str, object]]:
        lines = (path / "results.jsonl").read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items() if k != "latency_ms"} for line in lines]

    assert comparable(two.run_dir) == comparable(one.run_dir)
    killed = [row.case for row in two.rows if "resume_kill" in row.checks]
    assert killed == ["c1", "c2", "c3"]  # c0 (a cycle) cannot be crashed: no kill slot spent
    assert [row.status for row in two.rows] == ["fail"] + ["pass"] * 5
