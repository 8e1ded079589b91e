"""arguments_valid, argument_refs_resolve and dataflow_types, each passing and failing.

The registry and plans are hand-written (provenance: handwritten), in the shapes OpenAI, MCP and
TaskBench publish.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from harness.checks import CheckReport, Expectations, check_plan
from harness.plan import Plan, load_plan
from harness.registry import Registry, load_registry

REGISTRY = Registry.from_data(
    {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "fetch_image",
                    "description": "Download an image",
                    "parameters": {
                        "type": "object",
                        "properties": {"url": {"type": "string"}},
                        "required": ["url"],
                        "additionalProperties": False,
                    },
                },
            },
            {
                "name": "caption",
                "description": "Caption an image",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "image": {"type": "string"},
                        "style": {"enum": ["short", "long"]},
                        "max_words": {"type": "integer"},
                    },
                    "required": ["image"],
                },
                "outputSchema": {"type": "object"},
            },
            {
                "name": "count_words",
                "inputSchema": {"type": "object"},
                "outputSchema": {"type": "integer"},
            },
            {"name": "no_schema"},
        ]
    }
)


def check(tasks: list[dict[str, Any]], **expect: Any) -> CheckReport:
    return check_plan(
        Plan.from_dict({"tasks": tasks}), registry=REGISTRY, expect=Expectations(**expect)
    )


def found(report: CheckReport, check_id: str) -> list[tuple[str | None, str, str]]:
    return [(v.task, v.path, v.message) for v in report.violations if v.check == check_id]


FETCH = {"id": "f", "capabilities": ["fetch_image"], "arguments": {"url": "https://x.test/a.png"}}


class TestArgumentsValid:
    def test_sound_arguments_pass(self) -> None:
        """Required present, types and enum right, a reference for the image: no violation."""
        report = check(
            [
                FETCH,
                {
                    "id": "c",
                    "capabilities": ["caption"],
                    "depends_on": ["f"],
                    "arguments": {"image": {"$result": "f"}, "style": "short", "max_words": 20},
                },
            ]
        )
        assert report.violations == ()
        assert report.outcomes["arguments_valid"] == "pass"
        assert report.outcomes["argument_refs_resolve"] == "pass"

    def test_missing_required_parameter(self) -> None:
        """The message names the missing parameter and what it expects."""
        report = check([{"id": "f", "capabilities": ["fetch_image"], "arguments": {"uri": "x"}}])
        assert found(report, "arguments_valid") == [
            (
                "f",
                "/tasks/0/arguments",
                "task 'f' (fetch_image) is missing the required parameter 'url'; expected a string",
            ),
            (
                "f",
                "/tasks/0/arguments/uri",
                "task 'f' (fetch_image) is given the parameter 'uri', which 'fetch_image' does "
                "not take (it takes 'url')",
            ),
        ]
        assert not report.ok

    def test_wrong_type_and_enum(self) -> None:
        """Type and enum errors name the parameter, the expected and the given value."""
        report = check(
            [{"id": "c", "capabilities": ["caption"], "arguments": {"image": 3, "style": "epic"}}]
        )
        assert [m for _, _, m in found(report, "arguments_valid")] == [
            "parameter 'image' of task 'c' (caption) must be a string, but is 3 (a number)",
            "parameter 'style' of task 'c' (caption) must be one of 'short', 'long', but is "
            "'epic' (a string)",
        ]
        assert [p for _, p, _ in found(report, "arguments_valid")] == [
            "/tasks/0/arguments/image",
            "/tasks/0/arguments/style",
        ]

    def test_reference_stands_for_a_value(self) -> None:
        """A reference or text with a reference is not judged as a literal (no type error)."""
        report = check(
            [
                FETCH,
                {
                    "id": "c",
                    "capabilities": ["caption"],
                    "depends_on": ["f"],
                    "arguments": {
                        "image": {"$concat": ["see ", {"$result": "f"}]},
                        "max_words": {"$result": "f"},
                    },
                },
            ]
        )
        assert found(report, "arguments_valid") == []

    def test_plan_without_arguments_is_not_judged(self) -> None:
        """A format without arguments is skipped, not failed for missing required ones."""
        report = check([{"id": "f", "capabilities": ["fetch_image"]}])
        assert report.ok
        assert report.outcomes["arguments_valid"] == "skip"
        assert report.outcomes["dataflow_types"] == "skip"

    def test_task_without_arguments_in_a_plan_with_arguments(self) -> None:
        """Once the plan passes arguments, a task that passes none misses its required ones."""
        report = check([FETCH, {"id": "c", "capabilities": ["caption"], "depends_on": ["f"]}])
        assert [p for _, p, _ in found(report, "arguments_valid")] == ["/tasks/1/arguments"]

    def test_registry_without_schemas_skips(self) -> None:
        """Tools without a schema: nothing to validate against."""
        report = check([{"id": "n", "capabilities": ["no_schema"], "arguments": {"a": 1}}])
        assert report.outcomes["arguments_valid"] == "skip"
        assert report.ok


class TestArgumentRefsResolve:
    def test_unknown_task(self) -> None:
        """A reference to a task the plan lacks, with the nearest id suggested."""
        report = check(
            [
                FETCH,
                {"id": "c", "capabilities": ["caption"], "arguments": {"image": {"$result": "ff"}}},
            ]
        )
        assert found(report, "argument_refs_resolve") == [
            (
                "c",
                "/tasks/1/arguments/image",
                "argument 'image' of task 'c' refers to the result of 'ff', which is not a task "
                "of the plan; did you mean 'f'?",
            )
        ]

    def test_not_a_dependency(self) -> None:
        """Strict: the producer must run before the consumer through depends_on."""
        tasks = [
            FETCH,
            {
                "id": "c",
                "capabilities": ["caption"],
                "arguments": {"image": {"$concat": ["x ", {"$result": "f"}]}},
            },
        ]
        report = check(tasks)
        assert [p for _, p, _ in found(report, "argument_refs_resolve")] == [
            "/tasks/1/arguments/image/$concat/1"
        ]
        assert "add 'f' to its depends_on" in found(report, "argument_refs_resolve")[0][2]
        # the suite's needs rule: a reference implies the dependency
        relaxed = check(tasks, needs="imply_deps")
        assert found(relaxed, "argument_refs_resolve") == []
        assert relaxed.ok

    def test_transitive_dependency_is_enough(self) -> None:
        """A producer two steps up is a strict ancestor."""
        report = check(
            [
                FETCH,
                {"id": "m", "capabilities": ["no_schema"], "depends_on": ["f"]},
                {
                    "id": "c",
                    "capabilities": ["caption"],
                    "depends_on": ["m"],
                    "arguments": {"image": {"$result": "f"}},
                },
            ]
        )
        assert found(report, "argument_refs_resolve") == []

    def test_own_result(self) -> None:
        report = check(
            [{"id": "c", "capabilities": ["caption"], "arguments": {"image": {"$result": "c"}}}]
        )
        assert [m for _, _, m in found(report, "argument_refs_resolve")] == [
            "argument 'image' of task 'c' refers to the task's own result"
        ]

    def test_a_need_already_reports_it(self) -> None:
        """TaskBench <node-9> beyond the plan: needs_resolve reports it, not twice."""
        record = {
            "task_nodes": [
                {"task": "A", "arguments": ["x"]},
                {"task": "B", "arguments": ["<node-9>"]},
            ]
        }
        report = check_plan(load_plan(json.dumps(record), format="taskbench"))
        assert [v.check for v in report.errors] == ["needs_resolve"]
        assert report.outcomes["argument_refs_resolve"] == "pass"

    def test_reference_links_the_task(self) -> None:
        """A task that reads another's result is not isolated."""
        report = check(
            [
                FETCH,
                {
                    "id": "c",
                    "capabilities": ["caption"],
                    "depends_on": [],
                    "arguments": {"image": {"$result": "f"}},
                },
            ],
            needs="imply_deps",
        )
        assert found(report, "isolated_task") == []


