"""WorfBench metrics: hand-worked cases and agreement with the published formulas."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from harness.metrics import gold_orders, parse_worfbench, score_plan, score_worfbench
from tests.metrics import oracle
from tests.metrics.perturb import worfbench_variants, write_workflow

CHAIN = write_workflow(
    ["Open the door", "Walk in", "Close the door"], [(0, 1), (1, 2), (2, 3), (3, 4)]
)
FORK = write_workflow(
    ["Boil water", "Grind beans", "Brew coffee"], [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]
)


def scores(pred: str, gold: str) -> dict[str, float]:
    return score_worfbench(parse_worfbench(pred), parse_worfbench(gold)).as_metrics()  # type: ignore[arg-type]


class TestParse:
    def test_positions_define_indices_not_printed_numbers(self) -> None:
        """Nodes printed as 7 and 3 are positions 1 and 2; edges use positions."""
        graph = parse_worfbench("Node:\n7: first\n3: second\nEdge: (START,1) (1,2) (2,END)")
        assert graph is not None
        assert graph.nodes == ("START", "first", "second", "END")
        assert graph.edges == ((0, 1), (1, 2), (2, 3))

    @pytest.mark.parametrize(
        "text",
        [
            "1: a\n2: b\nEdge: (START,1) (1,2) (2,END)",  # no 'Node' anywhere
            "Node:\n1: a\n2: b\n",  # no edge
        ],
    )
    def test_no_workflow(self, text: str) -> None:
        """Without 'Node' or without an edge, WorfBench finds no workflow."""
        assert parse_worfbench(text) is None


class TestHandWorked:
    def test_equal_to_gold_scores_one(self) -> None:
        """A prediction equal to a connected gold scores 1 everywhere."""
        assert set(scores(CHAIN, CHAIN).values()) == {1.0}

    def test_one_task(self) -> None:
        """One task equal to the gold's one task."""
        one = write_workflow(["Do it"], [(0, 1), (1, 2)])
        assert set(scores(one, one).values()) == {1.0}

    def test_disjoint_prediction_keeps_the_official_floor(self) -> None:
        """Nothing matches: t_eval_plan still counts 1 (its dp starts at 1) and f1_graph
        matches START and END: 2/(n+m) and 2/(n+m+4)."""
        other = write_workflow(["Sing", "Dance"], [(0, 1), (1, 2), (2, 3)])
        got = scores(other, CHAIN)
        assert got["worfbench.precision_chain"] == pytest.approx(1 / 2)
        assert got["worfbench.recall_chain"] == pytest.approx(1 / 3)
        assert got["worfbench.f1_chain"] == pytest.approx(2 / 5)
        assert got["worfbench.precision_graph"] == pytest.approx(1 / 4)
        assert got["worfbench.recall_graph"] == pytest.approx(1 / 5)
        assert got["worfbench.f1_graph"] == pytest.approx(2 / 9)

    def test_any_topological_order_of_the_gold_counts(self) -> None:
        """Boil and grind are independent: listing grind first is as good."""
        swapped = write_workflow(
            ["Grind beans", "Boil water", "Brew coffee"], [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]
        )
        assert scores(swapped, FORK)["worfbench.f1_chain"] == 1.0
        assert len(gold_orders(parse_worfbench(FORK))) == 2  # type: ignore[arg-type]

    def test_reordered_chain_loses_chain_credit(self) -> None:
        """A chain listed backwards keeps one node of its longest increasing run."""
        backwards = write_workflow(
            ["Close the door", "Walk in", "Open the door"], [(0, 1), (1, 2), (2, 3), (3, 4)]
        )
        assert scores(backwards, CHAIN)["worfbench.f1_chain"] == pytest.approx(1 / 3)

    def test_repeated_task_lowers_precision_only(self) -> None:
        """A repeated node matches once: precision 3/4, recall 1."""
        doubled = write_workflow(
            ["Open the door", "Walk in", "Walk in", "Close the door"],
            [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
        )
        got = scores(doubled, CHAIN)
        assert got["worfbench.precision_chain"] == pytest.approx(3 / 4)
        assert got["worfbench.recall_chain"] == 1.0

    def test_no_edges_between_tasks(self) -> None:
        """Tasks wired only to START and END: f1_graph's component is START+task+END pieces."""
        flat = write_workflow(
            ["Open the door", "Walk in", "Close the door"],
            [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)],
        )
        got = scores(flat, CHAIN)
        # public edges: (START,1) and (3,END) only -> components {0,1} and {3,4}: size 2 of 5
        assert got["worfbench.f1_graph"] == pytest.approx(2 / 5)
        assert got["worfbench.f1_chain"] == 1.0  # edges are ignored by f1_chain

    def test_big_gold_uses_its_listed_order_with_start_and_end(self) -> None:
        """A gold of 8 tasks is not enumerated: START and END stay in its sequence, so an
        identical prediction has recall 8/10."""
        texts = [f"step {i}" for i in range(8)]
        big = write_workflow(texts, [(i, i + 1) for i in range(9)])
        got = scores(big, big)
        assert got["worfbench.recall_chain"] == pytest.approx(8 / 10)
        assert got["worfbench.f1_graph"] == 1.0

    def test_empty_prediction_scores_zero_with_a_note(self) -> None:
        """No task at all (the official script crashes): 0 and a note."""
        result = score_worfbench(
            parse_worfbench("Node:\nEdge: (START,END)"), parse_worfbench(CHAIN)
        )  # type: ignore[arg-type]
        assert result.f1_chain == 0.0
        assert any("crashes" in n for n in result.notes)

    def test_gold_with_a_cycle_has_no_f1_chain(self) -> None:
        """A cyclic gold has no topological order: f1_chain is None, f1_graph still defined."""
        cyclic = write_workflow(["a", "b"], [(0, 1), (1, 2), (2, 1), (2, 3)])
        result = score_worfbench(parse_worfbench(cyclic), parse_worfbench(cyclic))  # type: ignore[arg-type]
        assert result.f1_chain is None
        assert result.f1_graph == 1.0


