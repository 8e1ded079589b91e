"""WorfBench's workflow metrics: f1_chain (node sequence) and f1_graph (matched subgraph).

Definitions follow zjunlp/WorfBench (see docs/metrics.md for the pinned commit):

* ``node_eval.py:workflow_to_graph_list`` reads a workflow: node texts are the matches of
  ``\\d+[:.] (.+)`` in order, framed by ``START`` (index 0) and ``END`` (last index); edges are
  ``(i,j)`` pairs with ``START`` -> 0 and ``END`` -> the last index. A node's *position* defines
  its index, never the number printed before it. No ``Node`` in the text, or no edge, means
  no workflow.
* ``evaluator/graph_evaluator.py:match_node`` pairs predicted and gold nodes: a similarity above
  0.6 makes a candidate pair, ``networkx.max_weight_matching`` picks the pairs.
* ``t_eval_nodes`` / ``t_eval_plan`` (f1_chain): the predicted node sequence (edges ignored,
  START/END removed) against each of the first 20 topological orders of the gold (a gold of 10
  or more nodes, START and END included, uses its listed order with START and END kept); the
  longest increasing run of matched gold positions, counted from 1, is the number correct;
  the best F1 over the orders wins.
* ``t_eval_graph`` (f1_graph): all nodes, START and END included, are matched; predicted
  edges between matched nodes that also appear, *as raw index pairs*, among the gold edges
  between matched nodes are kept; the largest connected component of the matched nodes under
  those edges, over the node counts, gives precision and recall.

Where the official code would crash (an empty prediction, no matched node, a gold with a
cycle or an edge to a node it does not have), planeval returns a score of 0 or None with a note.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from harness.metrics._matchers import Matcher, TextMatcher, normalize_text

__all__ = [
    "MATCH_THRESHOLD",
    "MAX_ORDERS",
    "WorfGraph",
    "WorfbenchScores",
    "parse_worfbench",
    "score_worfbench",
]

MATCH_THRESHOLD = 0.6
"""``match_node``'s ``match_threshold``: a similarity strictly above it can match."""
MAX_ORDERS = 20
"""``all_topological_sorts`` keeps the first 20 orders networkx enumerates."""
_LISTED_ORDER_FROM = 10
"""A gold of this many nodes or more (START and END included) is not enumerated."""
WORKFLOWS_KEPT = 1024
"""Workflows whose parse and per-gold values (orders, edge sets, node texts) are kept, the most
recently used: the samples and models of a case reuse them, and a run of 100,000 distinct
plans keeps no more than this."""

_FRAME = frozenset({"START", "END"})
_NODE = re.compile(r"\d+[:.] (.+)")
_EDGE = re.compile(r"\(\s*(\d+|START)\s*,\s*(\d+|END)\s*\)")


@dataclass(frozen=True, slots=True)
class WorfGraph:
    """A workflow as WorfBench reads it."""

    nodes: tuple[str, ...]
    """``START``, the node texts in order, ``END``."""
    edges: tuple[tuple[int, int], ...]
    """Edges by node position (START is 0, END is ``len(nodes) - 1``), as listed."""

    @property
    def tasks(self) -> tuple[str, ...]:
        """The node texts without START and END (by name, as ``t_eval_nodes`` filters)."""
        inner = self.nodes[1:-1]
        framed = self.nodes[:1] == ("START",) and self.nodes[-1:] == ("END",)
        if framed and "START" not in inner and "END" not in inner:  # as parse_worfbench reads
            return inner
        return tuple(n for n in self.nodes if n not in _FRAME)


@lru_cache(maxsize=WORKFLOWS_KEPT)
def parse_worfbench(text: str) -> WorfGraph | None:
    """A workflow read exactly as ``workflow_to_graph_list``; None when it finds none.

    Cached (the last ``WORKFLOWS_KEPT``): a run reads each reference once per model and
    sample."""
    if "Node" not in text:
        return None
    nodes = [m.strip() for m in _NODE.findall(text)]
    nodes.insert(0, "START")
    nodes.append("END")
    end = len(nodes) - 1
    edges = tuple(
        [
            (0 if a == "START" else int(a), end if b == "END" else int(b))
            for a, b in _EDGE.findall(text)
        ]
    )
    if not edges:
        return None
    return WorfGraph(tuple(nodes), edges)