class TestDataflowTypes:
    TASKS: ClassVar[list[dict[str, Any]]] = [
        {"id": "c", "capabilities": ["caption"], "arguments": {"image": "a.png"}},
        {
            "id": "w",
            "capabilities": ["caption"],
            "depends_on": ["c"],
            "arguments": {"image": "b.png", "max_words": {"$result": "c"}},
        },
    ]

    def test_json_types_mismatch_is_a_warning(self) -> None:
        """An object result fed to an integer parameter: a warning, the plan still passes."""
        report = check(self.TASKS)
        assert found(report, "dataflow_types") == [
            (
                "w",
                "/tasks/1/arguments/max_words",
                "argument 'max_words' of task 'w' (caption) expects an integer, but it is given "
                "the result of 'c' (caption), which is an object",
            )
        ]
        assert report.ok
        assert report.outcomes["dataflow_types"] == "warn"

    def test_a_suite_can_make_it_an_error(self) -> None:
        report = check(self.TASKS, dataflow_types="error")
        assert not report.ok
        assert report.outcomes["dataflow_types"] == "fail"
        assert {v.severity for v in report.violations if v.check == "dataflow_types"} == {"error"}

    def test_matching_types_pass(self) -> None:
        """An integer result for an integer parameter."""
        report = check(
            [
                {"id": "n", "capabilities": ["count_words"], "arguments": {"text": "a b"}},
                {
                    "id": "c",
                    "capabilities": ["caption"],
                    "depends_on": ["n"],
                    "arguments": {"image": "x.png", "max_words": {"$result": "n"}},
                },
            ]
        )
        assert report.outcomes["dataflow_types"] == "pass"


