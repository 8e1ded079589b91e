"""score_plan's outcomes as a user reads them: the status, the exact reason, the values kept
under each convention, the notes, and the options (matcher, catalogue, dependency) reaching the
metrics. Every plan here is handwritten."""

from __future__ import annotations

import json
from collections.abc import Sequence

from harness.metrics import ToolCatalogue, score_plan

WORKFLOW = "Node:\n1: Open the door\n2: Walk in\nEdge: (START,1) (1,2) (2,END)"
RESOURCE_GOLD = {  # huggingface style: plain-text arguments, links from <node-k>
    "task_nodes": [
        {"task": "image_search", "arguments": ["cats.jpg"]},
        {"task": "summarize", "arguments": ["<node-0>"]},
    ],
    "task_links": [],
}
CANONICAL = {
    "tasks": [
        {"id": "a", "description": "Fetch the mail", "capabilities": ["email_read"]},
        {"id": "b", "description": "File it", "capabilities": ["archive"], "depends_on": ["a"]},
    ]
}
NO_WORKFLOW = "no WorfBench workflow in the answer (no 'Node' or no edge)"
NO_TASKBENCH = "no TaskBench plan in the answer (no JSON object with task_nodes)"
WORF_KEYS = {
    f"worfbench.{kind}_{part}"
    for part in ("chain", "graph")
    for kind in ("f1", "precision", "recall")
}


class TestUnusableReference:
    def test_reason_names_what_is_wrong(self) -> None:
        """Prose is no plan; a workflow with only TaskBench asked for has no family."""
        prose = score_plan(WORKFLOW, "just prose")
        filtered = score_plan(WORKFLOW, WORKFLOW, families=["taskbench"])
        assert (prose.status, prose.detail) == (
            "unusable_reference",
            "the reference is not a plan any metric reads",
        )
        assert (filtered.status, filtered.detail) == (
            "unusable_reference",
            "the reference is no metric family applies",
        )

    def test_taskbench_gold_the_script_cannot_read(self) -> None:
        """A gold node without a tool name: the reference is unusable whatever the answer,
        the reason names the node, and no value is reported."""
        gold = {"task_nodes": [{"arguments": []}], "task_links": []}
        for answer in (json.dumps(RESOURCE_GOLD), "Sorry, no plan."):
            result = score_plan(answer, gold)
            assert result.status == "unusable_reference"
            assert result.families == ("taskbench",)
            assert result.detail == "reference: gold node 0 has no string 'task'"
            assert result.metrics == {} and result.taskbench is None

    def test_explicit_dependency_is_used(self) -> None:
        """Temporal links need {name, value} arguments: asking for temporal on a resource gold
        makes it unusable, while the inferred (resource) reading scores it."""
        answer = json.dumps(RESOURCE_GOLD)
        assert score_plan(answer, RESOURCE_GOLD).status == "scored"
        temporal = score_plan(answer, RESOURCE_GOLD, dependency="temporal")
        assert temporal.status == "unusable_reference"
        assert temporal.detail == (
            "reference: gold node 0: arguments must be {name, value} objects"
        )


class TestUnparseableAnswer:
    def test_workflow_zero_and_exclude(self) -> None:
        """Prose against a workflow: every WorfBench value 0 under zero, none under exclude,
        the same reason either way."""
        zero = score_plan("Sorry.", WORKFLOW)
        exclude = score_plan("Sorry.", WORKFLOW, unparseable="exclude")
        assert (zero.status, zero.families, zero.detail) == (
            "unparseable",
            ("worfbench",),
            NO_WORKFLOW,
        )
        assert zero.metrics == dict.fromkeys(WORF_KEYS, 0.0)
        assert (exclude.status, exclude.detail, exclude.metrics) == (
            "unparseable",
            NO_WORKFLOW,
            {},
        )
        assert zero.taskbench is None

    def test_taskbench_answer_counts_as_an_empty_plan(self) -> None:
        """Prose against a TaskBench gold: the values of an empty plan (F1 0, edit distance 1)
        and the gold's side of the corpus counts, under either convention."""
        zero = score_plan("Sorry.", RESOURCE_GOLD)
        exclude = score_plan("Sorry.", RESOURCE_GOLD, unparseable="exclude")
        assert (zero.status, zero.detail) == ("unparseable", NO_TASKBENCH)
        assert zero.metrics["taskbench.node_f1"] == 0.0
        assert zero.metrics["taskbench.link_f1"] == 0.0
        assert zero.metrics["taskbench.edit_distance"] == 1.0
        assert exclude.metrics == {}
        for result in (zero, exclude):
            assert result.taskbench is not None
            assert result.taskbench.gold_nodes == {"image search", "summarize"}
            assert result.taskbench.pred_nodes == frozenset()
            assert result.taskbench.n_tools == 2

    def test_answer_the_script_drops(self) -> None:
        """A predicted node without a tool name: dropped as TaskBench drops it, with the
        empty-plan values under zero."""
        answer = json.dumps({"task_nodes": [{"task": 3}], "task_links": []})
        result = score_plan(answer, RESOURCE_GOLD)
        assert result.status == "unparseable"
        assert (
            result.detail == "TaskBench drops this answer: prediction node 0 has no string 'task'"
        )
        assert result.metrics["taskbench.node_f1"] == 0.0
        assert result.taskbench is not None and result.taskbench.n_tools == 2

    def test_both_families_give_both_reasons(self) -> None:
        """Prose against a canonical plan: both readers fail, both reasons, in family order."""
        result = score_plan("Sorry.", CANONICAL)
        assert result.status == "unparseable"
        assert result.families == ("taskbench", "worfbench")
        assert result.detail == f"{NO_TASKBENCH}; {NO_WORKFLOW}"
        assert result.metrics.keys() >= WORF_KEYS
        assert result.metrics["taskbench.node_f1"] == 0.0