@dataclass(frozen=True, slots=True)
class WorfbenchScores:
    """One prediction against one gold workflow."""

    precision_chain: float | None
    recall_chain: float | None
    f1_chain: float | None
    """None when the gold has no usable topological order (a cycle, a dangling edge)."""
    precision_graph: float
    recall_graph: float
    f1_graph: float
    notes: tuple[str, ...] = field(default=())
    """Where planeval scored a case the official script would crash on."""

    def as_metrics(self) -> dict[str, float]:
        """The scores under their metric names (``worfbench.f1_chain``, ...), Nones left out."""
        return _named(
            (self.precision_chain, self.recall_chain, self.f1_chain),
            (self.precision_graph, self.recall_graph, self.f1_graph),
        )


def score_worfbench(
    pred: WorfGraph, gold: WorfGraph, matcher: Matcher | None = None
) -> WorfbenchScores:
    """f1_chain and f1_graph of ``pred`` against ``gold`` (see the module docstring)."""
    notes: list[str] = []
    chain, graph = _scores(pred, gold, matcher, notes)
    return WorfbenchScores(*chain, *graph, notes=tuple(notes))


def worfbench_metrics(
    pred: WorfGraph, gold: WorfGraph, matcher: Matcher | None, notes: list[str]
) -> dict[str, float]:
    """``score_worfbench(pred, gold, matcher).as_metrics()``, its notes added to ``notes``,
    without building the scores object (``score_plan`` calls it once per answer)."""
    return _named(*_scores(pred, gold, matcher, notes))


_Chain = tuple[float | None, float | None, float | None]
_Graph = tuple[float, float, float]


def _named(chain: _Chain, graph: _Graph) -> dict[str, float]:
    """(precision, recall, F1) of f1_chain and of f1_graph under their metric names, in
    ``as_metrics`` order; f1_chain's left out when undefined (None)."""
    (p_chain, r_chain, f_chain), (p_graph, r_graph, f_graph) = chain, graph
    if f_chain is None or p_chain is None or r_chain is None:  # the three are None together
        return {
            "worfbench.f1_graph": f_graph,
            "worfbench.precision_graph": p_graph,
            "worfbench.recall_graph": r_graph,
        }
    return {
        "worfbench.f1_chain": f_chain,
        "worfbench.precision_chain": p_chain,
        "worfbench.recall_chain": r_chain,
        "worfbench.f1_graph": f_graph,
        "worfbench.precision_graph": p_graph,
        "worfbench.recall_graph": r_graph,
    }


def _scores(
    pred: WorfGraph, gold: WorfGraph, matcher: Matcher | None, notes: list[str]
) -> tuple[_Chain, _Graph]:
    if matcher is None or type(matcher) is TextMatcher:
        # each predicted text normalized once, and matched once when the tasks' pairs are
        # the whole workflow's pairs without START and END
        texts = [normalize_text(text) for text in pred.nodes]
        every = _TextSimilarity(texts, gold.nodes)
        tasks = every.tasks_alone(pred.nodes, gold.nodes)
        if tasks is None:
            task_texts = [t for t, raw in zip(texts, pred.nodes, strict=True) if raw not in _FRAME]
            tasks = _TextSimilarity(task_texts, gold.nodes)
        chain = _chain(pred.tasks, gold, lambda: tasks, notes)
        graph = _graph(pred, gold, lambda: every, notes)
        return chain, graph
    node_tasks = pred.tasks
    chain = _chain(node_tasks, gold, lambda: _Similarity(matcher, node_tasks, gold.nodes), notes)
    graph = _graph(pred, gold, lambda: _Similarity(matcher, pred.nodes, gold.nodes), notes)
    return chain, graph


# -- f1_chain ---------------------------------------------------------------------------------
def gold_orders(gold: WorfGraph) -> list[tuple[str, ...]]:
    """``all_topological_sorts``: the gold node sequences f1_chain compares with.

    Raises:
        ValueError: the gold has a cycle or an edge to a node it does not have.
    """
    return [tuple(gold.nodes[i] for i in order) for order in _order_ids(gold)]


