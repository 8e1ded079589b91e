"""Resolving links that name tools to pairs of node occurrences (TaskBench ``task_links``).

The rule, in order of preference for each link (docs/formats.md, "Links between repeated
tools"):

1. a pair (source i, target j) where node j's arguments cite node i, not taken by another link;
2. otherwise the earliest pair in plan order (by source position, then target position),
   preferring pairs no other link took, then pairs whose ends no other link with the same two
   tool names uses, and never a pair that closes a dependency cycle while an acyclic reading
   of all the links exists (a bounded depth-first search finds it);
3. when every reading is cyclic (or the search budget runs out), the preferred pair of step 2
   regardless of cycles, so that ``acyclic`` reports the cycle the plan really states.
"""

from __future__ import annotations

__all__ = ["resolve_links"]

Pair = tuple[int, int]
_SEARCH_BUDGET = 5_000
"""Candidate pairs tried by the search for an acyclic reading before falling back."""


def resolve_links(
    wanted: list[tuple[str, str]],
    where: dict[str, list[int]],
    cited: set[Pair],
    fixed: list[Pair],
) -> list[Pair]:
    """One ``(producer, consumer)`` pair of node positions per link.

    Args:
        wanted: the links as ``(source tool, target tool)``, both naming nodes of the plan.
        where: each tool's node positions, in plan order.
        cited: ``(producer, consumer)`` pairs where the consumer's arguments cite the producer.
        fixed: dependency edges that exist whatever the links say (index citations).
    """
    if all(len(places) == 1 for places in where.values()):  # no tool repeats: one reading
        return [(where[a][0], where[b][0]) for a, b in wanted]
    candidates = [_pairs(where[a], where[b]) for a, b in wanted]
    chosen: list[Pair | None] = [None] * len(wanted)
    taken: set[Pair] = set()
    for n, pairs in enumerate(candidates):
        for pair in pairs:
            if pair in cited and pair not in taken:
                chosen[n] = pair
                taken.add(pair)
                break
    open_links = [n for n, pair in enumerate(chosen) if pair is None]
    if all(len(candidates[n]) == 1 for n in open_links):  # no tool repeats: nothing to choose
        for n in open_links:
            chosen[n] = candidates[n][0]
        return [pair for pair in chosen if pair is not None]
    search = _Search(wanted, candidates, chosen, fixed)
    return search.run(open_links)


def _pairs(sources: list[int], targets: list[int]) -> list[Pair]:
    pairs = [(i, j) for i in sources for j in targets if i != j]
    return pairs or [(i, i) for i in sources]  # a tool linked to itself, used once


class _Search:
    """Depth-first search over the open links for an acyclic reading, in preference order."""

    def __init__(
        self,
        wanted: list[tuple[str, str]],
        candidates: list[list[Pair]],
        chosen: list[Pair | None],
        fixed: list[Pair],
    ) -> None:
        self.wanted = wanted
        self.candidates = candidates
        self.chosen = list(chosen)
        self.successors: dict[int, list[int]] = {}
        for pair in [*fixed, *(p for p in chosen if p is not None)]:
            self._add(pair)
        self.budget = _SEARCH_BUDGET

    def run(self, open_links: list[int]) -> list[Pair]:
        if len(open_links) > 200 or not self._dfs(open_links, 0):
            self._greedy(open_links)
        return [pair for pair in self.chosen if pair is not None]

    def _dfs(self, open_links: list[int], k: int) -> bool:
        if k == len(open_links):
            return True
        n = open_links[k]
        for pair in self._ranked(n):
            self.budget -= 1
            if self.budget < 0:
                return False
            if self._closes_cycle(pair):
                continue
            self.chosen[n] = pair
            self._add(pair)
            if self._dfs(open_links, k + 1):
                return True
            self._remove(pair)
            self.chosen[n] = None
        return False

    def _greedy(self, open_links: list[int]) -> None:
        for n in open_links:
            if self.chosen[n] is not None:
                self._remove(self.chosen[n])  # type: ignore[arg-type]
                self.chosen[n] = None
        for n in open_links:
            ranked = self._ranked(n)
            pair = next((p for p in ranked if not self._closes_cycle(p)), ranked[0])
            self.chosen[n] = pair
            self._add(pair)

    def _ranked(self, n: int) -> list[Pair]:
        """Link n's candidate pairs, best first: untaken, unused ends, plan order."""
        names = self.wanted[n]
        taken: set[Pair] = set()
        sources: set[int] = set()
        targets: set[int] = set()
        for m, pair in enumerate(self.chosen):
            if pair is None or m == n:
                continue
            taken.add(pair)
            if self.wanted[m] == names:
                sources.add(pair[0])
                targets.add(pair[1])

        def rank(pair: Pair) -> tuple[bool, int, int, int]:
            used = (pair[0] in sources) + (pair[1] in targets)
            return (pair in taken, used, pair[0], pair[1])

        return sorted(self.candidates[n], key=rank)

    def _closes_cycle(self, pair: Pair) -> bool:
        """True when the consumer already reaches the producer (or they are one node)."""
        producer, consumer = pair
        if producer == consumer:
            return True
        stack, seen = [consumer], {consumer}
        while stack:
            x = stack.pop()
            for y in self.successors.get(x, ()):
                if y == producer:
                    return True
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        return False

    def _add(self, pair: Pair) -> None:
        self.successors.setdefault(pair[0], []).append(pair[1])

    def _remove(self, pair: Pair) -> None:
        self.successors[pair[0]].remove(pair[1])
