"""``planeval check``: exit codes, text and JSON output, and bad input that never loses plans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli

GOOD = {
    "tasks": [
        {"id": "a", "capabilities": ["search"]},
        {"id": "b", "depends_on": ["a"], "needs": {"x": "a"}},
    ]
}
BAD = {"tasks": [{"id": "a", "depends_on": ["b"]}, {"id": "b", "depends_on": ["a"]}]}


@pytest.fixture
def plans(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for name, doc in {"good": GOOD, "bad": BAD}.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(doc))
    paths["broken"] = tmp_path / "broken.json"
    paths["broken"].write_text('{"tasks": [')
    return paths


class TestExitCodes:
    def test_all_pass_is_0(
        self, capsys: pytest.CaptureFixture[str], plans: dict[str, Path]
    ) -> None:
        """Every plan passes: exit 0 and a summary line."""
        result = run_cli(capsys, "check", str(plans["good"]))
        assert result.code == 0, result.err
        assert "1 plans: 1 passed, 0 failed, 0 unusable" in result.out

    def test_a_failed_check_is_1(
        self, capsys: pytest.CaptureFixture[str], plans: dict[str, Path]
    ) -> None:
        """An error-severity violation: exit 1, one line per violation under its file."""
        result = run_cli(capsys, "check", str(plans["good"]), str(plans["bad"]))
        assert result.code == 1
        assert f"{plans['bad']}: FAIL" in result.out
        assert "acyclic" in result.out and "a -> b -> a" in result.out

    def test_unusable_input_is_2_and_others_still_checked(
        self, capsys: pytest.CaptureFixture[str], plans: dict[str, Path]
    ) -> None:
        """An unusable file exits 2, yet the other plans are still checked and reported."""
        result = run_cli(
            capsys, "check", str(plans["broken"]), str(plans["bad"]), str(plans["good"])
        )
        assert result.code == 2
        assert f"{plans['broken']}: unusable: line 1 column 12: invalid JSON" in result.out
        assert f"{plans['bad']}: FAIL" in result.out
        assert f"{plans['good']}: ok" in result.out
        assert "Traceback" not in result.out + result.err

    def test_warnings_alone_pass(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """Warnings (an isolated task) do not fail the command."""
        path = tmp_path / "warn.json"
        path.write_text(
            json.dumps({"tasks": [{"id": "a"}, {"id": "b", "depends_on": ["a"]}, {"id": "c"}]})
        )
        result = run_cli(capsys, "check", str(path))
        assert result.code == 0
        assert "warning isolated_task" in result.out


class TestJsonOutput:
    def test_json_contract(
        self, capsys: pytest.CaptureFixture[str], plans: dict[str, Path]
    ) -> None:
        """--format json prints {"plans": [{path, ok, task_count, violations}]} and nothing else."""
        result = run_cli(
            capsys,
            "check",
            "--format",
            "json",
            str(plans["good"]),
            str(plans["bad"]),
            str(plans["broken"]),
        )
        doc = json.loads(result.out)
        good, bad, broken = doc["plans"]
        assert good == {"path": str(plans["good"]), "ok": True, "task_count": 2, "violations": []}
        assert bad["ok"] is False and bad["task_count"] == 2
        assert {"check", "severity", "task", "path", "message"} == set(bad["violations"][0])
        assert (
            broken["ok"] is False
            and broken["task_count"] is None
            and "invalid JSON" in broken["error"]
        )
        assert result.code == 2


class TestOptions:
    def test_task_band(self, capsys: pytest.CaptureFixture[str], plans: dict[str, Path]) -> None:
        """--min-tasks / --max-tasks set the band."""
        assert run_cli(capsys, "check", "--min-tasks", "3", str(plans["good"])).code == 1
        assert run_cli(capsys, "check", "--max-tasks", "2", str(plans["good"])).code == 0

    def test_registry(
        self, capsys: pytest.CaptureFixture[str], plans: dict[str, Path], tmp_path: Path
    ) -> None:
        """--registry enables known_capabilities with a suggestion."""
        registry = tmp_path / "reg.yaml"
        registry.write_text("capabilities:\n  - name: serach\n")
        result = run_cli(capsys, "check", "--registry", str(registry), str(plans["good"]))
        assert result.code == 1
        assert "did you mean 'serach'" in result.out

    def test_needs_imply_deps(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """--needs-imply-deps accepts needs without depends_on."""
        path = tmp_path / "p.json"
        path.write_text(json.dumps({"tasks": [{"id": "a"}, {"id": "b", "needs": {"x": "a"}}]}))
        assert run_cli(capsys, "check", str(path)).code == 1
        assert run_cli(capsys, "check", "--needs-imply-deps", str(path)).code == 0

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["--plan-format", "yaml"], "unknown --plan-format 'yaml'"),  # unknown format
            (["--format", "xml"], "unknown --format 'xml'"),  # unknown output format
            (["--min-tasks", "5", "--max-tasks", "2"], "larger than --max-tasks"),  # empty band
            (["--registry", "/nonexistent.yaml"], "no such registry file"),  # missing registry
        ],
    )
    def test_bad_command_line(
        self,
        capsys: pytest.CaptureFixture[str],
        plans: dict[str, Path],
        args: list[str],
        message: str,
    ) -> None:
        """A wrong command line is one line on stderr and exit 2."""
        result = run_cli(capsys, "check", *args, str(plans["good"]))
        assert result.code == 2
        assert message in result.err
        assert result.err.count("\n") == 1

    def test_malformed_registry(
        self, capsys: pytest.CaptureFixture[str], plans: dict[str, Path], tmp_path: Path
    ) -> None:
        """A registry file that is itself malformed: one line naming it and where, exit 2."""
        registry = tmp_path / "reg.yaml"
        registry.write_text("capabilities:\n  - name: [unclosed\n")
        result = run_cli(capsys, "check", "--registry", str(registry), str(plans["good"]))
        assert result.code == 2
        assert str(registry) in result.err and "line" in result.err
        assert result.err.count("\n") == 1

    def test_missing_argument(self, capsys: pytest.CaptureFixture[str]) -> None:
        """No plan given: one usage line, exit 2."""
        result = run_cli(capsys, "check")
        assert result.code == 2
        assert "Missing argument" in result.err and result.err.count("\n") == 1


class TestRealData:
    def test_worfbench_file_reports_each_workflow(
        self, capsys: pytest.CaptureFixture[str], shared_data: Path
    ) -> None:
        """A WorfBench data file is checked workflow by workflow, each as FILE#<id>."""
        path = shared_data / "worfbench" / "toolalpaca.json"
        result = run_cli(capsys, "check", "--format", "json", str(path))
        doc = json.loads(result.out)
        assert len(doc["plans"]) == 93
        assert doc["plans"][0]["path"].startswith(f"{path}#toolalpaca_")

    def test_gem_cassette(self, capsys: pytest.CaptureFixture[str], shared_data: Path) -> None:
        """The gem's recorded gpt-4o answer checks as a flat 7-task plan with one warning."""
        result = run_cli(
            capsys, "check", str(shared_data / "agentic" / "plan_ruby_coding_agent.yml")
        )
        assert result.code == 0
        assert "ok (7 tasks, 0 errors, 1 warnings)" in result.out


def test_schema_command(capsys: pytest.CaptureFixture[str]) -> None:
    """planeval schema plan prints the Draft 2020-12 plan schema; an unknown name exits 2."""
    result = run_cli(capsys, "schema", "plan")
    assert result.code == 0
    assert json.loads(result.out)["$schema"].endswith("2020-12/schema")
    assert run_cli(capsys, "schema", "nope").code == 2