@lru_cache(maxsize=WORKFLOWS_KEPT)
def _order_ids(gold: WorfGraph) -> list[tuple[int, ...]]:
    """``gold_orders`` as node indices (START and END dropped unless the order is listed).

    Cached per gold (callers must not change the list)."""
    count = len(gold.nodes)
    if count >= _LISTED_ORDER_FROM:
        return [tuple(range(count))]
    if any(a >= count or b >= count for a, b in gold.edges):
        raise ValueError("the gold has an edge to a node it does not have")
    names = gold.nodes
    return [
        tuple(i for i in order if names[i] not in ("START", "END"))
        for order in _first_orders(count, gold.edges)
    ]


@lru_cache(maxsize=WORKFLOWS_KEPT)
def _order_positions(gold: WorfGraph) -> list[tuple[tuple[int, ...], dict[int, int]]]:
    """Each order of ``_order_ids`` with its gold node -> position map (cached per gold;
    callers must not change them)."""
    return [(ids, {g: j for j, g in enumerate(ids)}) for ids in _order_ids(gold)]


@lru_cache(maxsize=WORKFLOWS_KEPT)
def _first_orders(count: int, edges: tuple[tuple[int, int], ...]) -> list[list[int]]:
    """The first 20 orders ``networkx.all_topological_sorts`` enumerates, in its order, for
    the ``DiGraph`` of nodes ``range(count)`` and ``edges`` (cached: a run scores each
    reference once per model and sample).

    networkx's own generator (3.x, Knuth's algorithm with a deque of free nodes and a stack of
    bases) is followed step for step, on lists instead of a graph object: building the
    ``DiGraph`` and networkx's dispatch cost about 15 times the enumeration itself (0.8 ms for
    a 7-task gold). A ``DiGraph`` keeps one copy of a repeated edge and each node's successors
    in the order their edges were first added, and so does this. Tested equal to networkx on
    random graphs with repeated edges, self-loops and cycles
    (``tests/metrics/test_worfbench_matching.py``).

    Raises:
        ValueError: the graph has a cycle (networkx: ``NetworkXUnfeasible``).
    """
    successors: list[list[int]] = [[] for _ in range(count)]
    waiting = [0] * count  # networkx's ``count``: in-edges from nodes not yet placed
    for a, b in dict.fromkeys(edges):
        successors[a].append(b)
        waiting[b] += 1
    free = deque([v for v in range(count) if waiting[v] == 0])  # networkx's ``D``
    bases: list[int] = []
    current: list[int] = []
    orders: list[list[int]] = []
    while True:
        if len(current) == count:
            orders.append(list(current))
            if len(orders) == MAX_ORDERS:
                return orders
            while current:  # undo placements until a position has another free node
                q = current.pop()
                for j in successors[q]:
                    waiting[j] += 1
                while free and waiting[free[-1]] > 0:
                    free.pop()
                free.appendleft(q)
                if free[-1] == bases[-1]:
                    bases.pop()
                else:
                    break
        else:
            if not free:
                raise ValueError("the gold has a cycle")
            q = free.pop()
            for j in successors[q]:
                waiting[j] -= 1
                if waiting[j] == 0:
                    free.append(j)
            current.append(q)
            if len(bases) < len(current):
                bases.append(q)
        if not bases:
            return orders


def _chain(
    tasks: tuple[str, ...],
    gold: WorfGraph,
    similarity: Callable[[], _TextSimilarity | _Similarity],
    notes: list[str],
) -> tuple[float | None, float | None, float | None]:
    try:
        orders = _order_positions(gold)
    except ValueError as exc:
        notes.append(f"f1_chain not defined: {exc} (the official script crashes)")
        return None, None, None
    if not tasks:
        notes.append("the prediction has no node: f1_chain 0 (the official script crashes)")
        return 0.0, 0.0, 0.0
    best = (0.0, 0.0, 0.0)
    sim = similarity()
    for ids, position in orders:
        if not ids:
            notes.append("f1_chain not defined: the gold has no node (the official script crashes)")
            return None, None, None
        positions = sim.matched_positions(ids, position)
        correct = _longest_increasing(positions)
        precision, recall = correct / len(tasks), correct / len(ids)
        f1 = 2 * recall * precision / (recall + precision)
        if f1 > best[2]:
            best = (precision, recall, f1)
        if correct == sim.most_correct(positions):
            break  # no later order can count more: the first best one is kept, as above
    return best


