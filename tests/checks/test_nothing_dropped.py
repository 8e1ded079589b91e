"""Nothing a plan says is dropped silently: dependency spellings, unknown keys, empty plans.

Plans here are hand-written (provenance: handwritten) after the shapes real planners publish
(docs/formats.md names the sources); the last class reads the published samples in place.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.checks import CHECKS, check_plan
from harness.plan import load_plan
from harness.plan._model import DEPENDENCY_KEYS
from harness.schemas import load_schema
from tests.cli_helpers import run_cli


def _cyclic(key: str, a: object = "a", b: object = "b") -> dict[str, object]:
    return {"tasks": [{"id": "a", key: [b]}, {"id": "b", key: [a]}]}


class TestDependencySpellings:
    @pytest.mark.parametrize("key", DEPENDENCY_KEYS)
    def test_cycle_written_with_a_spelling_fails_acyclic(self, key: str) -> None:
        """The issue's example, in every spelling: the cycle is seen, where the plan wrote it."""
        report = check_plan(load_plan(_cyclic(key)))
        assert not report.ok
        [cycle] = [v for v in report.errors if v.check == "acyclic"]
        assert cycle.path == f"/tasks/0/{key}"
        assert report.outcomes["acyclic"] == "fail"

    @pytest.mark.parametrize("key", ["dependencies", "dependent_task_ids", "prev", "after"])
    def test_reading_is_stated_as_a_schema_warning(self, key: str) -> None:
        """The check output says which key was read as depends_on and what it read."""
        plan = load_plan({"tasks": [{"id": "a"}, {"id": "b", key: ["a"]}]})
        report = check_plan(plan)
        assert report.ok
        assert plan.task("b").depends_on == ("a",)
        [warning] = report.warnings
        assert (warning.check, warning.severity) == ("schema", "warning")
        assert warning.path == f"/tasks/1/{key}"
        assert f"'{key}'" in warning.message and "read as depends_on ['a']" in warning.message
        assert report.outcomes["schema"] == "warn"

    def test_integer_ids_and_hugginggpt_none(self) -> None:
        """T-Eval writes prev as integers; HuggingGPT's dep -1 means no dependency."""
        plan = load_plan({"tasks": [{"id": "0", "dep": [-1]}, {"id": "1", "prev": [0]}]})
        assert plan.task("0").depends_on == ()
        assert plan.task("1").depends_on == ("0",)

    def test_one_id_not_in_a_list(self) -> None:
        plan = load_plan({"tasks": [{"id": "a"}, {"id": "b", "requires": "a"}]})
        assert plan.task("b").depends_on == ("a",)

    def test_depends_on_and_a_spelling_are_both_read(self) -> None:
        plan = load_plan(
            {"tasks": [{"id": "a"}, {"id": "b"}, {"id": "c", "depends_on": ["a"], "deps": ["b"]}]}
        )
        assert plan.task("c").depends_on == ("a", "b")

    def test_unknown_id_under_a_spelling_points_at_it(self) -> None:
        report = check_plan(load_plan({"tasks": [{"id": "a", "deps": ["a", "zz"]}]}))
        paths = {v.check: v.path for v in report.errors}
        assert paths == {"self_dependency": "/tasks/0/deps/0", "deps_resolve": "/tasks/0/deps/1"}


class TestUnknownKeys:
    def test_unknown_task_key_is_a_schema_warning(self) -> None:
        """A key no check reads is named, with its pointer; the plan still passes."""
        report = check_plan(
            load_plan({"tasks": [{"id": "a"}, {"id": "b", "depends_on": ["a"], "tool": "x"}]})
        )
        assert report.ok
        [warning] = report.warnings
        assert (warning.check, warning.task, warning.path) == ("schema", "b", "/tasks/1/tool")
        assert "'tool'" in warning.message and "no check reads it" in warning.message

    def test_arguments_is_a_known_key(self) -> None:
        """The canonical arguments mapping (with $result references) is not warned about."""
        plan = {
            "tasks": [
                {"id": "t1", "arguments": {"q": "x"}},
                {"id": "t2", "depends_on": ["t1"], "arguments": {"a": {"$result": "t1"}}},
            ]
        }
        assert check_plan(load_plan(plan)).violations == ()

    def test_known_keys_only_gives_no_warning(self) -> None:
        plan = {"tasks": [{"id": "a", "description": "x", "capabilities": ["s"]}]}
        assert check_plan(load_plan(plan)).violations == ()


