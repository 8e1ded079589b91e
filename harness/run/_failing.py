"""The failing cases of a run: each (model, case) with a failed sample, and its first violation.

Shared by the ``run`` output (the first ten after the table) and ``summary.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["FailingCase", "failing_cases", "first_violation"]

_FAILED = ("fail", "unparseable")
_COUNTED = ("pass", "fail", "unparseable")


@dataclass(frozen=True, slots=True)
class FailingCase:
    """A (model, case) with at least one failed or unparseable sample."""

    suite: str
    model: str
    case: str
    failed: int
    """Samples that failed or had no plan."""
    counted: int
    """Samples in the pass rate (pass, fail, unparseable)."""
    first_violation: str
    """The first failing sample's first error, as ``check: message`` (or why no plan was read)."""
    sample: int
    """That sample's index."""

    def share(self) -> str:
        """``3 of 5 samples fail`` (``fails`` with one sample)."""
        return "fails" if self.counted == 1 else f"{self.failed} of {self.counted} samples fail"

    def describe(self) -> str:
        """``suite / model / case: 3 of 5 samples fail; acyclic: ...``."""
        return f"{self.suite} / {self.model} / {self.case}: {self.share()}; {self.first_violation}"


def _get(row: Any, name: str) -> Any:
    """A field of a results row: a dict (or other mapping) by key, a ``ResultRow`` or a report
    ``Row`` by attribute (tried first: no abstract-class check per row)."""
    if type(row) is not dict and hasattr(row, "status"):
        return getattr(row, name, None)
    return row.get(name) if isinstance(row, Mapping) else getattr(row, name, None)


def first_violation(row: Any) -> str:
    """``check [task]: message`` of a failed row's first error (or why no plan was read)."""
    if _get(row, "status") == "unparseable":
        detail = " ".join(str(_get(row, "detail") or "the answer holds no plan").split())
        return f"unparseable: {detail}"
    violations = _get(row, "violations") or []
    readable = [v for v in violations if type(v) is dict or isinstance(v, Mapping)]
    candidates = [v for v in readable if v.get("severity") == "error"] or readable
    if not candidates:
        return "failed (no violation recorded)"
    first = candidates[0]
    where = f" [{first['task']}]" if first.get("task") else ""
    return f"{first.get('check', '?')}{where}: {' '.join(str(first.get('message', '')).split())}"


_first_violation = first_violation  # the name the report's failing section imports


def failing_cases(rows: Iterable[Any]) -> list[FailingCase]:
    """Every (model, case) with a failed or unparseable sample, worst first (largest failing
    share, then suite, model and case in order of first appearance).

    Args:
        rows: results rows (``ResultRow`` objects or results.jsonl dicts).
    """
    counted: dict[tuple[str, str, str], int] = {}
    failed: dict[tuple[str, str, str], int] = {}
    first: dict[tuple[str, str, str], tuple[int, str]] = {}
    for row in rows:
        if type(row) is not dict and hasattr(row, "status"):
            status, suite, model, case = row.status, row.suite, row.model, row.case
        else:
            status, suite, model, case = (row.get(k) for k in ("status", "suite", "model", "case"))
        if status not in _COUNTED:
            continue
        key = (str(suite), str(model), str(case))
        counted[key] = counted.get(key, 0) + 1
        if status in _FAILED:
            failed[key] = failed.get(key, 0) + 1
            sample = int(_get(row, "sample") or 0)
            if key not in first or sample < first[key][0]:
                first[key] = (sample, first_violation(row))
    order = {key: i for i, key in enumerate(counted)}
    out = [
        FailingCase(*key, failed[key], counted[key], first[key][1], first[key][0]) for key in failed
    ]
    out.sort(key=lambda f: (-f.failed / f.counted, order[(f.suite, f.model, f.case)]))
    return out