def _longest_increasing(positions: Sequence[int]) -> int:
    """``t_eval_plan``'s count: the longest run of matched nodes with increasing gold
    positions, where every node, matched or not, starts a run of 1 (the prediction is not
    empty, so the count is at least 1).

    The official double loop is quadratic; patience sorting gives the same length: ``tails[k]``
    is the smallest gold position that ends an increasing run of ``k + 1`` matched nodes.
    The positions come from a matching, so they are distinct: in increasing order already (a
    prediction in the gold's order), every matched node counts."""
    if positions == sorted(positions):
        return max(len(positions), 1)
    tails: list[int] = []
    for position in positions:
        k = bisect_left(tails, position)
        if k == len(tails):
            tails.append(position)
        else:
            tails[k] = position
    return max(len(tails), 1)


# -- f1_graph ---------------------------------------------------------------------------------
def _graph(
    pred: WorfGraph,
    gold: WorfGraph,
    similarity: Callable[[], _TextSimilarity | _Similarity],
    notes: list[str],
) -> tuple[float, float, float]:
    pairs = similarity().pairs()
    if not pairs:
        notes.append("no node matched: f1_graph 0 (the official script crashes)")
        return 0.0, 0.0, 0.0
    # Raw index pairs, as the official code: a predicted edge between matched predicted nodes
    # that is also a gold edge between matched gold nodes (an index matched on both sides).
    matched = {i for i, _ in pairs}
    matched.intersection_update([g for _, g in pairs])
    gold_edges = _edge_set(gold)
    public = [e for e in pred.edges if e in gold_edges and e[0] in matched and e[1] in matched]
    # Every end of a shared edge is matched on both sides, so the matched predicted nodes and
    # the matched gold nodes have the same components under the shared edges, apart from
    # isolated nodes: one largest component serves both (the official code computes it twice).
    largest = _largest_component(public)
    precision = largest / len(pred.nodes)
    recall = largest / len(gold.nodes)
    return precision, recall, 2 * precision * recall / (precision + recall)


@lru_cache(maxsize=WORKFLOWS_KEPT)
def _edge_set(gold: WorfGraph) -> frozenset[tuple[int, int]]:
    return frozenset(gold.edges)


def _largest_component(edges: Sequence[tuple[int, int]]) -> int:
    """Size of the largest connected component of the undirected graph of ``edges``, 1 when
    there is no edge (any matched node is a component of its own).

    Each node maps to the member list of its component; joining two components moves the
    smaller list into the larger one."""
    members: dict[int, list[int]] = {}
    for a, b in edges:
        group_a, group_b = members.get(a), members.get(b)
        if group_a is None and group_b is None:
            members[a] = members[b] = [a] if a == b else [a, b]
        elif group_a is None:
            group_b.append(a)  # type: ignore[union-attr]
            members[a] = group_b  # type: ignore[assignment]
        elif group_b is None:
            group_a.append(b)
            members[b] = group_a
        elif group_a is not group_b:
            if len(group_a) < len(group_b):
                group_a, group_b = group_b, group_a
            group_a.extend(group_b)
            for node in group_b:
                members[node] = group_a
    return max(map(len, members.values()), default=1)


