"""``planeval score``: exit codes, text and JSON output."""

from __future__ import annotations

import json
from itertools import pairwise
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


def _record(key: str, *tools: str, kind: str = "chain") -> dict:
    """A temporal TaskBench gold record (handwritten)."""
    return {
        "id": key,
        "type": kind,
        "task_nodes": [{"task": t, "arguments": [{"name": "q", "value": t}]} for t in tools],
        "task_links": [{"source": a, "target": b} for a, b in pairwise(tools)],
    }


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


class TestScoreFile:
    @pytest.fixture
    def gold_file(self, tmp_path: Path) -> Path:
        return _jsonl(
            tmp_path / "data.json",
            [
                _record("1", "search", kind="single"),
                _record("2", "search", "summarize"),
                _record("3", "search", "email"),
            ],
        )

    def test_a_predictions_file_is_matched_by_id(
        self, capsys: pytest.CaptureFixture[str], gold_file: Path, tmp_path: Path
    ) -> None:
        """Predictions in another order than the gold, one id missing: every shared id is
        scored against its own gold (node micro F1 1.0); line 1 against line 1 would have
        scored '3' against '1'."""
        preds = _jsonl(
            tmp_path / "preds.jsonl",
            [
                {"id": "3", "result": _record("3", "search", "email")},
                {"id": "1", "result": _record("1", "search", kind="single")},
            ],
        )
        result = run_cli(capsys, "score", str(preds), "--reference", str(gold_file))
        assert result.code == 0, result.err
        assert "predictions: 2 ids; gold: 3 ids; shared: 2" in result.out
        overall = next(x for x in result.out.splitlines() if x.startswith("overall_overall"))
        assert overall.split()[:4] == ["overall_overall", "2", "2", "1.0000"]
        assert "overall_2 " in result.out and "overall_15" not in result.out

    def test_json_has_the_official_keys(
        self, capsys: pytest.CaptureFixture[str], gold_file: Path
    ) -> None:
        """--format json: the groups evaluate.py writes, each with its keys in its order."""
        result = run_cli(
            capsys, "score", str(gold_file), "--reference", str(gold_file), "--format", "json"
        )
        assert result.code == 0, result.err
        data = json.loads(result.out)
        assert list(data)[:4] == [
            "overall_overall",
            "single_overall",
            "chain_overall",
            "dag_overall",
        ]
        assert len(data) == 14
        assert list(data["overall_overall"]) == [
            "all_samples",
            "step_supports",
            "node_supports",
            "link_supports",
            "argument_supports",
            "node_micro_precision_no_matching",
            "node_micro_recall_no_matching",
            "node_micro_f1_no_matching",
            "node_macro_precision_no_matching",
            "node_macro_recall_no_matching",
            "node_macro_f1_no_matching",
            "node_per_type_no_matchcing",
            "argument_task_argname_binary_f1_no_matching",
            "argument_task_argname_value_binary_f1_no_matching",
            "edit_distance",
            "link_binary_f1",
        ]
        assert data["single_overall"]["link_binary_f1"] == 0.0
        assert data["dag_overall"] == {
            "all_samples": 0,
            "step_supports": 0,
            "node_supports": 0,
            "link_supports": 0,
            "argument_supports": 0,
        }

    def test_zero_counts_gold_ids_without_a_prediction(
        self, capsys: pytest.CaptureFixture[str], gold_file: Path, tmp_path: Path
    ) -> None:
        preds = _jsonl(tmp_path / "preds.jsonl", [_record("1", "search", kind="single")])
        args = ["score", str(preds), "--reference", str(gold_file), "--format", "json"]
        exclude = json.loads(run_cli(capsys, *args).out)["overall_overall"]
        zero = json.loads(run_cli(capsys, *args, "--unparseable", "zero").out)["overall_overall"]
        assert (exclude["all_samples"], zero["all_samples"]) == (1, 3)
        assert exclude["node_micro_recall_no_matching"] == 1.0
        assert zero["node_micro_recall_no_matching"] == 1 / 5

    def test_ids_that_do_not_match_are_an_error_naming_the_counts(
        self, capsys: pytest.CaptureFixture[str], gold_file: Path, tmp_path: Path
    ) -> None:
        preds = _jsonl(tmp_path / "preds.jsonl", [_record("9", "search")])
        result = run_cli(capsys, "score", str(preds), "--reference", str(gold_file))
        assert result.code == 2
        assert "no prediction id is a gold id (1 prediction ids, 3 gold ids, 0 shared)" in (
            result.err
        )
        assert result.out == ""

    def test_a_reference_that_is_not_a_gold_file_is_exit_2(
        self, capsys: pytest.CaptureFixture[str], gold_file: Path, gold: Path
    ) -> None:
        result = run_cli(capsys, "score", str(gold_file), "--reference", str(gold))
        assert result.code == 2
        assert "the reference must be the gold file" in result.err

    def test_a_record_whose_scoring_fails_is_named_and_exits_1(
        self,
        capsys: pytest.CaptureFixture[str],
        gold_file: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """A failure injected for one record: the others are scored and printed, the
        failure names the id, exit 1."""
        import harness.metrics._files as files

        real = files.taskbench_sample

        def failing(pred, gold, **options):
            if pred["task_nodes"][-1]["task"] == "email":
                raise RuntimeError("injected")
            return real(pred, gold, **options)

        monkeypatch.setattr(files, "taskbench_sample", failing)
        result = run_cli(capsys, "score", str(gold_file), "--reference", str(gold_file))
        assert result.code == 1
        assert "error: id '3': scoring failed (RuntimeError: injected)" in result.out
        assert "records: 2 scored, 0 dropped" in result.out

    def test_one_record_with_an_id_against_one_plan_is_scored_as_one_plan(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A single TaskBench record that happens to carry an id, against a reference
        without one: one answer against one reference, as before."""
        answer = _jsonl(tmp_path / "answer.json", [_record("1", "search", "email")])
        reference = tmp_path / "gold.json"
        reference.write_text(
            json.dumps({k: v for k, v in _record("x", "search", "email").items() if k != "id"})
        )
        result = run_cli(capsys, "score", str(answer), "--reference", str(reference))
        assert result.code == 0, result.err
        assert result.out.startswith("status: scored (taskbench;")

    def test_a_gold_file_against_one_plan_is_exit_2(
        self, capsys: pytest.CaptureFixture[str], gold_file: Path, tmp_path: Path
    ) -> None:
        """It used to score the plan against the file's first line."""
        answer = tmp_path / "answer.json"
        answer.write_text(
            json.dumps({k: v for k, v in _record("1", "search").items() if k != "id"})
        )
        result = run_cli(capsys, "score", str(answer), "--reference", str(gold_file))
        assert result.code == 2
        assert "a gold file of 3 records" in result.err
