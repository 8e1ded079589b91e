"""A reference read once (``Reference.read``) scores every answer exactly as the source does,
whatever form the reference takes, and the TaskBench gold read once serves any catalogue.
Every plan here is handwritten."""

from __future__ import annotations

import json

import pytest

from harness.metrics import (
    Reference,
    ToolCatalogue,
    read_taskbench_gold,
    score_plan,
    taskbench_sample,
)
from harness.plan import Plan

WORKFLOW = (
    "Node:\n1: Open the door\n2: Walk in\n3: Close the door\nEdge: (START,1) (1,2) (2,3) (3,END)"
)
RESOURCE = {
    "task_nodes": [
        {"task": "image_search", "arguments": ["cats.jpg"]},
        {"task": "image_to_text", "arguments": ["<node-0>"]},
        {"task": "summarize", "arguments": ["<node-1>", 7]},  # 7: unusable, counted again
    ],
    "task_links": [],
}
TEMPORAL = {
    "task_nodes": [
        {"task": "get_weather", "arguments": [{"name": "city", "value": "Oslo"}]},
        {"task": "send_sms", "arguments": [{"name": "text", "value": "rain"}]},
    ],
    "task_links": [{"source": "get_weather", "target": "send_sms"}],
}
CANONICAL = {
    "tasks": [
        {"id": "a", "description": "Open the door", "capabilities": ["door"]},
        {"id": "b", "description": "Walk in", "capabilities": ["walk"], "depends_on": ["a"]},
    ]
}
ANSWERS = [
    WORKFLOW,
    "Node:\n1: Walk in\n2: Open the door\nEdge: (START,1) (1,2) (2,END)",
    "no plan at all",
    json.dumps(RESOURCE),
    json.dumps({"task_nodes": [{"task": "image_search", "arguments": ["dogs.png"]}]}),
    json.dumps(TEMPORAL),
    json.dumps({"task_nodes": [{"task": "send_sms", "arguments": "oops"}], "task_links": []}),
    json.dumps(CANONICAL),
]
REFERENCES = [
    WORKFLOW,
    RESOURCE,
    json.dumps(RESOURCE),
    TEMPORAL,
    CANONICAL,
    Plan.from_dict(CANONICAL),
    "just prose",
    {"task_nodes": "not a list"},
]


@pytest.mark.parametrize("reference", REFERENCES, ids=range(len(REFERENCES)))
@pytest.mark.parametrize("dependency", [None, "resource", "temporal"])
def test_a_read_reference_scores_like_its_source(reference: object, dependency: str) -> None:
    read = Reference.read(reference)  # type: ignore[arg-type]
    catalogue = ToolCatalogue(("image_search", "image_to_text", "summarize", "send_sms"))
    for answer in ANSWERS:
        for cat in (None, catalogue):
            expected = score_plan(answer, reference, catalogue=cat, dependency=dependency)  # type: ignore[arg-type]
            again = score_plan(answer, read, catalogue=cat, dependency=dependency)  # type: ignore[arg-type]
            assert again.to_dict() == expected.to_dict(), (answer, cat)


def test_one_gold_against_two_catalogues_keeps_each_apart() -> None:
    """The gold's catalogue-dependent figures are kept per catalogue object: a second
    catalogue never sees the first one's node set or output types."""
    gold = read_taskbench_gold(RESOURCE, "resource")
    small = ToolCatalogue(("image search",))  # resource mode: names with spaces
    typed = ToolCatalogue(("image search", "image to text", "summarize"), {"image to text": "text"})
    first = taskbench_sample(RESOURCE, gold, dependency="resource", catalogue=small)
    second = taskbench_sample(RESOURCE, gold, dependency="resource", catalogue=typed)
    assert first.gold_nodes == {"image search"} and first.pred_nodes == {"image search"}
    assert second.gold_nodes == {"image search", "image to text", "summarize"}
    assert "summarize-text" in second.gold_arg_names
    assert "summarize-text" not in first.gold_arg_names  # unknown output type: "other"
    assert first == taskbench_sample(RESOURCE, RESOURCE, dependency="resource", catalogue=small)
    assert second == taskbench_sample(RESOURCE, RESOURCE, dependency="resource", catalogue=typed)


def test_a_gold_read_for_one_dependency_is_refused_for_the_other() -> None:
    gold = read_taskbench_gold(TEMPORAL, "temporal")
    with pytest.raises(ValueError, match="read as temporal, not resource"):
        taskbench_sample(TEMPORAL, gold, dependency="resource")


def test_the_carry_of_the_gold_reaches_the_prediction() -> None:
    """Resource mode: the argument the gold converted last is what an unusable first argument
    of the prediction counts as (the official loop's ``new_argument``), also from a gold read
    beforehand."""
    pred = {"task_nodes": [{"task": "summarize", "arguments": [7]}]}
    gold = read_taskbench_gold(RESOURCE, "resource")
    direct = taskbench_sample(pred, RESOURCE, dependency="resource")
    assert taskbench_sample(pred, gold, dependency="resource") == direct
    assert any("prediction node 0 argument 0 is unusable" in n for n in direct.notes)