class TestAdapterUnknownKeys:
    """HuggingGPT and TaskBench tasks: a key the format does not define is carried into the
    canonical task and reported with its pointer, never read as anything."""

    def _schema(self, plan: object) -> list[tuple[str, str]]:
        report = check_plan(plan)  # type: ignore[arg-type]
        return [(v.path, v.severity) for v in report.violations if v.check == "schema"]

    def test_a_hugginggpt_task_key_is_reported(self) -> None:
        plan = load_plan(
            json.dumps(
                [
                    {"task": "image-to-text", "id": 0, "dep": [-1], "args": {}, "reason": "x"},
                    {"task": "text-to-speech", "id": 1, "dep": [0], "args": {}},
                ]
            )
        )
        report = check_plan(plan)
        assert report.ok
        assert self._schema(plan) == [("/tasks/0/reason", "warning")]
        [warning] = report.warnings
        assert "'reason'" in warning.message and '"x"' in warning.message

    def test_a_taskbench_node_key_is_reported_in_a_file_too(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The JSON Lines fast lane hands such a record to the general reader, which carries
        the key: the file's line and the record read alone say the same."""
        record = {
            "id": "r1",
            "task_nodes": [
                {"task": "Image Captioning", "arguments": ["a.jpg"], "output": "caption"}
            ],
            "task_links": [],
        }
        assert self._schema(load_plan(record)) == [("/tasks/0/output", "warning")]
        path = tmp_path / "data.jsonl"
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        result = run_cli(capsys, "check", str(path), "--format", "json")
        assert result.code == 0
        assert "/tasks/0/output" in result.out

    @pytest.mark.parametrize("key", ["depends_on", "needs", "dependencies", "prev"])
    def test_a_key_with_a_canonical_meaning_is_carried_under_the_format_name(
        self, key: str
    ) -> None:
        """HuggingGPT's reader ignores such a key, so planeval must not read it as a
        dependency: the task depends on nothing, and the key is reported."""
        plan = load_plan(json.dumps([{"task": "a", "id": 0, "dep": [-1], "args": {}, key: ["9"]}]))
        assert plan.tasks[0].depends_on == () and plan.tasks[0].needs == ()
        assert self._schema(plan) == [(f"/tasks/0/hugginggpt:{key}", "warning")]
        assert check_plan(plan).ok

    def test_published_data_keeps_its_verdicts(self, shared_data: Path) -> None:
        """TaskBench gold, predictions and HuggingGPT answers: one gold node carries a key
        TaskBench does not define (``output``), which is now reported; every verdict stays."""
        from harness.checks import check_files

        files = [
            f
            for d in ("taskbench", "hugginggpt")
            for f in sorted((shared_data / d).rglob("*"))
            if f.is_file()
            and f.suffix in (".json", ".jsonl", ".txt")
            and "tool_desc" not in f.name
            and "user_requests" not in f.name
        ]
        reports = [r.report for r in check_files(files) if r.report is not None]
        assert len(reports) >= 90
        for report in reports:
            assert report is not None
            # the same plan with the carried keys dropped, as it was read before
            bare = replace(
                report.plan,
                document=None,
                tasks=tuple(replace(t, extra={}) for t in report.plan.tasks),
            )
            before = check_plan(bare)
            assert report.ok == before.ok
            assert {c: o for c, o in report.outcomes.items() if c != "schema"} == {
                c: o for c, o in before.outcomes.items() if c != "schema"
            }
        carried = [
            (v.path, v.severity)
            for r in reports
            if r is not None
            for v in r.violations
            if v.check == "schema"
        ]
        assert carried == [("/tasks/0/output", "warning")]


class TestEmptyPlan:
    @pytest.mark.parametrize(
        "document",
        [
            {"tasks": []},
            {"id": "1", "task_nodes": [], "task_links": []},
            {"id": "1", "result": {"task_nodes": [], "task_links": []}},
        ],
        ids=["canonical", "taskbench", "taskbench-prediction"],
    )
    def test_zero_tasks_fail_has_tasks(self, document: dict[str, object]) -> None:
        report = check_plan(load_plan(document))
        assert [v.check for v in report.errors] == ["has_tasks"]
        assert report.outcomes["has_tasks"] == "fail"

    def test_one_task_passes_has_tasks(self) -> None:
        assert check_plan(load_plan({"tasks": [{"id": "a"}]})).outcomes["has_tasks"] == "pass"

    def test_cli_exits_1_on_an_empty_plan_line(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A TaskBench JSON Lines file with an empty plan fails that line, keeps the other."""
        path = tmp_path / "plans.jsonl"
        lines = [
            {"id": "e", "task_nodes": [], "task_links": []},
            {"id": "f", "task_nodes": [{"task": "a", "arguments": []}], "task_links": []},
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        result = run_cli(capsys, "check", str(path))
        assert result.code == 1
        assert "plans.jsonl#e: FAIL (0 tasks, 1 errors, 0 warnings)" in result.out
        assert "has_tasks" in result.out
        assert "plans.jsonl#f: ok (1 tasks)" in result.out

    def test_results_schema_names_every_check(self) -> None:
        """The results row schema lists the check ids, has_tasks among them."""
        schema = load_schema("results-row")
        assert schema["properties"]["checks"]["propertyNames"] == {"$ref": "#/$defs/check_id"}
        assert schema["$defs"]["check_id"]["enum"] == list(CHECKS)


class TestPublishedSamples:
    def test_dependency_key_samples(self, shared_data: Path) -> None:
        folder = shared_data / "plans-in-the-wild" / "formats-not-read"
        cyclic = check_plan(load_plan(folder / "cyclic_dependencies_key.json"))
        assert [v.check for v in cyclic.errors] == ["acyclic"]
        for name in ("tasks_dep_key.json", "tasks_dependencies_key.json"):
            plan = load_plan(folder / name)
            assert plan.task("b").depends_on == ("a",)
            assert check_plan(plan).ok


class TestWorkflowSchema:
    @pytest.mark.parametrize(
        "workflow",
        [
            {"start": ["1"], "end": ["2"], "undeclared_edges": []},
            {"start": [1]},
            {"prose_nodes": [{"position": 3, "text": "1. **Start**"}]},
            {"prose_nodes": [{"position": 0, "text": "x"}]},
            {"prose_nodes": [{"position": 2}]},
            {"prose_nodes": "x"},
        ],
    )
    def test_predicate_agrees_with_jsonschema(self, workflow: dict[str, object]) -> None:
        """The fast predicate and the published schema judge the WorfBench markers alike."""
        from jsonschema import Draft202012Validator

        from harness.checks._schema import workflow_ok

        document = {"tasks": [{"id": "1"}], "workflow": workflow}
        valid = Draft202012Validator(load_schema("plan")).is_valid(document)
        assert workflow_ok(workflow) is valid
