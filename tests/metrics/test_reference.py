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


def _fresh(answer: str, reference: object, **options: object) -> dict[str, object]:
    return score_plan(answer, Reference.read(reference, remember=0), **options).to_dict()  # type: ignore[arg-type]


OPTIONS: list[dict[str, object]] = [
    {},
    {"unparseable": "exclude"},
    {"families": ["worfbench"]},
    {"families": ["taskbench"]},
    {"dependency": "temporal"},
    {"catalogue": ToolCatalogue(("image_search", "send_sms"))},
    {"catalogue": ToolCatalogue(("image_search", "send_sms", "summarize"))},
]


def test_a_remembered_score_is_the_score_under_the_options_asked() -> None:
    """One reference scores every answer twice under one option set (the second time from
    what it remembers), then under the next: each result equals a fresh reference's in every
    field (TaskBench sets too), and an answer remembered under some options is never returned
    for others (convention, families, dependency, catalogue)."""
    for reference in (WORKFLOW, RESOURCE, TEMPORAL, CANONICAL):
        read = Reference.read(reference)  # type: ignore[arg-type]
        for options in [*OPTIONS, *OPTIONS]:
            for answer in [*ANSWERS, *ANSWERS]:
                got = score_plan(answer, read, **options)  # type: ignore[arg-type]
                fresh = score_plan(answer, Reference.read(reference, remember=0), **options)  # type: ignore[arg-type]
                assert got == fresh, (answer, options)
        assert read._scored  # the second scoring of each answer was remembered


def test_changing_a_returned_score_does_not_change_the_next() -> None:
    read = Reference.read(WORKFLOW)
    for _ in range(3):  # scored, then remembered twice
        got = score_plan(WORKFLOW, read)
        assert got.metrics["worfbench.f1_graph"] == 1.0 and len(got.metrics) == 6
        got.metrics["worfbench.f1_graph"] = -1.0
        got.metrics.clear()


def test_other_matchers_are_asked_every_time() -> None:
    """A matcher planeval does not know may answer differently on each call (a model behind
    an API, a counter): its scores are never remembered."""

    class Counting:
        name = "counting"

        def __init__(self) -> None:
            self.calls = 0

        def similarity(self, pred: list[str], gold: list[str]) -> list[list[float]]:
            self.calls += 1
            return [[1.0 if p == g else 0.0 for g in gold] for p in pred]

    matcher = Counting()
    read = Reference.read(WORKFLOW)
    for _ in range(3):
        score_plan(WORKFLOW, read, matcher=matcher)
    assert matcher.calls == 6  # f1_chain and f1_graph, three times


def test_a_reference_remembers_at_most_what_it_is_told() -> None:
    read = Reference.read(WORKFLOW, remember=3)
    variants = [WORKFLOW.replace("Walk in", f"Walk in {k}") for k in range(10)]
    for answer in variants:
        assert score_plan(answer, read).to_dict() == _fresh(answer, WORKFLOW)
        assert len(read._scored) <= 3
    off = Reference.read(WORKFLOW, remember=0)
    score_plan(WORKFLOW, off)
    assert not off._scored


def test_threads_scoring_one_reference_under_other_options_never_mix() -> None:
    """Two threads score the same answers against one reference, one under each convention,
    with the interpreter switching threads as often as it can: every result is the fresh one
    for its own convention."""
    import sys
    import threading

    read = Reference.read(WORKFLOW, remember=4)
    answers = ["no plan", *(WORKFLOW.replace("Walk in", f"Walk in {k}") for k in range(5))]
    expected = {
        (a, c): _fresh(a, WORKFLOW, unparseable=c) for a in answers for c in ("zero", "exclude")
    }
    wrong: list[tuple[str, str]] = []

    def work(convention: str) -> None:
        for _ in range(1500):
            for answer in answers:
                got = score_plan(answer, read, unparseable=convention).to_dict()  # type: ignore[arg-type]
                if got != expected[answer, convention]:
                    wrong.append((answer, convention))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(c,)) for c in ("zero", "exclude")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not wrong, wrong[:3]
