"""WorfBench scores where the official script would crash, and the similarity threshold exactly
at 0.6. Every workflow here is handwritten."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from harness.metrics import MATCH_THRESHOLD, WorfGraph, parse_worfbench, score_worfbench

GOLD = "Node:\n1: Open the door\n2: Walk in\nEdge: (START,1) (1,2) (2,END)"


class Constant:
    """A matcher that gives every pair the same similarity."""

    def __init__(self, value: float) -> None:
        self.value = value
        self.name = f"constant:{value}"

    def similarity(self, pred: Sequence[str], gold: Sequence[str]) -> list[list[float]]:
        return [[self.value] * len(gold) for _ in pred]


def graph(text: str) -> WorfGraph:
    parsed = parse_worfbench(text)
    assert parsed is not None
    return parsed


class TestWhereTheScriptCrashes:
    def test_prediction_without_a_node(self) -> None:
        """No task in the prediction: f1_chain and its precision and recall are 0, noted."""
        scores = score_worfbench(graph("Node:\nEdge: (START,END)"), graph(GOLD))
        assert (scores.precision_chain, scores.recall_chain, scores.f1_chain) == (0.0, 0.0, 0.0)
        assert scores.notes[0] == (
            "the prediction has no node: f1_chain 0 (the official script crashes)"
        )

    @pytest.mark.parametrize(
        "edges", ["(START,1) (1,3) (1,END)", "(START,1) (3,1) (1,END)", "(START,1) (1,9) (1,END)"]
    )
    def test_gold_edge_to_a_node_it_does_not_have(self, edges: str) -> None:
        """Gold nodes are 0..2 (START, one task, END): an edge from or to 3 or more leaves
        f1_chain undefined, with the reason; f1_graph is still scored."""
        gold = graph(f"Node:\n1: Open the door\nEdge: {edges}")
        scores = score_worfbench(gold, gold)
        assert (scores.precision_chain, scores.recall_chain, scores.f1_chain) == (None,) * 3
        assert scores.notes == (
            "f1_chain not defined: the gold has an edge to a node it does not have "
            "(the official script crashes)",
        )
        assert scores.f1_graph > 0

    def test_gold_edges_to_its_last_node_are_fine(self) -> None:
        """An edge into END (the last index) is no dangling edge."""
        scores = score_worfbench(graph(GOLD), graph(GOLD))
        assert scores.f1_chain == 1.0 and scores.notes == ()

    def test_no_node_matched(self) -> None:
        """A matcher that finds nothing similar: f1_graph and its parts 0, noted."""
        scores = score_worfbench(graph(GOLD), graph(GOLD), Constant(0.0))
        assert (scores.precision_graph, scores.recall_graph, scores.f1_graph) == (0.0, 0.0, 0.0)
        assert "no node matched: f1_graph 0 (the official script crashes)" in scores.notes


class TestThreshold:
    def test_exactly_the_threshold_is_no_match(self) -> None:
        """Similarity 0.6 does not match (WorfBench keeps pairs strictly above it)."""
        at = score_worfbench(graph(GOLD), graph(GOLD), Constant(MATCH_THRESHOLD))
        above = score_worfbench(graph(GOLD), graph(GOLD), Constant(MATCH_THRESHOLD + 1e-9))
        assert MATCH_THRESHOLD == 0.6
        assert at.f1_graph == 0.0
        assert at.recall_chain == pytest.approx(1 / 2)  # every node starts a run of 1
        assert above.f1_graph > 0.0
