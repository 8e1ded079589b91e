"""A flip's two sides: the sample shown for each run and the plan diff between them.

For each side the worst sample represents the (model, case): a failing one when there is one
(so a pass -> fail flip shows a passing base plan against the candidate's failing plan).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.compare._compare import Comparison, Flip
from harness.compare._plan_diff import PlanDiff, diff_plans
from harness.report._rows import Row

__all__ = ["FlipDetail", "flip_details"]

_RANK = {"fail": 0, "unparseable": 1, "pass": 2, "error": 3, "stale": 4, "missing": 5}


@dataclass(frozen=True)
class FlipDetail:
    """One flip with the rows compared and their plan diff."""

    flip: Flip
    """The flip."""
    direction: str
    """``pass -> fail`` or ``fail -> pass``."""
    base_row: Row | None
    """The base sample shown (its results.jsonl row)."""
    cand_row: Row | None
    """The candidate sample shown."""
    diff: PlanDiff
    """From the base plan to the candidate plan."""


def _worst(rows: dict[tuple[str, str], Row], key: tuple[str, str], row: Row) -> None:
    old = rows.get(key)
    if old is None or _RANK.get(row.status, 9) < _RANK.get(old.status, 9):
        rows[key] = row


def flip_details(c: Comparison, limit: int = 200) -> list[FlipDetail]:
    """The first ``limit`` flips (pass -> fail first) with their samples and plan diffs."""
    chosen = [("pass -> fail", f) for f in c.to_fail] + [("fail -> pass", f) for f in c.to_pass]
    chosen = chosen[:limit]
    wanted = {(f.model, f.case) for _, f in chosen}
    bkey = {bm: (bm if bm == cm else f"{bm} -> {cm}") for bm, cm in c.pairs}
    ckey = {cm: (bm if bm == cm else f"{bm} -> {cm}") for bm, cm in c.pairs}
    sides: list[dict[tuple[str, str], Row]] = [{}, {}]
    for side, run, keys in ((0, c.base, bkey), (1, c.cand, ckey)):
        for row in run.rows:
            model = keys.get(row.model)
            if model is not None and (model, row.case) in wanted:
                _worst(sides[side], (model, row.case), row)
    out = []
    for direction, f in chosen:
        b, n = sides[0].get((f.model, f.case)), sides[1].get((f.model, f.case))
        diff = diff_plans(
            b.get("plan") if b else None,
            n.get("plan") if n else None,
            b.get("violations") if b else None,
            n.get("violations") if n else None,
        )
        out.append(FlipDetail(f, direction, b, n, diff))
    return out