# -- matching ---------------------------------------------------------------------------------
class _TextSimilarity:
    """``match_node`` with ``TextMatcher``: similarity 1 for equal normalized texts, else 0.

    The candidate graph is then one complete bipartite component per normalized text, and
    networkx pairs each as it would pair it alone (see ``_matching``): a text that occurs once
    on each side is a pair, any other is paired by the canonical ``K(a, b)`` pattern, with no
    graph built. Every order of the gold matches the same number of nodes (``min(a, b)`` per
    text)."""

    def __init__(self, pred: Sequence[str], gold: tuple[str, ...]) -> None:
        """``pred``: the predicted node texts, normalized (``normalize_text``)."""
        self._pred = pred
        self._gold_text, gold_by_text = _gold_texts(gold)
        self._distinct = False
        """No normalized text repeats on either side: every match is a single pair."""
        self._pairs: list[tuple[int, int]] | None = None
        """When no gold text repeats: (predicted node, gold node) of every match, in predicted
        order. Every order of the gold matches these pairs: a text seen once in the gold and
        ``a`` times in the prediction is paired by ``K(a, 1)``, whatever the gold node's
        position."""
        if gold_by_text is not None:
            node_of = dict(zip(pred, range(len(pred)), strict=True))
            if len(node_of) == len(pred):
                self._distinct = True
                self._pairs = [
                    (i, g)
                    for text, i in node_of.items()
                    if (g := gold_by_text.get(text)) is not None
                ]
            else:
                self._pairs = _pairs_of_repeated_predictions(pred, gold_by_text)

    def tasks_alone(self, pred: Sequence[str], gold: Sequence[str]) -> _TextSimilarity | None:
        """The matching of the predicted tasks alone (``pred`` without START and END) against
        ``gold``, when it is this one's pairs without the first and the last: no normalized
        text repeats and both sides are framed by START and END, so START and END pair with
        each other and no task shares their text. Else None."""
        framed = len(pred) >= 2 and pred[0] == "START" and pred[-1] == "END"
        if not (self._distinct and framed and gold[0] == "START" and gold[-1] == "END"):
            return None
        tasks = object.__new__(_TextSimilarity)
        tasks._pred = self._pred[1:-1]
        tasks._gold_text = self._gold_text
        tasks._distinct = True
        tasks._pairs = [(i - 1, g) for i, g in self._pairs[1:-1]]  # type: ignore[index]
        return tasks

    def matched_positions(self, ids: Sequence[int], position: dict[int, int]) -> list[int]:
        """The position in ``ids`` (``position``: gold node -> its position there) of the gold
        node each matched predicted node matches, in predicted order (what ``t_eval_plan``
        counts from)."""
        if self._pairs is None:
            return [j for j in self.matching(ids) if j != -1]
        return [position[g] for _, g in self._pairs if g in position]

    def matching(self, ids: Sequence[int]) -> list[int]:
        """For each predicted node, the position in ``ids`` (gold nodes by index) it matches,
        or -1 (when a gold text repeats: else ``_pairs`` holds the matching)."""
        mapping = [-1] * len(self._pred)
        positions_by_text: dict[str, list[int]] = {}
        for j, g in enumerate(ids):
            positions_by_text.setdefault(self._gold_text[g], []).append(j)
        pred_by_text: dict[str, list[int]] = {}
        for i, text in enumerate(self._pred):
            pred_by_text.setdefault(text, []).append(i)
        for text, positions in positions_by_text.items():
            preds = pred_by_text.get(text)
            if preds is None:
                continue
            if len(preds) == 1 and len(positions) == 1:
                mapping[preds[0]] = positions[0]
                continue
            for i, j in _complete_bipartite_pairs(len(preds), len(positions)):
                mapping[preds[i]] = positions[j]
        return mapping

    def pairs(self) -> list[tuple[int, int]]:
        """(predicted node, gold node) of every match against the gold in its own order."""
        if self._pairs is not None:
            return self._pairs
        return [(i, g) for i, g in enumerate(self.matching(range(len(self._gold_text)))) if g != -1]

    def most_correct(self, positions: Sequence[int]) -> int | None:
        """The most nodes any order can count correct, given one order's matched positions
        (``t_eval_plan`` counts at least 1)."""
        return max(len(positions), 1)


def _pairs_of_repeated_predictions(
    pred: Sequence[str], gold_by_text: dict[str, int]
) -> list[tuple[int, int]]:
    """(predicted node, gold node) pairs, in predicted order, when some predicted text repeats
    and no gold text does: the predicted nodes of one text are paired with its gold node as
    networkx pairs ``K(a, 1)``."""
    by_text: dict[str, list[int]] = {}
    for i, text in enumerate(pred):
        if text in gold_by_text:
            by_text.setdefault(text, []).append(i)
    pairs = []
    for text, preds in by_text.items():
        rank = _complete_bipartite_pairs(len(preds), 1)[0][0] if len(preds) > 1 else 0
        pairs.append((preds[rank], gold_by_text[text]))
    pairs.sort()
    return pairs


