"""The data embedded in report.html: a small case table, and per-sample detail parsed only
when a case is first opened.

``case-data`` (parsed on load): models, checks, tags, and one entry per case: its id, tag
indices, a status letter per sample per model, and per model the indices of the checks that
did not pass on some sample (for the check filter).

``detail-data`` (parsed on the first click): shared tables of texts (``t``), plans (``p``)
and violation lists (``v``), and per case its prompt and, per model and sample, a reference
``[plan, violations, answer, detail]`` (indices, -1 for none) or 0 when that sample's detail
was left out. Detail is added worst first (a failing sample of each case x model, then every
other sample) until ``DETAIL_BUDGET`` bytes, so a 200,000-row run stays well under 10 MB.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness.report._aggregate import Summary
from harness.report._rows import Row

__all__ = ["DETAIL_BUDGET", "LETTER", "case_payload", "natural_key"]

DETAIL_BUDGET = 5_000_000
"""Bytes of plans, violations, answers and prompts embedded at most."""

LETTER = {"pass": "p", "fail": "f", "unparseable": "u", "missing": "m", "stale": "s", "error": "e"}
_RANK = {"fail": 0, "unparseable": 1, "error": 2, "stale": 3, "missing": 4, "pass": 5}
_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that orders ``c_2`` before ``c_10`` (numbers by value, the rest as text)."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.lower())
        for part in _DIGITS.split(text)
        if part
    )


class _Tables:
    """Deduplicated, budgeted tables of texts, plans and violation lists."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self.full = False
        self.texts: list[str] = []
        self.plans: list[Any] = []
        self.viols: list[Any] = []
        self._index: dict[tuple[str, str], int] = {}

    def add(self, kind: str, value: Any) -> int:
        """Index of ``value`` in its table, adding it if the budget allows (-1 otherwise)."""
        if value is None or value == "" or value == []:
            return -1
        text = value if kind == "t" else json.dumps(value, separators=(",", ":"))
        found = self._index.get((kind, text))
        if found is not None:
            return found
        if self.used + len(text) > self.budget:
            self.full = True
            return -1
        table = {"t": self.texts, "p": self.plans, "v": self.viols}[kind]
        table.append(value)
        self.used += len(text)
        self._index[(kind, text)] = len(table) - 1
        return len(table) - 1


def _ref(tables: _Tables, row: Row) -> list[int] | int:
    ref = [
        tables.add("p", row.plan),
        tables.add("v", row.violations),
        tables.add("t", row.answer),
        tables.add("t", row.detail),
    ]
    return ref if any(x >= 0 for x in ref) else 0


def case_payload(
    s: Summary, prompts: dict[str, str], budget: int = DETAIL_BUDGET
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``case-data`` and ``detail-data`` documents of report.html."""
    models = [str(m) for m in s.models.index]
    mi = {m: i for i, m in enumerate(models)}
    checks: dict[str, int] = {}
    tags: dict[str, int] = {}
    grid: dict[str, list[list[int | None]]] = {}  # case -> model -> sample -> row index
    case_tags: dict[str, list[int]] = {}
    bad_checks: dict[str, list[set[int]]] = {}
    for i, row in enumerate(s.run.rows):
        case, m, k = row.case, mi[row.model], row.sample
        slots = grid.get(case)
        if slots is None:
            slots = grid[case] = [[] for _ in models]
            case_tags[case] = [tags.setdefault(str(t), len(tags)) for t in row.tags or []]
            bad_checks[case] = [set() for _ in models]
        cell = slots[m]
        if len(cell) <= k:
            cell.extend([None] * (k + 1 - len(cell)))
        cell[k] = i
        outcomes = row.checks
        if outcomes and ("fail" in outcomes.values() or "warn" in outcomes.values()):
            for check, outcome in outcomes.items():
                if outcome in ("fail", "warn"):
                    bad_checks[case][m].add(checks.setdefault(check, len(checks)))
    rows = s.run.rows
    status = [r.status for r in rows]

    def letters(cell: list[int | None]) -> str:
        return "".join("_" if i is None else LETTER[status[i]] for i in cell)

    def badness(case: str) -> tuple[int, int]:
        statuses = [status[i] for cell in grid[case] for i in cell if i is not None]
        return (
            -sum(x in ("fail", "unparseable") for x in statuses),
            -sum(x in ("missing", "stale", "error") for x in statuses),
        )

    order = sorted(grid, key=lambda c: (badness(c), natural_key(c)))
    tables = _Tables(budget)
    refs: list[list[list[list[int] | int]]] = [[[0] * len(cell) for cell in grid[c]] for c in order]
    prompt_refs = [-1] * len(order)
    # First a representative (worst) sample of each case x model, then all the others.
    for n, case in enumerate(order):
        prompt_refs[n] = tables.add("t", prompts.get(case))
        for m, cell in enumerate(grid[case]):
            present = [k for k, i in enumerate(cell) if i is not None]
            if present:
                k = min(present, key=lambda k: _RANK[status[cell[k]]])  # type: ignore[index]
                refs[n][m][k] = _ref(tables, rows[cell[k]])  # type: ignore[index]
        if tables.full:
            break
    for n, case in enumerate(order):
        if tables.full:
            break
        for m, cell in enumerate(grid[case]):
            for k, index in enumerate(cell):
                if index is not None and refs[n][m][k] == 0:
                    refs[n][m][k] = _ref(tables, rows[index])
    cases = [
        {
            "id": c,
            "tags": case_tags[c],
            "s": [letters(cell) for cell in grid[c]],
            "x": [sorted(b) for b in bad_checks[c]],
        }
        for c in order
    ]
    main = {"models": models, "checks": list(checks), "tags": list(tags), "cases": cases}
    detail = {
        "t": tables.texts,
        "p": tables.plans,
        "v": tables.viols,
        "pr": prompt_refs,
        "d": refs,
        "cut": tables.full,
    }
    return main, detail
