"""Files that hold several plans are checked as several plans, never judged on their first.

All inputs are hand-written (provenance: handwritten).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness._errors import PlanLoadError
from harness.checks import check_files
from harness.plan import Plan, load_plan, load_plan_file


def _tb(record_id: str | None, links: list[tuple[str, str]]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "task_nodes": [{"task": "A", "arguments": ["x"]}, {"task": "B", "arguments": ["y"]}],
        "task_links": [{"source": s, "target": t} for s, t in links],
    }
    if record_id is not None:
        record["id"] = record_id
    return record


def _lines(path: Path, *lines: Any) -> Path:
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


def _check(*args: str) -> Any:
    return CliRunner().invoke(app, ["check", *args], catch_exceptions=False)


class TestJsonLines:
    def test_every_line_is_a_plan_labelled_by_id(self, tmp_path: Path) -> None:
        path = _lines(tmp_path / "data.json", _tb("a", [("A", "B")]), _tb("b", [("B", "A")]))
        loaded = load_plan_file(path)
        assert [label for label, _ in loaded] == [f"{path}#a", f"{path}#b"]
        assert all(isinstance(plan, Plan) for _, plan in loaded)

    def test_line_number_labels_records_without_id(self, tmp_path: Path) -> None:
        path = _lines(tmp_path / "p.jsonl", _tb(None, []), "", _tb(None, []))
        assert [label for label, _ in load_plan_file(path)] == [f"{path}#1", f"{path}#3"]

    def test_repeated_ids_get_their_line(self, tmp_path: Path) -> None:
        path = _lines(tmp_path / "p.jsonl", _tb("7", []), _tb("7", []))
        assert [label for label, _ in load_plan_file(path)] == [f"{path}#7", f"{path}#7@2"]

    def test_broken_middle_line_is_its_own_unusable_entry(self, tmp_path: Path) -> None:
        """The damaged line is reported with its line number; the others are still checked."""
        path = _lines(
            tmp_path / "p.jsonl", _tb("a", [("A", "B")]), '{"id": "b", "task_nod', _tb("c", [])
        )
        results = check_files([path])
        assert [r.path for r in results] == [f"{path}#a", f"{path}#2", f"{path}#c"]
        assert results[0].ok and results[2].ok
        assert results[1].error is not None
        assert results[1].error.startswith("line 2 column")
        assert "invalid JSON" in results[1].error

    def test_cli_checks_all_lines_and_exits_2_for_the_broken_one(self, tmp_path: Path) -> None:
        """Issue 9 bug 1: 3 plans are 3 verdicts, not 'ok (2 tasks)' for the first."""
        path = _lines(
            tmp_path / "data.json",
            _tb("1", [("A", "B")]),
            "not json at all",
            _tb("3", [("A", "Step 3")]),
        )
        result = _check(str(path))
        assert result.exit_code == 2
        assert f"{path}#1: ok (2 tasks)" in result.stdout
        assert f"{path}#2: unusable: line 2 column 1: invalid JSON" in result.stdout
        assert f"{path}#3: FAIL" in result.stdout
        assert "3 plans: 1 passed, 1 failed, 1 unusable" in result.stdout

    @pytest.mark.parametrize("fmt", ["auto", "taskbench", "canonical"])
    def test_every_json_format_reads_json_lines(self, tmp_path: Path, fmt: str) -> None:
        """Issue 9 bug 1: --plan-format taskbench no longer fails with 'Extra data'."""
        path = _lines(tmp_path / "p.jsonl", _tb("a", []), _tb("b", []))
        assert len(load_plan_file(path, format=fmt)) == 2

    def test_lines_of_different_formats(self, tmp_path: Path) -> None:
        """Any supported per-line format: canonical, TaskBench, HuggingGPT."""
        path = _lines(
            tmp_path / "mixed.jsonl",
            {"plan_id": "c", "tasks": [{"id": "t1"}]},
            _tb("t", []),
            [{"task": "x", "id": 0, "dep": [-1], "args": {}}],
        )
        loaded = load_plan_file(path)
        assert [label.split("#")[1] for label, _ in loaded] == ["c", "t", "3"]
        assert all(isinstance(plan, Plan) for _, plan in loaded)

    def test_one_plan_then_trailing_garbage_on_its_line(self, tmp_path: Path) -> None:
        """Trailing data after the first JSON value of a line is an error naming the line."""
        path = tmp_path / "p.json"
        path.write_text(json.dumps(_tb("a", [])) + ' {"more": 1}\n', encoding="utf-8")
        with pytest.raises(PlanLoadError) as info:
            load_plan_file(path, format="taskbench")
        assert "Extra data" in info.value.what
        assert info.value.location is not None and info.value.location.startswith("line 1")

    def test_model_text_with_json_then_prose_is_one_plan(self) -> None:
        """A chat answer (JSON, then a sentence) is not JSON Lines: the plan in it is read."""
        text = json.dumps({"tasks": [{"id": "a"}]}) + "\nLet me know if this helps!"
        assert load_plan(text).task_ids == ("a",)


class TestArrays:
    def test_array_of_records_is_several_plans(self, tmp_path: Path) -> None:
        path = tmp_path / "records.json"
        path.write_text(json.dumps([_tb("x", [("A", "B")]), _tb(None, [])]), encoding="utf-8")
        loaded = load_plan_file(path)
        assert [label for label, _ in loaded] == [f"{path}#x", f"{path}#2"]

    def test_array_of_canonical_plans(self, tmp_path: Path) -> None:
        path = tmp_path / "plans.json"
        plans = [{"plan_id": "p1", "tasks": []}, {"plan_id": "p2", "tasks": [{"id": "a"}]}]
        path.write_text(json.dumps(plans), encoding="utf-8")
        assert [label.split("#")[1] for label, _ in load_plan_file(path)] == ["p1", "p2"]

    def test_item_that_is_not_a_record_is_unusable_alone(self, tmp_path: Path) -> None:
        path = tmp_path / "records.json"
        path.write_text(json.dumps([_tb("x", []), 42]), encoding="utf-8")
        (_, first), (label, second) = load_plan_file(path)
        assert isinstance(first, Plan)
        assert label == f"{path}#2" and isinstance(second, PlanLoadError)

    def test_load_plan_refuses_a_multi_plan_input(self) -> None:
        text = json.dumps([_tb("x", []), _tb("y", [])])
        with pytest.raises(PlanLoadError, match="holds 2 plans"):
            load_plan(text)