@lru_cache(maxsize=WORKFLOWS_KEPT)
def _gold_texts(gold: tuple[str, ...]) -> tuple[list[str], dict[str, int] | None]:
    """A gold's normalized node texts, and text -> node when no text repeats (cached: a run
    scores each reference once per model and sample; callers must not change them)."""
    texts = [normalize_text(text) for text in gold]
    by_text = {text: g for g, text in enumerate(texts)}
    return texts, by_text if len(by_text) == len(texts) else None


class _Similarity:
    """``match_node`` with any other matcher.

    The similarity matrix is computed once. When every node has at most one candidate above
    the threshold, the matching is forced (every candidate pair is taken, as
    ``max_weight_matching`` must with positive weights). Otherwise networkx decides, on a graph
    built in ``match_node``'s order so that it breaks ties the same way; orders of the gold
    that give the same sequence of candidate pairs (gold nodes named by identity, not
    position) give the same matching, so networkx runs once per distinct sequence.
    """

    def __init__(self, matcher: Matcher, pred: Sequence[str], gold: Sequence[str]) -> None:
        self._n_pred = len(pred)
        self._gold = list(gold)
        self._candidates = _candidates(matcher, pred, list(dict.fromkeys(gold)))
        self._solved: dict[tuple[tuple[int, int], ...], dict[int, int]] = {}
        self._forced: dict[frozenset[int], list[tuple[int, int]] | None] = {}
        self._forced_now = False

    def _forced_pairs(self, ids: Sequence[int]) -> list[tuple[int, int]] | None:
        """The (predicted node, gold node) candidate pairs when no node of either side has two
        of them (the matching is then every pair), else None. Orders of one gold hold the same
        nodes, so this is decided once for all of them."""
        key = frozenset(ids)
        if key not in self._forced:
            pairs = [(i, g) for g in ids for i, _ in self._candidates[self._gold[g]]]
            preds, golds = {i for i, _ in pairs}, {g for _, g in pairs}
            unique = len(preds) == len(pairs) == len(golds)
            self._forced[key] = pairs if unique else None
        return self._forced[key]

    def matching(self, ids: Sequence[int]) -> list[int]:
        """For each predicted node, the position in ``ids`` (gold nodes by index) it matches,
        or -1. Gold nodes are named by index, so that orders of one gold share networkx's
        work."""
        forced = self._forced_pairs(ids)
        self._forced_now = forced is not None
        mapping = [-1] * self._n_pred
        if forced is not None:
            position = {g: j for j, g in enumerate(ids)}
            for i, g in forced:
                mapping[i] = position[g]
            return mapping
        per_gold = [(j, self._candidates[self._gold[g]]) for j, g in enumerate(ids)]
        edges = sorted(
            ((i, j, w) for j, cands in per_gold for i, w in cands), key=lambda e: e[0]
        )  # match_node's order: predicted node first, then gold position (sort is stable)
        key = tuple((i, ids[j]) for i, j, _ in edges)
        solved = self._solved.get(key)
        if solved is None:
            solved = _matching(tuple((i, ids[j], w) for i, j, w in edges))
            self._solved[key] = solved
        position = {g: j for j, g in enumerate(ids)}
        for i, g in solved.items():
            mapping[i] = position[g]
        return mapping

    def matched_positions(self, ids: Sequence[int], position: dict[int, int]) -> list[int]:
        """The position in ``ids`` of the gold node each matched predicted node matches, in
        predicted order (what ``t_eval_plan`` counts from)."""
        return [j for j in self.matching(ids) if j != -1]

    def pairs(self) -> list[tuple[int, int]]:
        """(predicted node, gold node) of every match against the gold in its own order."""
        return [(i, g) for i, g in enumerate(self.matching(range(len(self._gold)))) if g != -1]

    def most_correct(self, positions: Sequence[int]) -> int | None:
        """The most nodes any order can count correct when the last matching was forced (the
        same pairs in every order), else None (weights may pick other pairs in another
        order)."""
        return max(len(positions), 1) if self._forced_now else None


