"""The fast paths of the metrics give the official numbers: node matching without building a
networkx graph for the text matcher, and the bit-parallel edit distance. Every workflow and
tool sequence here is generated from a seed (handwritten generators, no model output)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import islice

import networkx as nx
import pytest

from harness.metrics import (
    TextMatcher,
    ToolCatalogue,
    parse_worfbench,
    score_worfbench,
    taskbench_sample,
)
from harness.metrics._worfbench import _complete_bipartite_pairs, _first_orders, _matching
from tests.metrics import oracle
from tests.metrics.perturb import worfbench_variants, write_workflow

TEXTS = ("Check the result", "check the result.", "Wash hands", "Dry hands", "Go back")
"""Few texts, two of them equal after normalization: most workflows repeat a node text."""


def _workflow(rng: random.Random, texts: list[str]) -> str:
    """A workflow of these task texts: a chain, fully parallel (many topological orders) or a
    random DAG."""
    end = len(texts) + 1
    shape = rng.choice(("chain", "parallel", "dag"))
    if shape == "chain":
        edges = [(i, i + 1) for i in range(end)]
    elif shape == "parallel":
        edges = [(0, i) for i in range(1, end)] + [(i, end) for i in range(1, end)]
    else:
        edges = [(0, 1)] + [(rng.randint(1, j - 1), j) for j in range(2, end)]
        edges += [(i, end) for i in range(1, end) if all(a != i for a, _ in edges)]
    return write_workflow(texts, edges)


def _random_workflow(rng: random.Random) -> str:
    """1 to 9 tasks drawn from ``TEXTS``: most repeat a normalized text."""
    return _workflow(rng, [rng.choice(TEXTS) for _ in range(rng.randint(1, 9))])


def _unique_workflow(rng: random.Random, n: int) -> str:
    """``n`` tasks whose texts all differ (most real workflows)."""
    return _workflow(
        rng, [f"Step {k}: {rng.choice(('wash', 'dry', 'fold'))} item {k}" for k in range(n)]
    )


class NetworkxTextMatcher(TextMatcher):
    """The text matcher's similarities, scored through the general path (networkx's matching
    on the whole candidate graph, every time)."""


def test_repeated_texts_score_as_the_official_formulas() -> None:
    """150 seeded workflows full of repeated texts: f1_chain and f1_graph equal the oracle's
    (networkx on the whole graph for every topological order) and the general path's."""
    rng = random.Random(2026)
    for _ in range(150):
        gold_text, pred_text = _random_workflow(rng), _random_workflow(rng)
        gold, pred = parse_worfbench(gold_text), parse_worfbench(pred_text)
        assert gold is not None and pred is not None
        fast = score_worfbench(pred, gold).as_metrics()
        general = score_worfbench(pred, gold, NetworkxTextMatcher()).as_metrics()
        assert fast == general, (pred_text, gold_text)
        p, g = oracle.worf_graph(pred_text), oracle.worf_graph(gold_text)
        chain, graph = oracle.f1_chain(p, g), oracle.f1_graph(p, g)  # type: ignore[arg-type]
        assert fast["worfbench.f1_chain"] == pytest.approx(chain[2], abs=1e-12)
        assert fast["worfbench.f1_graph"] == pytest.approx(graph[2], abs=1e-12)


ODD_PREDICTIONS = (
    "Node:\nEdge: (START,END)",  # no task
    "Node:\n1: Start\n2: Step 0: wash item 0\nEdge: (START,1) (1,2) (2,END)",  # a task named Start
    "Node:\n1: Step 0: wash item 0\n2: step 0 - WASH item 0\nEdge: (START,1) (1,2) (2,END)",
    "Node:\n1: Step 1: dry item 1\nEdge: (START,1) (1,1) (1,END) (1,END) (7,9)",  # odd edges
)


def test_workflows_without_repeated_texts_score_as_the_official_formulas() -> None:
    """The one-pass text path (no normalized text repeats on either side), on 120 seeded golds
    of 1 to 12 tasks and their perturbations (drop, rename, reverse, repeat, reorder, shuffle)
    plus odd predictions: every score equals the general path's and the oracle's."""
    rng = random.Random(31)
    checked = 0
    for _ in range(120):
        gold_text = _unique_workflow(rng, rng.randint(1, 12))
        gold = parse_worfbench(gold_text)
        assert gold is not None
        for pred_text in (gold_text, *worfbench_variants(gold_text, rng), *ODD_PREDICTIONS):
            pred = parse_worfbench(pred_text)
            assert pred is not None
            fast = score_worfbench(pred, gold)
            general = score_worfbench(pred, gold, NetworkxTextMatcher())
            assert fast == general, (pred_text, gold_text)
            p, g = oracle.worf_graph(pred_text), oracle.worf_graph(gold_text)
            graph = oracle.f1_graph(p, g)  # type: ignore[arg-type]
            assert fast.f1_graph == pytest.approx(graph[2], abs=1e-12), (pred_text, gold_text)
            if len(pred.nodes) > 2:  # the oracle, like the official script, needs a task
                chain = oracle.f1_chain(p, g)  # type: ignore[arg-type]
                assert fast.f1_chain == pytest.approx(chain[2], abs=1e-12), (pred_text, gold_text)
            checked += 1
    assert checked > 900


