"""The TaskBench reader at its edges: refusals with their place, the prediction wrapper and the
request, every argument form a citation can hide in, ambiguous tool citations, and links that
name nothing. Every record here is handwritten."""

from __future__ import annotations

from typing import Any

import pytest

from harness._errors import PlanLoadError
from harness.plan._taskbench import taskbench_to_dict


def read(record: dict[str, Any]) -> dict[str, Any]:
    return taskbench_to_dict(record, source="r.json")


def node(task: str, *arguments: Any) -> dict[str, Any]:
    return {"task": task, "arguments": list(arguments)}


class TestRefusals:
    @pytest.mark.parametrize(
        ("record", "what", "location"),
        [
            ({"task_nodes": "x"}, "'task_nodes' must be a list", "/task_nodes"),
            ({"id": 1, "result": {"task_nodes": 5}}, "'task_nodes' must be a list",
             "/result/task_nodes"),
            ({"task_nodes": [node("a"), {"tool": "b"}]},
             "a TaskBench node must be an object with a string 'task'", "/task_nodes/1"),
            ({"task_nodes": ["a"]},
             "a TaskBench node must be an object with a string 'task'", "/task_nodes/0"),
            ({"result": {"task_nodes": [3]}},
             "a TaskBench node must be an object with a string 'task'", "/result/task_nodes/0"),
        ],
    )  # fmt: skip
    def test_the_reason_and_the_place(
        self, record: dict[str, Any], what: str, location: str
    ) -> None:
        with pytest.raises(PlanLoadError) as caught:
            read(record)
        error = caught.value
        assert (error.what, error.source, error.location) == (what, "r.json", location)


class TestRecordShapes:
    def test_top_level_nodes_win_over_a_result(self) -> None:
        plan = read({"task_nodes": [node("a")], "result": {"task_nodes": [node("b")]}})
        assert [t["description"] for t in plan["tasks"]] == ["a"]

    def test_the_request_of_the_record_or_of_its_result(self) -> None:
        inner = read({"result": {"task_nodes": [node("a")], "user_request": "inner"}})
        assert inner["goal"] == "inner"
        outer = read({"user_request": "outer",
                      "result": {"task_nodes": [node("a")], "user_request": "inner"}})  # fmt: skip
        assert outer["goal"] == "outer"


def needs(plan: dict[str, Any], k: int) -> list[dict[str, str]]:
    return plan["tasks"][k]["needs"]


class TestArgumentForms:
    def test_a_mapping_of_arguments_is_named_by_its_keys(self) -> None:
        plan = read({"task_nodes": [node("a"), {"task": "b", "arguments": {"image": "<node-0>"}}]})
        assert needs(plan, 1) == [{"name": "image", "task": "node-0"}]

    def test_an_object_without_name_or_value_is_read_by_its_first_value(self) -> None:
        plan = read({"task_nodes": [node("a"), node("b", {"src": "<node-0>"}, {})]})
        assert needs(plan, 1) == [{"name": "arg0", "task": "node-0"}]

    def test_a_name_without_a_value_cites_nothing(self) -> None:
        """``{"name": "a"}`` is an argument called a with no value, not a citation of tool a."""
        plan = read({"task_nodes": [node("a"), node("b", {"name": "a"})]})
        assert needs(plan, 1) == []

    def test_a_list_value_is_read_as_its_words(self) -> None:
        """["image", "captioner"] is the text "image captioner", the name of node 0's tool."""
        plan = read({"task_nodes": [node("image captioner"), node("b", ["image", "captioner"])]})
        assert needs(plan, 1) == [{"name": "arg0", "task": "node-0"}]


class TestCitations:
    def test_a_citation_of_the_node_count_is_beyond_the_plan(self) -> None:
        """Two nodes are node-0 and node-1: <node-2> names no node (needs_resolve)."""
        plan = read({"task_nodes": [node("a"), node("b", "<node-2>")]})
        assert needs(plan, 1) == [{"name": "arg0", "task": "node-2"}]
        assert plan["tasks"][1]["depends_on"] == []

    def test_a_citation_beyond_the_plan_does_not_hide_the_next(self) -> None:
        plan = read({"task_nodes": [node("a"), node("b", "<node-5> <node-0>")]})
        assert needs(plan, 1) == [
            {"name": "arg0", "task": "node-5"},
            {"name": "arg0", "task": "node-0"},
        ]
        assert plan["tasks"][1]["depends_on"] == ["node-0"]

    def test_an_argument_name_that_is_not_text_is_positional(self) -> None:
        plan = read({"task_nodes": [node("a"), node("b", {"name": 5, "value": "<node-0>"})]})
        assert needs(plan, 1) == [{"name": "arg0", "task": "node-0"}]

    def test_a_node_citing_its_own_tool_by_name(self) -> None:
        plan = read({"task_nodes": [node("search", "<node-search>")]})
        assert needs(plan, 0) == [{"name": "arg0", "task": "node-0"}]
        assert "links" not in plan

    def test_a_tool_that_only_occurs_later(self) -> None:
        plan = read({"task_nodes": [node("a", "<node-b>"), node("b")]})
        assert needs(plan, 0) == [{"name": "arg0", "task": "node-1"}]
        assert "links" not in plan  # one occurrence: nothing to explain

    def test_a_tool_that_occurs_twice_only_later(self) -> None:
        plan = read({"task_nodes": [node("a", "<node-b>"), node("b"), node("b")]})
        assert needs(plan, 0) == [{"name": "arg0", "task": "node-1"}]
        assert plan["links"]["notes"] == {
            "/tasks/0/needs/0": "'b' is the tool of node-1 and node-2; the citation is read as "
            "node-1, the first; none is earlier"
        }

    def test_a_tool_that_occurs_three_times(self) -> None:
        plan = read({"task_nodes": [node("b"), node("b"), node("a", "<node-b>"), node("b")]})
        assert needs(plan, 2) == [{"name": "arg0", "task": "node-1"}]
        assert plan["links"]["notes"] == {
            "/tasks/2/needs/0": "'b' is the tool of node-0, node-1 and node-3; the citation is "
            "read as node-1, the nearest earlier one"
        }


class TestLinksToNothing:
    def test_links_that_are_not_a_list(self) -> None:
        plan = read({"task_nodes": [node("a")], "task_links": "a->a"})
        assert plan["links"]["unresolved"] == [
            {"index": -1, "source": "", "target": "", "missing": [],
             "problem": "'task_links' is not a list"}
        ]  # fmt: skip

    def test_bad_and_missing_links_do_not_hide_the_next_ones(self) -> None:
        plan = read({
            "task_nodes": [node("a"), node("b"), node("c")],
            "task_links": [
                {"source": "a", "target": 5},
                {"source": "a", "target": "b"},
                {"source": "z", "target": "c"},
                {"source": "b", "target": "c"},
            ],
        })  # fmt: skip
        assert plan["links"]["unresolved"] == [
            {"index": 0, "source": "", "target": "", "missing": [],
             "problem": "not an object with string source/target"},
            {"index": 2, "source": "z", "target": "c", "missing": ["z"]},
        ]  # fmt: skip
        assert [t["depends_on"] for t in plan["tasks"]] == [[], ["node-0"], ["node-1"]]
