"""The case table's data behind report.html, in parts of ``per`` cases each.

The index (``case-index``, in the page): models, checks, tags, the number of cases ``n``, the
cases per part ``per`` and the number of parts (``parts``; ``detail_parts`` of them have
detail). Each part of the case list is a JSON array of up to ``per`` cases, worst first: its
id, tag indices, a status letter per sample per model, and per model the indices of the checks
that did not pass on some sample (for the check filter). Each part's detail: tables of texts
(``t``), plans (``p``) and violation lists (``v``), and per case of the part its prompt and,
per model and sample, a reference ``[plan, violations, answer, detail]`` (indices, -1 for
none) or 0 when that sample's detail was left out. Detail is added worst first (a failing
sample of each case x model, then every other sample) until ``DETAIL_BUDGET`` bytes, so
only the first parts have any.

Small runs keep every part inside report.html; larger ones write them beside it (see
``harness.report._html``), so the page's size does not grow with the rows.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

import msgspec
import numpy as np
import pandas as pd

from harness.report._aggregate import Summary
from harness.report._load import LoadedRun
from harness.report._rows import Row
from harness.report._scan import RowFile, decode_row

__all__ = [
    "DETAIL_BUDGET",
    "LETTER",
    "PAGE",
    "CaseParts",
    "case_parts",
    "case_payload",
    "natural_key",
]

DETAIL_BUDGET = 5_000_000
"""Bytes of plans, violations, answers and prompts written at most (over every part)."""
PAGE = 50
"""Cases per page of the table (the page's script shows this many at a time)."""
PART_BYTES = 256_000
"""About this many bytes of case list per part (a multiple of ``PAGE`` cases, at least one
page): a page of the table needs one part, and reading the whole list for a filter reads a
few hundred files at most at a million cases."""

LETTER = {"pass": "p", "fail": "f", "unparseable": "u", "missing": "m", "stale": "s", "error": "e"}
_RANK = {"fail": 0, "unparseable": 1, "error": 2, "stale": 3, "missing": 4, "pass": 5}
_DIGITS = re.compile(r"(\d+)")
_ENCODE = msgspec.json.Encoder().encode


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that orders ``c_2`` before ``c_10`` (numbers by value, the rest as text)."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.lower())
        for part in _DIGITS.split(text)
        if part
    )


class _Tables:
    """Deduplicated, budgeted tables of texts, plans and violation lists. Plans and violation
    lists are held as their JSON text (``msgspec.Raw``: written into the page as they are,
    never encoded twice); a plan's text is the one results.jsonl holds."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self.full = False
        self.texts: list[str] = []
        self.plans: list[msgspec.Raw] = []
        self.viols: list[msgspec.Raw] = []
        self._index: dict[tuple[str, Any], int] = {}

    def add(self, kind: str, value: Any) -> int:
        """Index of ``value`` in its table, adding it if the budget allows (-1 otherwise)."""
        if value is None or value == "" or value == []:
            return -1
        if kind == "t":
            key, size = value, len(value)
        else:
            key = bytes(value) if isinstance(value, msgspec.Raw) else _ENCODE(value)
            if key in (b"null", b"[]", b'""'):
                return -1
            size = len(key)
        found = self._index.get((kind, key))
        if found is not None:
            return found
        if self.used + size > self.budget:
            self.full = True
            return -1
        table: list[Any] = self.texts if kind == "t" else self.plans if kind == "p" else self.viols
        table.append(value if kind == "t" else msgspec.Raw(key))
        self.used += size
        self._index[(kind, key)] = len(table) - 1
        return len(table) - 1


class _Shown(msgspec.Struct):
    """What a sample's detail shows of its row (the decoder skips the rest of the line)."""

    plan_json: msgspec.Raw = msgspec.field(default=msgspec.Raw(b"null"), name="plan")
    violations: Any = None
    answer: Any = None
    detail: Any = None


_SHOWN = msgspec.json.Decoder(_Shown)


def _shown(line: bytes) -> _Shown | Row:
    try:
        return _SHOWN.decode(line)
    except msgspec.DecodeError:  # NaN or Infinity inside: the whole row, as the loader reads it
        return decode_row(line)


def _ref(tables: _Tables, row: Row | _Shown) -> list[int] | int:
    ref = [
        tables.add("p", row.plan_json),
        tables.add("v", row.violations),
        tables.add("t", _text(row.answer)),
        tables.add("t", _text(row.detail)),
    ]
    return ref if any(x >= 0 for x in ref) else 0


