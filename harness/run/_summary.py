"""Pass rates per model, and what a finished run means for the exit code."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from harness.run._records import COUNTED_STATUSES, STATUSES, ResultRow

__all__ = ["ModelSummary", "count_statuses", "summarize"]


@dataclass(frozen=True, slots=True)
class ModelSummary:
    """One model's results in a run."""

    model: str
    """The model id."""
    counts: dict[str, int]
    """Rows per status (every status present, zeros included)."""
    per_case: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Case id -> (passed, counted) samples: what the clustered interval needs."""
    case_counts: Iterable[tuple[int, int]] | None = None
    """(passed, counted) per case without the ids, re-iterable (``RunTally`` keeps them in
    arrays); when given, the interval reads these instead of ``per_case``."""

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval of the pass rate, clustered by case (the one every report
        prints: ``harness.stats.cluster_wilson_interval``); NaNs when nothing counted."""
        from harness.stats._cluster import cluster_wilson_interval

        pairs = self.case_counts if self.case_counts is not None else self.per_case.values()
        return cluster_wilson_interval(pairs)

    @property
    def counted(self) -> int:
        """Rows that count in the pass rate (pass, fail, unparseable)."""
        return sum(self.counts[s] for s in COUNTED_STATUSES)

    @property
    def pass_rate(self) -> float | None:
        """passes / counted rows (unparseable counts as a failure); None when nothing counted."""
        return self.counts["pass"] / self.counted if self.counted else None

    @property
    def parse_rate(self) -> float | None:
        """Rows with a plan (pass or fail) / counted rows; None when nothing counted."""
        if not self.counted:
            return None
        return (self.counts["pass"] + self.counts["fail"]) / self.counted


def count_statuses(rows: Iterable[ResultRow]) -> dict[str, int]:
    """Rows per status, every status present."""
    seen = Counter(row.status for row in rows)
    return {status: seen.get(status, 0) for status in STATUSES}


def summarize(rows: Iterable[ResultRow], models: Iterable[str] = ()) -> list[ModelSummary]:
    """One summary per model, in the order of ``models`` then first appearance."""
    by_model: dict[str, list[ResultRow]] = {m: [] for m in models}
    for row in rows:
        by_model.setdefault(row.model, []).append(row)
    return [ModelSummary(m, count_statuses(r), _per_case(r)) for m, r in by_model.items()]


def _per_case(rows: Iterable[ResultRow]) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = {}
    for row in rows:
        if row.status in COUNTED_STATUSES:
            c = out.setdefault(row.case, [0, 0])
            c[0] += row.status == "pass"
            c[1] += 1
    return {case: (c[0], c[1]) for case, c in out.items()}
