"""How answers and references are read for each benchmark: JSON found in model text, canonical
plans converted to WorfBench workflows and TaskBench records, the families a reference
supports. Every plan here is handwritten."""

from __future__ import annotations

import json

from harness.metrics._views import (
    find_json,
    infer_dependency,
    plan_to_worfgraph,
    reference_family,
    taskbench_record,
    worfgraph,
)
from harness.plan import Plan

RECORD = {
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
WORKFLOW = "Node:\n1: Open the door\n2: Walk in\nEdge: (START,1) (1,2) (2,END)"


class TestFindJson:
    def test_whole_text_fenced_and_in_prose(self) -> None:
        """A bare object, one in a code fence and one after prose are all found."""
        text = json.dumps(RECORD)
        assert find_json(text) == RECORD
        assert find_json(f"Here it is:\n```json\n{text}\n```\nDone.") == RECORD
        assert find_json(f"My plan is {text} as asked") == RECORD

    def test_skips_what_is_not_a_plan(self) -> None:
        """Broken JSON and objects without task_nodes or tasks are passed over."""
        text = f'{{broken}} then {{"note": 1}} then {json.dumps(CANONICAL)}'
        assert find_json(text) == CANONICAL
        assert find_json('{"note": 1}') is None
        assert find_json("[1, 2]") is None
        assert find_json("no JSON here") is None

    def test_a_result_wrapper_is_opened(self) -> None:
        """HuggingGPT-style ``{"result": {...}}``: the plan inside is returned."""
        assert find_json(json.dumps({"result": RECORD})) == RECORD
        assert find_json(json.dumps({"result": CANONICAL})) == CANONICAL
        assert find_json(json.dumps({"result": {"note": 1}})) is None


class TestWorfgraph:
    def test_json_answers_are_not_read_as_workflows(self) -> None:
        """A canonical plan whose description quotes Node/Edge text is read as the plan."""
        plan = {"tasks": [{"id": "a", "description": "Node: 1: x Edge: (START,1) (1,END)"}]}
        graph = worfgraph(json.dumps(plan))
        assert graph is not None
        assert graph.nodes == ("START", "Node: 1: x Edge: (START,1) (1,END)", "END")

    def test_json_after_leading_blank_lines_is_still_json(self) -> None:
        """Blank lines and spaces before the object do not make it a workflow: the nodes are
        the plan's task, not the Node/Edge text quoted inside it."""
        plan = {"tasks": [{"id": "a", "description": "Node: 1: x Edge: (START,1) (1,END)"}]}
        graph = worfgraph("\n  \n  " + json.dumps(plan))
        assert graph is not None
        assert graph.nodes == ("START", "Node: 1: x Edge: (START,1) (1,END)", "END")
        assert reference_family("\n  " + json.dumps(plan)) == ("taskbench", "worfbench")

    def test_brace_prose_before_a_workflow(self) -> None:
        """Text that starts with a brace but holds no JSON plan is still read as a workflow."""
        graph = worfgraph("{draft}\n" + WORKFLOW)
        assert graph is not None
        assert graph.nodes == ("START", "Open the door", "Walk in", "END")

    def test_taskbench_and_canonical_answers(self) -> None:
        """A TaskBench record and a canonical plan, as objects or text, become workflows."""
        expected_record = ("START", "image_search", "summarize", "END")
        assert worfgraph(RECORD).nodes == expected_record  # type: ignore[union-attr]
        assert worfgraph(json.dumps(RECORD)).nodes == expected_record  # type: ignore[union-attr]
        graph = worfgraph(f"Plan:\n{json.dumps(CANONICAL)}")
        assert graph is not None
        assert graph.nodes == ("START", "Fetch the mail", "File it", "END")
        assert graph.edges == ((0, 1), (1, 2), (2, 3))
        assert worfgraph(Plan.from_dict(CANONICAL)) == graph

    def test_unreadable_answers(self) -> None:
        """Prose, a malformed canonical plan and a malformed record give no workflow."""
        assert worfgraph("I cannot help with that.") is None
        assert worfgraph({"tasks": "none"}) is None
        assert worfgraph({"task_nodes": "none"}) is None
        assert worfgraph({"note": 1}) is None


class TestPlanToWorfgraph:
    def test_node_texts_and_edges(self) -> None:
        """Description, else the first capability, else the id; tasks nothing depends on lead
        to END, tasks without dependencies follow START."""
        plan = Plan.from_dict(
            {
                "tasks": [
                    {"id": "a", "capabilities": ["search", "browse"]},
                    {"id": "b"},
                    {"id": "c", "description": "Merge", "depends_on": ["a", "b"]},
                ]
            }
        )
        graph = plan_to_worfgraph(plan)
        assert graph.nodes == ("START", "search", "b", "Merge", "END")
        assert set(graph.edges) == {(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)}

    def test_single_task(self) -> None:
        """One task: START -> 1 -> END."""
        graph = plan_to_worfgraph(Plan.from_dict({"tasks": [{"id": "only"}]}))
        assert graph.edges == ((0, 1), (1, 2))


PLAN_WITH_ARGUMENTS = {
    "tasks": [
        {
            "id": "a",
            "description": "Fetch",
            "capabilities": ["mail", "other"],
            "arguments": [{"name": "q", "value": "v"}, "free text"],
        },
        {"id": "b", "description": "File it", "depends_on": ["missing", "a"]},
    ]
}


class TestTaskbenchRecord:
    def test_resource_mode_cites_nodes(self) -> None:
        """Resource: a dependency is a ``<node-k>`` argument after the task's own arguments;
        the tool is the first capability, else the description; an unknown dependency is
        skipped, not the ones after it."""
        record = taskbench_record(Plan.from_dict(PLAN_WITH_ARGUMENTS), "resource")
        assert record == {
            "task_nodes": [
                {"task": "mail", "arguments": [{"name": "q", "value": "v"}, "free text"]},
                {"task": "File it", "arguments": ["<node-0>"]},
            ],
            "task_links": [],
        }

    def test_temporal_mode_links_tasks(self) -> None:
        """Temporal: a dependency is a task link; only {name, value} arguments are kept."""
        record = taskbench_record(json.dumps(PLAN_WITH_ARGUMENTS), "temporal")
        assert record == {
            "task_nodes": [
                {"task": "mail", "arguments": [{"name": "q", "value": "v"}]},
                {"task": "File it", "arguments": []},
            ],
            "task_links": [{"source": "mail", "target": "File it"}],
        }

    def test_records_pass_through_and_prose_is_none(self) -> None:
        """A TaskBench record is used as it is, from an object or text; prose gives None."""
        assert taskbench_record(RECORD, "resource") is RECORD
        assert taskbench_record(json.dumps(RECORD), "resource") == RECORD
        assert taskbench_record("Sorry, no plan.", "resource") is None
        assert taskbench_record({"tasks": "none"}, "temporal") is None
        assert taskbench_record({"note": 1}, "temporal") is None


class TestReferenceFamily:
    def test_each_kind_of_reference(self) -> None:
        """Workflow: WorfBench; TaskBench record: TaskBench; canonical plan (object, text or
        Plan): both; anything else: none."""
        assert reference_family(WORKFLOW) == ("worfbench",)
        assert reference_family(json.dumps(RECORD)) == ("taskbench",)
        assert reference_family(RECORD) == ("taskbench",)
        both = ("taskbench", "worfbench")
        assert reference_family(CANONICAL) == both
        assert reference_family(json.dumps(CANONICAL)) == both
        assert reference_family(Plan.from_dict(CANONICAL)) == both
        assert reference_family({"tasks": "none"}) == ()
        assert reference_family({"note": 1}) == ()
        assert reference_family("Node: but no edge") == ()
        assert reference_family("prose") == ()


class TestInferDependency:
    """Which TaskBench dependency a gold record uses, from its first argument."""

    def test_name_value_objects_are_temporal(self) -> None:
        """dailylifeapis: ``{name, value}`` arguments (extra keys allowed) mean temporal."""
        record = {"task_nodes": [{"task": "t", "arguments": [{"name": "q", "value": "v"}]}]}
        assert infer_dependency(record) == "temporal"
        extra = {"name": "q", "value": "v", "type": "str"}
        assert infer_dependency({"task_nodes": [{"task": "t", "arguments": [extra]}]}) == (
            "temporal"
        )

    def test_text_and_incomplete_objects_are_resource(self) -> None:
        """huggingface / multimedia: plain text or a ``<node-k>`` citation means resource, and
        so does an object missing ``value``, even when links exist."""
        links = [{"source": "a", "target": "b"}]
        text = {"task_nodes": [{"task": "t", "arguments": ["cats.jpg"]}], "task_links": links}
        assert infer_dependency(text) == "resource"
        half = {"task_nodes": [{"task": "t", "arguments": [{"name": "q"}]}], "task_links": links}
        assert infer_dependency(half) == "resource"

    def test_the_first_argument_decides(self) -> None:
        """Text first then an object: resource; nodes without arguments (or not objects) are
        passed over until one has an argument."""
        mixed = [{"task": "t", "arguments": ["<node-0>", {"name": "q", "value": "v"}]}]
        assert infer_dependency({"task_nodes": mixed}) == "resource"
        later = [
            "not a node",
            {"task": "a"},
            {"task": "b", "arguments": []},
            {"task": "c", "arguments": [{"name": "q", "value": "v"}]},
        ]
        assert infer_dependency({"task_nodes": later}) == "temporal"

    def test_without_arguments_links_decide(self) -> None:
        """No argument anywhere: temporal when the record has task links, else resource."""
        nodes = [{"task": "a"}, {"task": "b", "arguments": None}]
        links = [{"source": "a", "target": "b"}]
        assert infer_dependency({"task_nodes": nodes, "task_links": links}) == "temporal"
        assert infer_dependency({"task_nodes": nodes, "task_links": []}) == "resource"
        assert infer_dependency({"task_nodes": None, "task_links": links}) == "temporal"
        assert infer_dependency({}) == "resource"