class TestTaskBenchMultimedia:
    """Real TaskBench tool definitions: input-type / output-type declare media types."""

    def test_media_type_mismatch(self, shared_data: Path) -> None:
        """An image fed where audio is expected; the same plan with audio passes."""
        registry = load_registry(shared_data / "taskbench" / "multimedia_tool_desc.json")
        by_name = {c.name: c for c in registry.capabilities}
        assert by_name["Image Downloader"].output_types == ("image",)
        assert by_name["Audio Noise Reduction"].parameters is not None
        wrong = {
            "task_nodes": [
                {"task": "Image Downloader", "arguments": ["https://x.test/a.png"]},
                {"task": "Audio Noise Reduction", "arguments": ["<node-0>"]},
            ]
        }
        report = check_plan(load_plan(json.dumps(wrong), format="taskbench"), registry=registry)
        assert [(v.check, v.path) for v in report.violations] == [
            ("dataflow_types", "/tasks/1/arguments/arg0")
        ]
        assert "expects audio" in report.violations[0].message
        assert "which is image" in report.violations[0].message
        wrong["task_nodes"][0] = {"task": "Video-to-Audio", "arguments": ["a.mp4"]}
        report = check_plan(load_plan(json.dumps(wrong), format="taskbench"), registry=registry)
        assert report.violations == ()

    def test_wrong_arity(self, shared_data: Path) -> None:
        """A second argument to a one-input tool is one the tool does not take."""
        registry = load_registry(shared_data / "taskbench" / "multimedia_tool_desc.json")
        record = {"task_nodes": [{"task": "Image Downloader", "arguments": ["u", "extra"]}]}
        report = check_plan(load_plan(json.dumps(record), format="taskbench"), registry=registry)
        assert [(v.check, v.path) for v in report.violations] == [
            ("arguments_valid", "/tasks/0/arguments/arg1")
        ]


@pytest.mark.parametrize("domain", ["dailylifeapis", "huggingface", "multimedia"])
def test_taskbench_gold_sample_has_no_invalid_arguments(shared_data: Path, domain: str) -> None:
    """The published gold plans call their tools with the arguments the tools declare."""
    registry = load_registry(shared_data / "taskbench" / f"{domain}_tool_desc.json")
    lines = (shared_data / "taskbench" / "gold_sample" / f"{domain}.jsonl").read_text().splitlines()
    for line in lines:
        report = check_plan(load_plan(line, format="taskbench"), registry=registry)
        assert report.outcomes["arguments_valid"] == "pass", report.violations


def test_results_row_schema_names_every_check() -> None:
    """The results-row schema lists exactly the check ids, in report order."""
    from harness.checks import CHECKS
    from harness.schemas import load_schema

    assert load_schema("results-row")["$defs"]["check_id"]["enum"] == list(CHECKS)


def test_data_types_match_whatever_their_case(shared_data: Path) -> None:
    """TaskBench's Image Search declares output "Image", Image-to-Video's input "image"."""
    registry = load_registry(shared_data / "taskbench" / "multimedia_tool_desc.json")
    search = registry.resolve("Image Search")
    assert search is not None and search.output_types == ("Image",)
    record = {
        "task_nodes": [
            {"task": "Image Search", "arguments": ["cats"]},
            {"task": "Image-to-Video", "arguments": ["<node-0>", "<node-0>"]},
        ]
    }
    report = check_plan(load_plan(json.dumps(record), format="taskbench"), registry=registry)
    assert report.outcomes["dataflow_types"] == "pass", report.violations


class TestSeverityOptions:
    """A suite's ``expect: {dataflow_types: error}`` and ``check --dataflow-errors``."""

    def test_suite_expectation(self, tmp_path: Path) -> None:
        from harness.suite import load_suite
        from harness.testing import make_project

        path = make_project(tmp_path, extra={"expect": {"dataflow_types": "error"}})
        suite = load_suite(path)
        assert suite.expectations_for(suite.cases[0]).dataflow_types == "error"
        default = load_suite(make_project(tmp_path / "plain"))
        assert default.expectations_for(default.cases[0]).dataflow_types == "warning"

    def test_check_command(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """The same plan passes with a warning, and fails with --dataflow-errors."""
        from tests.cli_helpers import run_cli

        registry = tmp_path / "tools.json"
        registry.write_text(
            json.dumps(
                {
                    "tools": [
                        {
                            "name": "caption",
                            "inputSchema": REGISTRY.resolve("caption").parameters,  # type: ignore[union-attr]
                            "outputSchema": {"type": "object"},
                        },
                    ]
                }
            )
        )
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps({"tasks": TestDataflowTypes.TASKS}))
        warned = run_cli(capsys, "check", "--registry", str(registry), str(plan))
        assert warned.code == 0 and "dataflow_types" in warned.out
        failed = run_cli(
            capsys, "check", "--registry", str(registry), "--dataflow-errors", str(plan)
        )
        assert failed.code == 1 and "error   dataflow_types" in failed.out