def _candidates(
    matcher: Matcher, pred: Sequence[str], texts: list[str]
) -> dict[str, list[tuple[int, float]]]:
    """Gold text -> the predicted nodes (in order) whose similarity is above the threshold."""
    matrix = matcher.similarity(list(pred), texts) if texts else []
    return {
        text: [(i, row[k]) for i, row in enumerate(matrix) if row[k] > MATCH_THRESHOLD]
        for k, text in enumerate(texts)
    }


def _matching(candidates: tuple[tuple[int, int, float], ...]) -> dict[int, int]:
    """Predicted node -> gold node, exactly as ``networkx.max_weight_matching`` pairs them.

    With unit weights (``TextMatcher``) the candidate graph falls apart into complete bipartite
    components (one per normalized text). On such a graph, every edge is tight for the whole
    run of Edmonds' algorithm as networkx implements it: each stage labels every free vertex,
    searches from the last one first and stops at the first augmenting path, which lies inside
    one component; a stage without one ends the run. So each component is paired as it would
    be alone, and a component of ``a`` predicted by ``b`` gold nodes, added predicted node
    first, is always paired the same way: networkx's pairing of the canonical ``K(a, b)``,
    computed once per shape. Tested against networkx on random graphs
    (``tests/metrics/test_worfbench_matching.py``); other graphs go to networkx as they are.
    """
    if all(weight == 1.0 for _, _, weight in candidates):
        components = _complete_components(candidates)
        if components is not None:
            out: dict[int, int] = {}
            for preds, golds in components:
                for i, j in _complete_bipartite_pairs(len(preds), len(golds)):
                    out[preds[i]] = golds[j]
            return out
    return _networkx_matching(candidates)


def _complete_components(
    candidates: tuple[tuple[int, int, float], ...],
) -> list[tuple[list[int], list[int]]] | None:
    """The components of the candidate graph as (predicted nodes, gold nodes) in order of
    first appearance, when each is complete bipartite and its edges come predicted node
    first in that order (as ``matching`` adds them); else None."""
    pred_part: dict[int, int] = {}
    gold_part: dict[int, int] = {}
    parts: list[tuple[list[int], list[int], list[tuple[int, int]]]] = []
    for i, g, _ in candidates:
        part = pred_part.get(i)
        other = gold_part.get(g)
        if part is None:
            part = other if other is not None else len(parts)
            if part == len(parts):
                parts.append(([], [], []))
            pred_part[i] = part
            parts[part][0].append(i)
        elif other is not None and other != part:
            return None  # an edge joining two parts found so far: not complete bipartite
        if other is None:
            gold_part[g] = part
            parts[part][1].append(g)
        parts[part][2].append((i, g))
    out = []
    for preds, golds, edges in parts:
        if edges != [(i, g) for i in preds for g in golds]:
            return None
        out.append((preds, golds))
    return out


@lru_cache(maxsize=1024)
def _complete_bipartite_pairs(a: int, b: int) -> tuple[tuple[int, int], ...]:
    """networkx's matching of ``K(a, b)`` with unit weights, edges added predicted node first:
    (predicted rank, gold rank) pairs, without importing networkx (about 135 ms of start-up).

    networkx pairs the last ``m = min(a, b)`` predicted nodes, the last one with gold 0, the
    one before with gold 1, and so on, except that predicted node ``a - m`` takes the last gold
    node ``b - 1``. Tested against ``networkx.max_weight_matching`` for every ``a, b`` up to 40
    (``tests/metrics/test_worfbench_matching.py``).
    """
    m = min(a, b)
    pairs = {a - 1 - k: k for k in range(m - 1)}
    pairs[a - m] = b - 1
    return tuple(sorted(pairs.items()))


@lru_cache(maxsize=WORKFLOWS_KEPT)
def _networkx_matching(candidates: tuple[tuple[int, int, float], ...]) -> dict[int, int]:
    """Predicted node -> gold node of ``networkx.max_weight_matching`` on the candidate pairs,
    added in the given order (gold nodes as strings, as ``match_node`` names them). Cached:
    the same candidate graph always gives the same matching. Callers must not change it."""
    import networkx as nx

    graph = nx.Graph()
    for i, g, weight in candidates:
        graph.add_edge(i, str(g), weight=weight)
    out = {}
    for a, b in nx.max_weight_matching(graph):
        i, g = (a, b) if isinstance(a, int) else (b, a)
        out[int(i)] = int(g)
    return out