class TestUnparseable:
    def test_zero_convention(self) -> None:
        """WorfBench's convention: an answer without a workflow scores 0."""
        result = score_plan("I cannot help with that.", CHAIN, unparseable="zero")
        assert result.status == "unparseable"
        assert result.metrics["worfbench.f1_chain"] == 0.0

    def test_exclude_convention(self) -> None:
        """TaskBench's convention: the answer has no values and drops out of every mean."""
        result = score_plan("I cannot help with that.", CHAIN, unparseable="exclude")
        assert result.status == "unparseable"
        assert result.metrics == {}


def _check(pred: str, gold: str) -> None:
    p, g = oracle.worf_graph(pred), oracle.worf_graph(gold)
    assert p is not None and g is not None
    got = scores(pred, gold)
    chain, graph = oracle.f1_chain(p, g), oracle.f1_graph(p, g)
    expected = dict(zip(("precision_chain", "recall_chain", "f1_chain"), chain, strict=True))
    expected |= dict(zip(("precision_graph", "recall_graph", "f1_graph"), graph, strict=True))
    for name, value in expected.items():
        assert got[f"worfbench.{name}"] == pytest.approx(value, abs=1e-9), name


HANDWRITTEN = [
    CHAIN,
    FORK,
    write_workflow(["a", "b", "a", "c"], [(0, 1), (0, 3), (1, 2), (3, 2), (2, 4), (4, 5)]),
]


class TestAgreement:
    @pytest.mark.parametrize("gold", HANDWRITTEN)
    def test_handwritten_perturbations(self, gold: str) -> None:
        """Dropped, renamed, reversed, repeated and reordered tasks: equal to the formulas."""
        for pred in [gold, *worfbench_variants(gold, random.Random(3))]:
            _check(pred, gold)

    def test_public_gold_perturbations(self, shared_data: Path) -> None:
        """At least 50 perturbed WorfBench gold workflows (five domains) agree to 1e-9."""
        rng = random.Random(12)
        checked = 0
        for path in sorted((shared_data / "worfbench").glob("*.json")):
            for item in json.loads(path.read_text(encoding="utf-8"))[:12]:
                gold = item["conversations"][-1]["content"]
                if oracle.worf_graph(gold) is None:
                    continue
                for pred in [gold, *worfbench_variants(gold, rng)]:
                    _check(pred, gold)
                    checked += 1
        assert checked >= 50