def _text(value: Any) -> str | None:
    """A row's answer or detail as the page shows it: the results-row schema says text (or
    null); a row written by another tool with an object, a list or a number there is shown as
    its JSON text rather than stopping the report."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class CaseParts:
    """The case table's data: its index and its parts' JSON text."""

    index: dict[str, Any]
    """models, checks, tags, n (cases), per (cases per part), parts, detail_parts, cut."""
    cases: list[bytes]
    """Per part, the JSON array of its cases."""
    details: list[bytes]
    """Per part up to ``index["detail_parts"]``, the JSON object of its cases' detail."""


def case_parts(
    s: Summary,
    prompts: Mapping[str, str],
    budget: int = DETAIL_BUDGET,
    part_bytes: int = PART_BYTES,
) -> CaseParts:
    """``case_payload`` cut into parts of ``per`` cases (one JSON encoding per part)."""
    main, detail = case_payload(s, prompts, budget)
    cases = main.pop("cases")
    n = len(cases)
    probe = cases[:200]
    average = len(_ENCODE(probe)) // len(probe) if probe else 1
    per = max(PAGE, part_bytes // max(1, average) // PAGE * PAGE)
    starts = range(0, n, per)
    with_detail = [
        any(x >= 0 for x in detail["pr"][a : a + per])
        or any(_has_ref(c) for c in detail["d"][a : a + per])
        for a in starts
    ]
    detail_parts = max((k + 1 for k, has in enumerate(with_detail) if has), default=0)
    index = {**main, "n": n, "per": per, "parts": len(starts), "detail_parts": detail_parts}
    index["cut"] = detail["cut"]
    return CaseParts(
        index,
        [_ENCODE(cases[a : a + per]) for a in starts],
        [_ENCODE(_detail_part(detail, a, a + per)) for a in starts[:detail_parts]],
    )


def _has_ref(case: list[list[Any]]) -> bool:
    return any(ref != 0 for cell in case for ref in cell)


def _detail_part(detail: dict[str, Any], a: int, b: int) -> dict[str, Any]:
    """The detail of cases ``a`` to ``b``: their references, into tables of their own."""
    tables: dict[str, list[Any]] = {"t": [], "p": [], "v": []}
    numbers: dict[str, dict[int, int]] = {"t": {}, "p": {}, "v": {}}

    def local(kind: str, i: int) -> int:
        if i < 0:
            return i
        found = numbers[kind].get(i)
        if found is None:
            found = numbers[kind][i] = len(tables[kind])
            tables[kind].append(detail[kind][i])
        return found

    prompts = [local("t", i) for i in detail["pr"][a:b]]
    refs = [
        [
            [
                r
                if r == 0
                else [local("p", r[0]), local("v", r[1]), local("t", r[2]), local("t", r[3])]
                for r in cell
            ]
            for cell in case
        ]
        for case in detail["d"][a:b]
    ]
    return {**tables, "pr": prompts, "d": refs}


def case_payload(
    s: Summary, prompts: Mapping[str, str], budget: int = DETAIL_BUDGET
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The case list and detail of report.html, whole (``case_parts`` cuts them into parts).

    Built from the run's columns when every (case, model, sample) is one row with a sample
    of 0 or more (any run planeval writes); else row by row, where a repeated sample
    overwrites the earlier one. Both give the same documents for the same rows.
    """
    grid = _Grid.of(s)
    if grid is None:
        return _case_payload_by_row(s, prompts, budget)
    return grid.payload(s, prompts, budget)


def _case_payload_by_row(
    s: Summary, prompts: Mapping[str, str], budget: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``case_payload``, one row at a time."""
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
    status = [str(x) for x in s.run.frame["status"].tolist()]  # not a second pass over the file

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
    return _payload(models, list(checks), list(tags), cases, tables, prompt_refs, refs)


def _payload(
    models: list[str],
    checks: list[str],
    tags: list[str],
    cases: list[dict[str, Any]],
    tables: _Tables,
    prompt_refs: list[int],
    refs: list[Any],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The page's main data (models, checks, tags, cases) and its lazily read detail."""
    main = {"models": models, "checks": checks, "tags": tags, "cases": cases}
    detail = {
        "t": tables.texts,
        "p": tables.plans,
        "v": tables.viols,
        "pr": prompt_refs,
        "d": refs,
        "cut": tables.full,
    }
    return main, detail


def _slots_max(rows: int) -> int:
    """At most this many (case, model, sample) slots, or (case, model) x check cells, for the
    columnar grid (a sparser grid goes row by row: memory stays in proportion to the rows)."""
    return 4 * rows + 1_000_000


_UNDERSCORE = ord("_")


class _Grid:
    """The rows of a run laid out as case x model x sample slots (numpy arrays), for
    ``case_payload``: cases numbered in order of first appearance, models in the order of
    ``Summary.models``."""

    def __init__(
        self, s: Summary, cases: Any, names: list[str], models: list[str], m: Any, k: Any
    ) -> None:
        self.names, self.models = names, models
        self.nc, self.nm, self.ns = len(names), len(models), int(k.max()) + 1
        self.case, self.sample = cases, k
        self.cell = cases * self.nm + m  # one cell per (case, model)
        self.slot = self.cell * self.ns + k
        self.code = _codes(s.run.frame["status"], {st: i for i, st in enumerate(_RANK)})
        """Per row, its status as an index into ``_RANK`` (its rank)."""

    @classmethod
    def of(cls, s: Summary) -> _Grid | None:
        """The grid, or None when some slot holds two rows, a sample is negative, or the grid
        would be too big (then ``case_payload`` goes row by row)."""
        f = s.run.frame
        models = [str(m) for m in s.models.index]
        k = f["sample"].to_numpy()
        if k.dtype.kind != "i" or len(k) == 0 or int(k.min()) < 0:
            return None
        cases, names = s.run.case_codes
        m = _codes(f["model"], {model: i for i, model in enumerate(models)})
        if m is None:
            return None
        checks = len(set(chain.from_iterable(s.run.check_sets.names)))
        if len(names) * len(models) * max(int(k.max()) + 1, checks) > _slots_max(len(k)):
            return None
        grid = cls(s, cases.astype(np.int64), [str(c) for c in names], models, m, k)
        ordered = np.sort(grid.slot)
        if grid.code is None or (ordered[1:] == ordered[:-1]).any():
            return None
        return grid

    def payload(
        self, s: Summary, prompts: Mapping[str, str], budget: int
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        samples = self.sample.tolist()
        nc, nm, ns = self.nc, self.nm, self.ns
        # Per cell: its length (highest sample + 1) and the row in each slot (-1: none).
        length = np.zeros(nc * nm, dtype=np.int64)
        np.maximum.at(length, self.cell, self.sample + 1)
        at = np.full(nc * nm * ns, -1, dtype=np.int64)
        at[self.slot] = np.arange(len(self.slot))
        letters = np.full(nc * nm * ns, _UNDERSCORE, dtype=np.uint8)
        table = np.frombuffer("".join(LETTER[st] for st in _RANK).encode("ascii"), np.uint8)
        letters[self.slot] = table[self.code]
        text = letters.tobytes().decode("ascii")
        lengths = length.tolist()
        # Cases worst first: failing samples, then not counted ones; then by name.
        rank = self.code
        failing = np.bincount(self.case, weights=rank <= 1, minlength=nc).astype(np.int64)
        other = np.bincount(self.case, weights=(rank >= 2) & (rank <= 4), minlength=nc)
        bad = list(zip((-failing).tolist(), (-other.astype(np.int64)).tolist(), strict=True))
        order = sorted(range(nc), key=lambda c: (bad[c], natural_key(self.names[c])))
        # Tags: those of each case's first row, numbered in order of first appearance.
        tags: dict[str, int] = {}
        first_row = np.unique(self.case, return_index=True)[1].tolist()
        row_tags = s.run.row_tags()
        case_tags = [
            [tags.setdefault(str(t), len(tags)) for t in row_tags[i] or []] for i in first_row
        ]
        checks, bad_checks = self._bad_checks(s)
        # Detail: a representative (worst, then lowest) sample of each cell first.
        by = np.lexsort((self.sample, rank, self.cell))
        firsts = np.unique(self.cell[by], return_index=True)
        representative = np.full(nc * nm, -1, dtype=np.int64)
        representative[firsts[0]] = by[firsts[1]]
        rep = representative.tolist()
        tables = _Tables(budget)
        refs: list[list[list[list[int] | int]]] = [
            [[0] * lengths[c * nm + m] for m in range(nm)] for c in order
        ]
        prompt_refs = [-1] * len(order)
        firsts_wanted = (rep[c * nm + m] for c in order for m in range(nm))
        ahead = _Ahead(s.run, (x for x in firsts_wanted if x >= 0))
        for n, c in enumerate(order):
            prompt_refs[n] = tables.add("t", prompts.get(self.names[c]))
            for m in range(nm):
                i = rep[c * nm + m]
                if i >= 0:
                    refs[n][m][samples[i]] = _ref(tables, ahead.next())
            if tables.full:
                break
        if not tables.full:
            slots = at.tolist()

            def others() -> Iterator[int]:
                for n, c in enumerate(order):
                    for m in range(nm):
                        base = (c * nm + m) * ns
                        for k in range(lengths[c * nm + m]):
                            i = slots[base + k]
                            if i >= 0 and refs[n][m][k] == 0:
                                yield i

            ahead = _Ahead(s.run, others())
            for n, c in enumerate(order):
                if tables.full:
                    break
                for m in range(nm):
                    base = (c * nm + m) * ns
                    for k in range(lengths[c * nm + m]):
                        i = slots[base + k]
                        if i >= 0 and refs[n][m][k] == 0:
                            refs[n][m][k] = _ref(tables, ahead.next())
        cases = []
        for c in order:
            cells = range(c * nm, c * nm + nm)
            cases.append(
                {
                    "id": self.names[c],
                    "tags": case_tags[c],
                    "s": [text[x * ns : x * ns + lengths[x]] for x in cells],
                    "x": [bad_checks.get(x, []) for x in cells],
                }
            )
        return _payload(self.models, checks, list(tags), cases, tables, prompt_refs, refs)

    def _bad_checks(self, s: Summary) -> tuple[list[str], dict[int, list[int]]]:
        """The checks that failed or warned on some row, numbered in order of first
        appearance (row by row, each row's checks in order), and per cell the sorted numbers
        of those that did on one of its rows."""
        sets = s.run.check_sets
        bad_of = [
            [name for name, o in zip(names, outcomes, strict=True) if o in ("fail", "warn")]
            for names, outcomes in zip(sets.names, sets.outcomes, strict=True)
        ]
        has_bad = np.array([bool(b) for b in bad_of], dtype=bool)[sets.ids]
        rows_bad = np.flatnonzero(has_bad)
        checks: dict[str, int] = {}
        if len(rows_bad) == 0:
            return [], {}
        ids = sets.ids[rows_bad]
        seen, first = np.unique(ids, return_index=True)
        for which in seen[np.argsort(first, kind="stable")].tolist():
            for name in bad_of[which]:
                checks.setdefault(name, len(checks))
        # Which checks each set has bad (a small matrix), then which each cell has.
        has = np.zeros((len(bad_of), len(checks)), dtype=bool)
        for which, names in enumerate(bad_of):
            has[which, [checks[name] for name in names]] = True
        cells = np.zeros((self.nc * self.nm, len(checks)), dtype=bool)
        for j in range(len(checks)):
            on = has[ids, j]
            cells[self.cell[rows_bad[on]], j] = True
        lists: dict[bytes, list[int]] = {}
        per_cell: dict[int, list[int]] = {}
        for cell in np.flatnonzero(cells.any(axis=1)).tolist():
            row = cells[cell]
            key = row.tobytes()
            found = lists.get(key)
            if found is None:
                found = lists[key] = np.flatnonzero(row).tolist()
            per_cell[cell] = list(found)
        return list(checks), per_cell


class _Ahead:
    """The rows at the indices ``wanted`` yields, read from the run a batch at a time (each
    batch in file order), for a caller that asks for them in that order (and may stop
    early)."""

    def __init__(self, run: LoadedRun, wanted: Iterator[int], batch: int = 2048) -> None:
        self._run, self._wanted, self._batch = run, wanted, batch
        self._rows: deque[Row | _Shown] = deque()

    def next(self) -> Row | _Shown:
        if not self._rows:
            wanted = list(islice(self._wanted, self._batch))
            order = sorted(range(len(wanted)), key=wanted.__getitem__)
            indices = [wanted[i] for i in order]
            found = self._run.rows
            got = (
                list(map(_shown, found.lines(indices)))
                if isinstance(found, RowFile)
                else self._run.take(indices)
            )
            rows: list[Any] = [None] * len(wanted)
            for at, row in zip(order, got, strict=True):
                rows[at] = row
            self._rows.extend(rows)
        return self._rows.popleft()


def _codes(column: pd.Series, numbers: dict[Any, int]) -> Any:
    """``numbers`` of each value of ``column`` as an int64 array (None if one has none)."""
    codes, values = pd.factorize(column, sort=False)
    table = [numbers.get(v, -1) for v in values]
    if -1 in table:
        return None
    return np.array(table, dtype=np.int64)[codes]
