"""A flip's two sides: the sample shown for each run and the plan diff between them.

For each side the worst sample represents the (model, case): a failing one when there is one
(so a pass -> fail flip shows a passing base plan against the candidate's failing plan).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from harness.compare._compare import Comparison, Flip
from harness.compare._plan_diff import PlanDiff, diff_plans
from harness.report._rows import Row

if TYPE_CHECKING:
    from harness.report._load import LoadedRun

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


def _shown(
    run: LoadedRun, keys: dict[str, str], wanted: set[tuple[str, str]]
) -> dict[tuple[str, str], Row]:
    """Per wanted (model, case), the row shown: the worst sample, the first in the file among
    equally bad ones. Found in the run's columns; only those rows are read back."""
    f = run.frame
    cases = {case for _, case in wanted}
    at = np.flatnonzero(f["case"].isin(cases).to_numpy())
    columns = (f[x].to_numpy()[at].tolist() for x in ("model", "case", "status"))
    best: dict[tuple[str, str], tuple[int, int]] = {}
    for i, model, case, status in zip(at.tolist(), *columns, strict=True):
        name = keys.get(model)
        if name is None or (name, case) not in wanted:
            continue
        rank = _RANK.get(status, 9)
        old = best.get((name, case))
        if old is None or rank < old[0]:
            best[(name, case)] = (rank, i)
    order = sorted(best, key=lambda k: best[k][1])
    return dict(zip(order, run.take([best[k][1] for k in order]), strict=True))


def flip_details(c: Comparison, limit: int = 200) -> list[FlipDetail]:
    """The first ``limit`` flips (pass -> fail first) with their samples and plan diffs."""
    chosen = [("pass -> fail", f) for f in c.to_fail] + [("fail -> pass", f) for f in c.to_pass]
    chosen = chosen[:limit]
    wanted = {(f.model, f.case) for _, f in chosen}
    bkey = {bm: (bm if bm == cm else f"{bm} -> {cm}") for bm, cm in c.pairs}
    ckey = {cm: (bm if bm == cm else f"{bm} -> {cm}") for bm, cm in c.pairs}
    sides = [_shown(c.base, bkey, wanted), _shown(c.cand, ckey, wanted)]
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