class TestScored:
    def test_notes_from_worfbench_reach_the_result(self) -> None:
        """A gold with a cycle has no f1_chain: scored, with the note, f1_graph still there."""
        gold = "Node:\n1: a\n2: b\nEdge: (START,1) (1,2) (2,1) (2,END)"
        result = score_plan(gold, gold)
        assert result.status == "scored"
        assert "worfbench.f1_chain" not in result.metrics
        assert result.metrics["worfbench.f1_graph"] == 1.0
        assert result.notes == (
            "f1_chain not defined: the gold has a cycle (the official script crashes)",
        )

    def test_notes_from_taskbench_reach_the_result(self) -> None:
        """An argument the script cannot convert counts the previous one again: noted."""
        gold = {
            "task_nodes": [{"task": "image_search", "arguments": ["cats.jpg", 5]}],
            "task_links": [],
        }
        result = score_plan(json.dumps(gold), gold)
        assert result.status == "scored"
        assert result.notes[0].startswith("gold node 0 argument 1 is unusable")
        assert result.taskbench is not None
        assert result.to_dict()["notes"] == list(result.notes)

    def test_the_matcher_given_is_the_one_used(self) -> None:
        """A matcher that finds every pair similar matches reworded steps (f1_graph 1)."""

        class Everything:
            name = "everything"

            def similarity(self, pred: Sequence[str], gold: Sequence[str]) -> list[list[float]]:
                return [[1.0] * len(gold) for _ in pred]

        reworded = WORKFLOW.replace("Open the door", "Unlock it").replace("Walk in", "Enter")
        assert score_plan(reworded, WORKFLOW).metrics["worfbench.f1_graph"] < 1.0
        everything = score_plan(reworded, WORKFLOW, matcher=Everything()).metrics
        assert everything["worfbench.f1_graph"] == 1.0

    def test_the_catalogue_given_is_the_one_used(self) -> None:
        """A tool missing from the catalogue adds nothing to the node counts."""
        catalogue = ToolCatalogue(("image search",))
        answer = json.dumps(RESOURCE_GOLD)
        full = score_plan(answer, RESOURCE_GOLD)
        narrow = score_plan(answer, RESOURCE_GOLD, catalogue=catalogue)
        assert full.taskbench is not None and narrow.taskbench is not None
        assert full.taskbench.pred_nodes == {"image search", "summarize"}
        assert narrow.taskbench.pred_nodes == {"image search"}

    def test_reference_as_text_or_object(self) -> None:
        """A TaskBench gold given as JSON text reads like the object: resource links found."""
        as_text = score_plan(json.dumps(RESOURCE_GOLD), json.dumps(RESOURCE_GOLD))
        as_object = score_plan(RESOURCE_GOLD, RESOURCE_GOLD)
        assert as_text.status == as_object.status == "scored"
        assert as_text.metrics == as_object.metrics
        assert as_text.taskbench is not None
        assert as_text.taskbench.gold_links == {("image search", "summarize")}

    def test_json_form(self) -> None:
        """to_dict: status, families and metrics always; detail, notes and the TaskBench
        sample only when there are some."""
        plain = score_plan(WORKFLOW, WORKFLOW).to_dict()
        assert plain == {
            "status": "scored",
            "families": ["worfbench"],
            "metrics": dict.fromkeys(WORF_KEYS, 1.0),
        }
        dropped = score_plan("Sorry.", RESOURCE_GOLD).to_dict()
        assert dropped["detail"] == NO_TASKBENCH
        assert dropped["taskbench"]["nodes"] == [["image search", "summarize"], []]
        assert "notes" not in dropped
