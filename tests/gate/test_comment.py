"""The pull-request comment ``gate --comment`` writes, as a reviewer reads it: the verdict and
the deciding rule first; after a prompt edit one line that says so with the one re-record
command (``run`` prints the same); an injected regression named; a clean run; the size limit.
Projects are made with ``harness.testing`` (provenance: handwritten in code)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.gate._comment import GITHUB_LIMIT, SuiteVerdict, pull_request_comment
from harness.gate._gate import GateResult, RuleResult
from harness.testing import make_project, sound_plan, write_response
from tests.cli_helpers import planeval_process

PLAN = json.dumps(sound_plan())
COMMAND = "planeval run evals/demo.yaml --record-mode new_episodes --model rb"


planeval = planeval_process


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 cases x 1 sample of one command model, recorded, with a baseline of a clean run."""
    root = tmp_path_factory.mktemp("project")
    make_project(
        root,
        models=[{"id": "rb", "provider": "command", "command": "agentic plan --json"}],
        cases=[{"id": f"c{i}", "goal": f"Goal {i}"} for i in range(8)],
    )
    for i in range(8):
        write_response(root, "demo", "rb", f"c{i}", PLAN)
    done = planeval("run", "evals/demo.yaml", "--out", "reports/runs/base", cwd=root)
    assert done.returncode == 0, done.stderr
    assert planeval("baseline", "reports/runs/base", cwd=root).returncode == 0
    return root


def _gate(root: Path, run: str) -> tuple[subprocess.CompletedProcess[str], str]:
    assert planeval("report", run, "--baseline", "reports/baselines/", cwd=root).returncode == 0
    comment = root / f"{run.replace('/', '-')}.md"
    done = planeval(
        "gate", run, "--max-drop", "0.05", "--no-new-failures", "--comment", str(comment), cwd=root
    )
    return done, comment.read_text()


def test_a_clean_run_says_pass_first(project: Path) -> None:
    done, comment = _gate(project, "reports/runs/base")
    assert done.returncode == 0
    assert comment.startswith("## planeval gate: PASS: 1 of 1 suite(s) pass every rule")
    assert "- ✅ `demo`: every rule holds" in comment
    assert "## planeval: `demo`" in comment  # the suite's summary.md follows


def test_after_a_prompt_edit_the_comment_names_the_change_once(project: Path) -> None:
    """Every recording stale: the verdict (recordings, exit 3) on top, one line naming the
    prompt change with the count and the re-record command `run` printed, no "0 of 0
    counted results pass", no row-by-row stale list."""
    prompt = project / "evals" / "demo.prompt.md"
    original = prompt.read_text()
    prompt.write_text(original + "\nBe brief.\n")
    try:
        ran = planeval("run", "evals/demo.yaml", "--out", "reports/runs/edited", cwd=project)
        assert ran.returncode == 3
        assert f"re-record them with: {COMMAND}" in " ".join(ran.stderr.split())
        done, comment = _gate(project, "reports/runs/edited")
    finally:
        prompt.write_text(original)
    assert done.returncode == 3
    first = comment.splitlines()[0]
    assert first == "## planeval gate: FAIL (exit 3), decided by recordings in `demo`"
    line = (
        "the prompt changed since these recordings were made: 8 rows stale; re-record with: "
        f"`{COMMAND}`"
    )
    assert comment.lower().count(line.lower()) == 2  # the gate's rule, then summary.md's top
    assert "0 of 0 counted" not in comment and "No case failed" not in comment
    assert comment.count("recorded under prompt") == 0
    assert "--live" not in comment
    assert line.lower() in done.stdout.lower()


def test_an_injected_regression_is_named_with_its_rule(project: Path) -> None:
    """Every case's plan broken (a cycle): decided by no-new-failures or max-drop, named."""
    broken = sound_plan()
    broken["tasks"][0]["depends_on"] = [broken["tasks"][-1]["id"]]
    for i in range(8):
        write_response(project, "demo", "rb", f"c{i}", json.dumps(broken))
    try:
        planeval("run", "evals/demo.yaml", "--out", "reports/runs/broken", cwd=project)
        done, comment = _gate(project, "reports/runs/broken")
    finally:
        for i in range(8):
            write_response(project, "demo", "rb", f"c{i}", PLAN)
    assert done.returncode == 1, done.stdout
    assert comment.startswith("## planeval gate: FAIL (exit 1), decided by max-drop in `demo`")
    assert "- ❌ `demo`: **max-drop**: rb: 100.0% -> 0.0% on 8 shared cases" in comment


def test_seven_big_suites_stay_under_githubs_limit() -> None:
    """Seven summaries of 15,000 characters: the comment keeps the verdict, the summaries
    that fit, and names the ones left out with where to read them."""
    rule = RuleResult("max-drop", False, 1, "m: 90.0% -> 70.0% on 100 shared cases")
    verdicts = [
        SuiteVerdict(
            f"s{k}",
            1 if k == 3 else 0,
            GateResult([rule] if k == 3 else []),
            None,
            f"## planeval: `s{k}`\n" + "x" * 15_000,
        )
        for k in range(7)
    ]
    comment = pull_request_comment(verdicts, 1)
    assert len(comment) < GITHUB_LIMIT
    assert comment.startswith("## planeval gate: FAIL (exit 1), decided by max-drop in `s3`")
    assert "- ❌ `s3`: **max-drop**: m: 90.0% -> 70.0%" in comment
    assert "are left out to stay under GitHub's 65,536-character comment limit" in comment
    assert "`planeval-report` artifact" in comment
