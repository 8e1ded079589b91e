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
    @pytest.mark.parametrize("matcher", [None, Constant(1.0)], ids=["text", "other"])
    def test_prediction_without_a_node(self, matcher: Constant | None) -> None:
        """No task in the prediction: f1_chain and its precision and recall are 0, noted (with
        the text matcher and with any other)."""
        scores = score_worfbench(graph("Node:\nEdge: (START,END)"), graph(GOLD), matcher)
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

    def test_no_node_matched_by_text(self) -> None:
        """The text matcher, on a workflow built without START and END (``WorfGraph`` is
        public) whose one text is nowhere in the gold: f1_graph 0, noted."""
        pred = WorfGraph(("Paint the fence",), ())
        scores = score_worfbench(pred, graph(GOLD))
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


class Table:
    """A matcher with hand-chosen similarities: equal texts 1.0, listed pairs their value,
    anything else 0.0 (a stand-in for the embedding model's scores)."""

    name = "table"

    def __init__(self, pairs: dict[tuple[str, str], float]) -> None:
        self.pairs = pairs

    def similarity(self, pred: Sequence[str], gold: Sequence[str]) -> list[list[float]]:
        return [[1.0 if p == g else self.pairs.get((p, g), 0.0) for g in gold] for p in pred]


CHAIN_AB = "Node:\n1: a\n2: b\nEdge: (START,1) (1,2) (2,END)"
PRED_XY = "Node:\n1: x\n2: y\nEdge: (START,1) (1,2) (2,END)"


class TestGoldWithoutTasks:
    def test_f1_chain_is_not_defined(self) -> None:
        """A gold of START and END only: no order has a node to count against."""
        scores = score_worfbench(graph(GOLD), graph("Node:\nEdge: (START,END)"))
        assert (scores.precision_chain, scores.recall_chain, scores.f1_chain) == (None,) * 3
        assert scores.notes == (
            "f1_chain not defined: the gold has no node (the official script crashes)",
        )


class TestLargestComponent:
    @pytest.mark.parametrize(
        "edges",
        [
            "(1,1) (START,1) (1,END)",  # a self-loop first: one node, not two
            # two groups joined, the smaller first; then an edge from a node that joined late
            "(1,2) (3,2) (4,5) (5,6) (6,7) (3,4) (3,8) (START,1) (8,END)",
            "(1,2) (2,3) (4,5) (5,6) (6,7) (3,4) (3,8) (START,1) (8,END)",
            "(4,5) (5,6) (1,2) (2,4) (START,1) (6,END) (3,END) (START,3) (7,8) (8,END) (START,7)",
        ],
        ids=["self-loop", "joined-late-source", "joined-late-target", "three-groups"],
    )
    def test_a_prediction_equal_to_a_connected_gold_scores_one(self, edges: str) -> None:
        """Whatever order the edges come in, a prediction equal to its connected gold matches
        every node and every edge: one component of all of them."""
        n = max(int(x) for x in edges.replace("START", "0").replace("END", "0")
                .replace("(", " ").replace(")", " ").replace(",", " ").split())  # fmt: skip
        text = "Node:\n" + "".join(f"{k}: step {k}\n" for k in range(1, n + 1)) + f"Edge: {edges}"
        scores = score_worfbench(graph(text), graph(text))
        assert (scores.precision_graph, scores.recall_graph, scores.f1_graph) == (1.0, 1.0, 1.0)


class TestWeightedMatching:
    """A matcher other than the text one (the embedding model's scores, here handwritten):
    max_weight_matching picks the pairs, whatever shortcut planeval takes to the same pairs."""

    def test_a_node_similar_to_two_gold_nodes_takes_the_closer(self) -> None:
        """x is 0.9 like a and 0.7 like b: x pairs with a. Predicted edges (START,x) (x,y)
        against gold (START,a) (a,b): only (START,1) is shared, a component of 2."""
        scores = score_worfbench(
            graph("Node:\n1: x\nEdge: (START,1) (1,END)"), graph(CHAIN_AB),
            Table({("x", "a"): 0.9, ("x", "b"): 0.7}),
        )  # fmt: skip
        assert (scores.precision_graph, scores.recall_graph) == (2 / 3, 2 / 4)
        assert scores.f1_chain == pytest.approx(2 / 3)  # x matches a: 1 of 1 and 1 of 2

    @pytest.mark.parametrize(
        ("pairs", "chain"),
        [
            ({("x", "a"): 0.9, ("x", "b"): 0.7, ("y", "a"): 0.7, ("y", "b"): 0.9}, 1.0),
            ({("x", "a"): 0.7, ("x", "b"): 0.9, ("y", "a"): 0.9, ("y", "b"): 0.7}, 0.5),
        ],
        ids=["straight", "crossed"],
    )
    def test_every_pair_similar_the_weights_decide(
        self, pairs: dict[tuple[str, str], float], chain: float
    ) -> None:
        """Both predicted nodes are like both gold nodes: the heavier pairing wins. Crossed
        (x like b, y like a) only one node of the chain is in order."""
        scores = score_worfbench(graph(PRED_XY), graph(CHAIN_AB), Table(pairs))
        assert scores.f1_chain == pytest.approx(chain)

    @pytest.mark.parametrize(
        ("pairs", "chain"),
        [
            ({("x", "a"): 1.0, ("x", "b"): 1.0, ("y", "b"): 1.0}, 1.0),
            ({("x", "b"): 1.0, ("y", "a"): 1.0, ("y", "b"): 1.0}, 0.5),
            ({("x", "a"): 1.0, ("y", "a"): 1.0, ("y", "b"): 1.0}, 1.0),
        ],
        ids=["x-a-x-b-y-b", "x-b-y-a-y-b", "x-a-y-a-y-b"],
    )
    def test_equal_similarities_that_are_not_every_pair(
        self, pairs: dict[tuple[str, str], float], chain: float
    ) -> None:
        """Similarity 1 on three of the four pairs: the only matching of both nodes is taken,
        not a pairing of all four as if every pair were similar."""
        scores = score_worfbench(graph(PRED_XY), graph(CHAIN_AB), Table(pairs))
        assert scores.f1_chain == pytest.approx(chain)
