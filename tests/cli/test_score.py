"""``planeval score``: exit codes, text and JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli

GOLD = "Node:\n1: Open the door\n2: Walk in\nEdge: (START,1) (1,2) (2,END)\n"


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    path = tmp_path / "gold.txt"
    path.write_text(GOLD, encoding="utf-8")
    return path


class TestScore:
    def test_scores_a_plan_in_json(
        self, capsys: pytest.CaptureFixture[str], gold: Path, tmp_path: Path
    ) -> None:
        """A half-right answer: JSON with the metrics and the convention, exit 0."""
        answer = tmp_path / "answer.txt"
        answer.write_text(
            "Node:\n1: Open the door\n2: Dance\nEdge: (START,1) (1,2) (2,END)", encoding="utf-8"
        )
        result = run_cli(capsys, "score", str(answer), "--reference", str(gold), "--format", "json")
        assert result.code == 0, result.err
        data = json.loads(result.out)
        assert data["status"] == "scored"
        assert data["unparseable_convention"] == "zero"
        assert data["metrics"]["worfbench.recall_chain"] == 0.5

    def test_text_output_lists_every_metric(
        self, capsys: pytest.CaptureFixture[str], gold: Path
    ) -> None:
        """The gold against itself prints 1.0000 for each WorfBench metric."""
        result = run_cli(capsys, "score", str(gold), "--reference", str(gold))
        assert result.code == 0
        assert result.out.count("1.0000") == 6

    def test_unparseable_answer_exits_1(
        self, capsys: pytest.CaptureFixture[str], gold: Path, tmp_path: Path
    ) -> None:
        """No workflow in the answer: exit 1; under exclude there are no values."""
        answer = tmp_path / "answer.txt"
        answer.write_text("Sorry.", encoding="utf-8")
        result = run_cli(
            capsys,
            "score",
            str(answer),
            "--reference",
            str(gold),
            "--unparseable",
            "exclude",
            "--format",
            "json",
        )
        assert result.code == 1
        assert json.loads(result.out)["metrics"] == {}

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["--reference", "missing.txt"], "no such reference file"),
            (["--reference", "{gold}", "--unparseable", "maybe"], "unknown --unparseable"),
            (["--reference", "{answer}"], "not a plan any metric reads"),
        ],
    )
    def test_bad_input_is_one_line_exit_2(
        self,
        capsys: pytest.CaptureFixture[str],
        gold: Path,
        tmp_path: Path,
        args: list[str],
        message: str,
    ) -> None:
        """Unusable input: one line on stderr, exit 2, nothing on stdout."""
        answer = tmp_path / "answer.txt"
        answer.write_text("prose", encoding="utf-8")
        args = [a.format(gold=gold, answer=answer) for a in args]
        result = run_cli(capsys, "score", str(answer), *args)
        assert result.code == 2
        assert message in result.err
        assert result.err.count("\n") == 1
        assert result.out == ""
