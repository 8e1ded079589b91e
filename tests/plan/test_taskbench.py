"""TaskBench plans read exactly: node occurrences, links resolved to pairs, every citation form.

All plans here are hand-written (provenance: handwritten) in TaskBench's record shape.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.checks import CheckReport, check_plan
from harness.plan import Need, Plan, load_plan


def _plan(nodes: list[tuple[str, list[Any]]], links: list[tuple[str, str]] | None) -> Plan:
    record: dict[str, Any] = {
        "id": "hand",
        "task_nodes": [{"task": tool, "arguments": args} for tool, args in nodes],
    }
    if links is not None:
        record["task_links"] = [{"source": s, "target": t} for s, t in links]
    return load_plan(json.dumps(record), format="taskbench")


def _deps(plan: Plan) -> dict[str, tuple[str, ...]]:
    return {t.id: t.depends_on for t in plan.tasks if t.depends_on}


def _failed(report: CheckReport) -> set[str]:
    return {v.check for v in report.errors}


class TestRepeatedToolsWithoutCitations:
    """Temporal plans (links only): the earliest unused pair, never a needless cycle."""

    def test_chain_through_a_tool_used_twice(self) -> None:
        """calendar_note -> calendar_annotation -> calendar_note is a chain, not a cycle."""
        plan = _plan(
            [("calendar_note", []), ("calendar_annotation", []), ("calendar_note", [])],
            [("calendar_note", "calendar_annotation"), ("calendar_annotation", "calendar_note")],
        )
        assert _deps(plan) == {"node-1": ("node-0",), "node-2": ("node-1",)}
        assert check_plan(plan).ok

    def test_chain_when_nodes_are_sorted_by_name(self) -> None:
        """TaskBench's gold lists nodes alphabetically; the chain is still found acyclic."""
        plan = _plan(
            [("calendar_annotation", []), ("calendar_note", []), ("calendar_note", [])],
            [("calendar_annotation", "calendar_note"), ("calendar_note", "calendar_annotation")],
        )
        assert _deps(plan) == {"node-1": ("node-0",), "node-0": ("node-2",)}
        assert check_plan(plan).ok

    def test_chain_through_a_tool_used_three_times(self) -> None:
        """a -> b -> a -> b -> a: each link takes a fresh pair, the chain stays a chain."""
        plan = _plan(
            [("a", []), ("b", []), ("a", []), ("b", []), ("a", [])],
            [("a", "b"), ("b", "a"), ("a", "b"), ("b", "a")],
        )
        assert check_plan(plan).ok
        assert len({d for ds in _deps(plan).values() for d in ds}) == 4  # four distinct edges

    def test_parallel_branches_take_distinct_pairs(self) -> None:
        """Two T2I -> IC branches: the second link takes the unused pair (2, 3)."""
        plan = _plan(
            [("T2I", []), ("IC", []), ("T2I", []), ("IC", [])],
            [("T2I", "IC"), ("T2I", "IC")],
        )
        assert _deps(plan) == {"node-1": ("node-0",), "node-3": ("node-2",)}

    def test_three_parallel_branches(self) -> None:
        plan = _plan(
            [("T2I", []), ("T2I", []), ("T2I", []), ("IC", []), ("IC", []), ("IC", [])],
            [("T2I", "IC")] * 3,
        )
        assert _deps(plan) == {"node-3": ("node-0",), "node-4": ("node-1",), "node-5": ("node-2",)}

    def test_diamond_with_a_repeated_middle_tool(self) -> None:
        """top -> mid, top -> mid, mid -> end, mid -> end: two middles, one diamond."""
        plan = _plan(
            [("top", []), ("mid", []), ("mid", []), ("end", [])],
            [("top", "mid"), ("top", "mid"), ("mid", "end"), ("mid", "end")],
        )
        assert _deps(plan) == {
            "node-1": ("node-0",),
            "node-2": ("node-0",),
            "node-3": ("node-1", "node-2"),
        }
        assert check_plan(plan).ok

    def test_diamond_whose_ends_are_the_same_tool(self) -> None:
        """x -> y -> x and x -> z -> x with two x nodes: acyclic, the first x is the top."""
        plan = _plan(
            [("x", []), ("y", []), ("z", []), ("x", [])],
            [("x", "y"), ("x", "z"), ("y", "x"), ("z", "x")],
        )
        assert _deps(plan) == {
            "node-1": ("node-0",),
            "node-2": ("node-0",),
            "node-3": ("node-1", "node-2"),
        }

    def test_a_real_cycle_is_still_reported(self) -> None:
        """a -> b -> a with one node each has no acyclic reading: acyclic fails."""
        plan = _plan([("a", []), ("b", [])], [("a", "b"), ("b", "a")])
        assert _failed(check_plan(plan)) == {"acyclic"}

    def test_a_tool_linked_to_itself_once(self) -> None:
        """A link from a tool to itself with one node is that node depending on itself."""
        plan = _plan([("a", [])], [("a", "a")])
        assert _failed(check_plan(plan)) == {"self_dependency"}