def test_golds_the_text_path_cannot_order_give_the_same_notes() -> None:
    """A gold with a cycle or with an edge to a missing node: no f1_chain, the same note and
    f1_graph on the one-pass path as on the general one."""
    cyclic = parse_worfbench("Node:\n1: a\n2: b\nEdge: (START,1) (1,2) (2,1) (2,END)")
    dangling = parse_worfbench("Node:\n1: a\n2: b\nEdge: (START,1) (1,7) (2,END)")
    pred = parse_worfbench("Node:\n1: a\n2: b\nEdge: (START,1) (1,2) (2,END)")
    for gold in (cyclic, dangling):
        assert gold is not None and pred is not None
        fast = score_worfbench(pred, gold)
        assert fast == score_worfbench(pred, gold, NetworkxTextMatcher())
        assert fast.f1_chain is None and fast.notes[0].startswith("f1_chain not defined")


def _networkx_pairs(candidates: Sequence[tuple[int, int, float]]) -> dict[int, int]:
    graph = nx.Graph()
    for i, g, weight in candidates:
        graph.add_edge(i, str(g), weight=weight)
    pairs = {}
    for a, b in nx.max_weight_matching(graph):
        i, g = (a, b) if isinstance(a, int) else (b, a)
        pairs[i] = int(g)
    return pairs


def test_unit_weight_matching_equals_networkx_on_random_graphs() -> None:
    """1,000 candidate graphs as ``match_node`` builds them for the text matcher (up to 22
    nodes a side, up to 8 texts, gold in a shuffled order): the per-component pairing is the
    pairing networkx gives the whole graph."""
    rng = random.Random(7)
    for _ in range(1000):
        kinds = rng.randint(1, 8)
        pred = [rng.randrange(kinds) for _ in range(rng.randint(1, 22))]
        gold = [rng.randrange(kinds) for _ in range(rng.randint(1, 22))]
        ids = list(range(len(gold)))
        rng.shuffle(ids)
        edges = [(i, ids[j], 1.0) for i, p in enumerate(pred) for j, g in enumerate(gold) if p == g]
        if edges:
            assert _matching(tuple(edges)) == _networkx_pairs(edges), edges


def test_complete_bipartite_pairing_equals_networkx_up_to_40() -> None:
    """The closed form of networkx's K(a, b) pairing holds for every a, b up to 40."""
    for a in range(1, 41):
        for b in range(1, 41):
            edges = [(i, j, 1.0) for i in range(a) for j in range(b)]
            assert dict(_complete_bipartite_pairs(a, b)) == _networkx_pairs(edges), (a, b)


def test_unit_weight_text_scoring_does_not_import_networkx() -> None:
    """Scoring with the text matcher never needs networkx (135 ms of start-up) for pairing."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from harness.metrics._worfbench import _matching\n"
        "edges = tuple((i, j, 1.0) for i in range(5) for j in range(3))\n"
        "edges += ((7, 9, 1.0),)\n"
        "assert _matching(edges)\n"
        "print('networkx' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def test_weighted_graphs_still_go_to_networkx() -> None:
    """With weights other than 1 the pairing is networkx's, which here is not the unit one."""
    edges = ((0, 0, 0.7), (0, 1, 0.9), (1, 0, 0.8))
    assert _matching(edges) == _networkx_pairs(edges) == {0: 1, 1: 0}


def test_edit_distance_equals_the_indel_programme() -> None:
    """``ed_ratio`` for 2,000 random tool sequences (repeats, unknown names, empty sides) is
    the indel dynamic programme's ratio over the tool numbers."""
    tools = ToolCatalogue(tuple(f"tool {k}" for k in range(6)))
    numbers = tools.numbers()
    names = [*tools.names, "not a tool", "another unknown"]
    rng = random.Random(11)
    for _ in range(2000):
        gold = [rng.choice(names[:6]) for _ in range(rng.randint(1, 12))]
        pred = [rng.choice(names) for _ in range(rng.randint(0, 25))]
        record = {
            "task_nodes": [{"task": t, "arguments": []} for t in pred],
            "task_links": [],
        }
        gold_record = {"task_nodes": [{"task": t, "arguments": []} for t in gold], "task_links": []}
        got = taskbench_sample(record, gold_record, dependency="temporal", catalogue=tools)
        expected = oracle._indel_ratio(
            [numbers.get(t, 0) for t in pred], [numbers.get(t, 0) for t in gold]
        )
        assert got.ed_ratio == pytest.approx(expected, abs=1e-12), (pred, gold)


def _networkx_orders(count: int, edges: list[tuple[int, int]]) -> list[list[int]] | str:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(count))
    graph.add_edges_from(edges)
    try:
        return list(islice(nx.all_topological_sorts(graph), 20))
    except nx.NetworkXUnfeasible:
        return "cycle"


def test_topological_orders_are_networkxs_first_twenty_in_its_order() -> None:
    """f1_chain's gold orders: on 5,000 seeded graphs of up to 10 nodes (DAGs in a shuffled
    numbering, repeated edges, self-loops, cycles), the orders and their sequence are those of
    ``networkx.all_topological_sorts``, and a cycle is refused as networkx refuses it."""
    rng = random.Random(5)
    for _ in range(5000):
        n = rng.randint(1, 10)
        if rng.random() < 0.6:  # a DAG: edges go forward in a shuffled numbering
            names = list(range(n))
            rng.shuffle(names)
            pairs = [sorted(rng.sample(range(n), 2)) for _ in range(rng.randint(0, 20)) if n > 1]
            edges = [(names[a], names[b]) for a, b in pairs]
        else:
            edges = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 20))]
        if edges and rng.random() < 0.2:
            edges += rng.sample(edges, min(len(edges), 3))
        try:
            ours: list[list[int]] | str = _first_orders.__wrapped__(n, tuple(edges))
        except ValueError:
            ours = "cycle"
        assert ours == _networkx_orders(n, edges), (n, edges)
