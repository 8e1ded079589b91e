"""``--max-bytes`` wherever a size limit can be hit, and one way of saying a file is too big.

For each command that reads a size-limited file, a file over a small ``--max-bytes`` is refused
with exit 2 and one line in the one unit (``the file is 1.9 KiB, over the 1000 bytes limit``)
that names the option; the same file passes under a larger limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._size import format_size, over_limit
from harness.testing import make_project
from tests.cli_helpers import Result, run_cli

PLAN = {
    "goal": "Refund a damaged order",
    "tasks": [
        {"id": "find", "description": "Find the order " + "x" * 400, "depends_on": []},
        {"id": "refund", "description": "Issue the refund", "depends_on": ["find"]},
    ],
}
"""A valid plan of about 500 bytes (provenance: handwritten)."""


def _refused(result: Result, limit: int) -> str:
    assert result.code == 2, result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("planeval: error: "), result.err
    assert f"over the {format_size(limit)} limit" in lines[0], lines[0]
    assert "--max-bytes" in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN), encoding="utf-8")
    return path


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    """A registry of 40 capabilities, about 2 KiB."""
    path = tmp_path / "registry.yaml"
    caps = "".join(f"  - name: capability_{i}\n    version: '1.0'\n" for i in range(40))
    path.write_text("capabilities:\n" + caps, encoding="utf-8")
    return path


class TestSizes:
    @pytest.mark.parametrize(
        ("size", "text"),
        [
            (512, "512 bytes"),
            (1536, "1.5 KiB"),
            (8 << 20, "8 MiB"),
            (33_554_432, "32 MiB"),
            (int(20.3 * 2**20), "20.3 MiB"),
        ],
    )
    def test_one_unit(self, size: int, text: str) -> None:
        assert format_size(size) == text

    def test_unknown_size_of_a_pipe(self) -> None:
        assert over_limit(None, 1 << 20) == "the file is over the 1 MiB limit"


class TestCheck:
    def test_plan_over_the_limit(self, capsys: pytest.CaptureFixture[str], plan: Path) -> None:
        """check reports each plan on stdout: this one is unusable, and the run exits 2."""
        result = run_cli(capsys, "check", "--max-bytes", "100", str(plan))
        assert result.code == 2
        line = result.out.splitlines()[0]
        assert line.startswith(f"{plan}: unusable: ") and "over the 100 bytes limit" in line
        assert "--max-bytes" in line
        assert run_cli(capsys, "check", "--max-bytes", "100000", str(plan)).code == 0

    def test_registry_over_the_limit(
        self, capsys: pytest.CaptureFixture[str], plan: Path, registry: Path
    ) -> None:
        """The registry is a file check reads: --max-bytes covers it too."""
        line = _refused(
            run_cli(capsys, "check", "-r", str(registry), "--max-bytes", "1000", str(plan)), 1000
        )
        assert str(registry) in line


class TestScore:
    def test_answer_and_reference_over_the_limit(
        self, capsys: pytest.CaptureFixture[str], plan: Path, tmp_path: Path
    ) -> None:
        small = tmp_path / "gold.json"
        small.write_text(json.dumps({"tasks": [{"id": "a", "description": "Find"}]}))
        line = _refused(
            run_cli(capsys, "score", str(plan), "--reference", str(small), "--max-bytes", "200"),
            200,
        )
        assert str(plan) in line
        line = _refused(
            run_cli(capsys, "score", str(small), "--reference", str(plan), "--max-bytes", "200"),
            200,
        )
        assert str(plan) in line
        ok = run_cli(capsys, "score", str(plan), "--reference", str(small), "--max-bytes", "5000")
        assert ok.code == 0, ok.err

    def test_tools_over_the_limit(
        self, capsys: pytest.CaptureFixture[str], plan: Path, registry: Path
    ) -> None:
        result = run_cli(
            capsys,
            "score",
            str(plan),
            "--reference",
            str(plan),
            "--tools",
            str(registry),
            "--max-bytes",
            "1000",
        )
        assert str(registry) in _refused(result, 1000)


class TestExecute:
    def test_plan_over_the_limit_writes_no_journal(
        self, capsys: pytest.CaptureFixture[str], plan: Path, tmp_path: Path
    ) -> None:
        journal = tmp_path / "run.jsonl"
        result = run_cli(
            capsys, "execute", str(plan), "--journal", str(journal), "--max-bytes", "100"
        )
        _refused(result, 100)
        assert not journal.exists()


class TestSuites:
    @pytest.mark.parametrize("command", ["run", "resume-eval"])
    def test_suite_over_the_limit(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
    ) -> None:
        suite = make_project(tmp_path)
        _refused(run_cli(capsys, command, "--max-bytes", "50", str(suite)), 50)


class TestImports:
    def test_taskbench_tools_over_the_limit(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        tools = tmp_path / "tool_desc.json"
        nodes = [
            {"id": f"tool {i}", "desc": "Does a thing " * 5, "parameters": []} for i in range(30)
        ]
        tools.write_text(json.dumps({"nodes": nodes}), encoding="utf-8")
        data = tmp_path / "data.json"
        data.write_text(
            json.dumps(
                {
                    "id": "1",
                    "user_request": "Do it",
                    "task_steps": [],
                    "task_nodes": [],
                    "task_links": [],
                }
            )
            + "\n"
        )
        result = run_cli(
            capsys,
            "import",
            "taskbench",
            str(data),
            "--tools",
            str(tools),
            "--root",
            str(tmp_path / "project"),
            "--max-bytes",
            "1000",
        )
        assert str(tools) in _refused(result, 1000)
        assert not (tmp_path / "project" / "evals").exists()