class TestCitationsWin:
    """Resource plans: a pair whose target cites its source wins over plan order."""

    def test_crossed_parallel_branches(self) -> None:
        """IC node 2 reads T2I node 1 and IC node 3 reads T2I node 0: links follow that."""
        plan = _plan(
            [("T2I", ["a cat"]), ("T2I", ["a dog"]), ("IC", ["<node-1>"]), ("IC", ["<node-0>"])],
            [("T2I", "IC"), ("T2I", "IC")],
        )
        assert _deps(plan) == {"node-2": ("node-1",), "node-3": ("node-0",)}
        assert check_plan(plan).ok

    def test_chain_of_three_uses_of_one_tool(self) -> None:
        """Translate three times in a row, citing each other: a chain in citation order."""
        plan = _plan(
            [("tr", ["<node-2>"]), ("tr", ["hello"]), ("tr", ["<node-1>"])],
            [("tr", "tr"), ("tr", "tr")],
        )
        assert _deps(plan) == {"node-0": ("node-2",), "node-2": ("node-1",)}
        assert check_plan(plan).ok

    def test_citations_alone_are_the_links(self) -> None:
        """TaskBench's resource predictions have no task_links: <node-k> is the dependency."""
        plan = _plan([("A", ["x"]), ("B", ["<node-0>"]), ("C", ["<node-1>", "<node-0>"])], None)
        assert _deps(plan) == {"node-1": ("node-0",), "node-2": ("node-1", "node-0")}
        assert check_plan(plan).ok


class TestCitationForms:
    @pytest.mark.parametrize(
        "argument",
        [
            "<node-0>",
            "<output-of-node-0>",
            "image: <node-0>",
            {"name": "image", "value": "<node-0>"},
            ["<node-0>", "extra"],
        ],
    )
    def test_each_index_form_is_a_need_and_a_dependency(self, argument: Any) -> None:
        plan = _plan([("A", ["x"]), ("B", [argument])], [("A", "B")])
        assert [n.task for n in plan.task("node-1").needs] == ["node-0"]
        assert plan.task("node-1").depends_on == ("node-0",)
        assert check_plan(plan).ok

    def test_argument_name_is_the_need_name(self) -> None:
        plan = _plan([("A", ["x"]), ("B", [{"name": "image", "value": "<node-0>"}])], [])
        assert plan.task("node-1").needs == (Need("image", "node-0"),)

    def test_tool_name_value_is_a_need_the_links_must_satisfy(self) -> None:
        """Temporal prompt: 'value': the name of the tool whose result is required."""
        nodes = [
            ("get_weather", [{"name": "city", "value": "Oslo"}]),
            ("send_sms", [{"name": "text", "value": "get_weather"}]),
        ]
        linked = _plan(nodes, [("get_weather", "send_sms")])
        assert linked.task("node-1").needs == (Need("text", "node-0"),)
        assert check_plan(linked).ok
        unlinked = _plan(nodes, [])
        assert _failed(check_plan(unlinked)) == {"needs_earlier_output"}

    @pytest.mark.parametrize("form", ["<node-search>", "<output-of-search>", "search"])
    def test_ambiguous_tool_citation_is_explained(self, form: str) -> None:
        """A tool used twice: the nearest earlier use is read, and the message says so."""
        plan = _plan(
            [("search", ["a"]), ("search", ["b"]), ("send", [{"name": "body", "value": form}])],
            [],
        )
        assert plan.task("node-2").needs == (Need("body", "node-1"),)
        (violation,) = check_plan(plan).errors
        assert violation.check == "needs_earlier_output"
        assert "'search' is the tool of node-0 and node-1" in violation.message
        assert "read as node-1, the nearest earlier one" in violation.message

    def test_self_citation_is_self_dependency(self) -> None:
        plan = _plan([("A", ["<node-0>"])], [])
        (violation,) = check_plan(plan).errors
        assert violation.check == "self_dependency"
        assert violation.path == "/tasks/0/needs/0"

    def test_citation_beyond_the_plan_is_needs_resolve(self) -> None:
        """The shape of a real TaskBench gold defect (multimedia 46051366: <node-5> of 5)."""
        plan = _plan([("A", ["x"]), ("B", ["<node-5>"])], [("A", "B")])
        (violation,) = check_plan(plan).errors
        assert violation.check == "needs_resolve"
        assert "'node-5'" in violation.message

    def test_citation_cycle_is_acyclic(self) -> None:
        plan = _plan([("A", ["<node-1>"]), ("B", ["<node-0>"])], None)
        assert _failed(check_plan(plan)) == {"acyclic"}


class TestLinksToNothing:
    @pytest.mark.parametrize(
        ("link", "missing"),
        [
            (("Step 2", "B"), "'Step 2' names"),  # missing source
            (("A", "Step 3"), "'Step 3' names"),  # missing target: no longer silently dropped
            (("Step 2", "Step 3"), "'Step 2' and 'Step 3' name"),  # both
        ],
    )
    def test_missing_end_is_deps_resolve(self, link: tuple[str, str], missing: str) -> None:
        plan = _plan([("A", ["x"]), ("B", ["<node-0>"])], [("A", "B"), link])
        (violation,) = check_plan(plan).errors
        assert violation.check == "deps_resolve"
        assert violation.path == "/links/unresolved/0"
        assert f"task_links[1] links {link[0]!r} -> {link[1]!r}" in violation.message
        assert missing in violation.message

    def test_link_that_is_not_an_object(self) -> None:
        record = {"task_nodes": [{"task": "A"}], "task_links": ["A -> B"]}
        (violation,) = check_plan(load_plan(json.dumps(record))).errors
        assert violation.check == "deps_resolve"
        assert "task_links[0] is unusable" in violation.message


class TestRecordShapes:
    def test_prediction_record_with_result(self) -> None:
        """TaskBench's prediction files nest the plan under 'result'."""
        record = {
            "id": "9",
            "result": {
                "task_steps": ["s1", "s2"],
                "task_nodes": [{"task": "A", "arguments": []}, {"task": "B", "arguments": []}],
                "task_links": [{"source": "A", "target": "B"}],
            },
        }
        plan = load_plan(json.dumps(record))
        assert plan.plan_id == "9"
        assert _deps(plan) == {"node-1": ("node-0",)}

    def test_request_is_the_goal(self) -> None:
        plan = load_plan(json.dumps({"user_request": "Do it.", "task_nodes": []}))
        assert plan.goal == "Do it."
