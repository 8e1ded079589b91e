"""A run's items by identity: which (model, case, sample) it should hold and which it holds.

Counting rows is not enough: a run with one row deleted and another duplicated has the right
number of rows. ``check_items`` compares the multiset of (model, case, sample) keys with the
expected set (the run's models x the suite's cases x ``range(samples)``) and names what is
missing, duplicated or foreign (a model, case or sample the run was not asked for). ``merge``,
``gate`` and ``baseline`` refuse a run that is not exactly its items.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

__all__ = ["Item", "ItemCheck", "check_items", "expected_items", "format_items"]

Item = tuple[str, str, int]
"""(model, case, sample)."""

SHOWN = 5
"""Items named per kind in a message (the count says how many more)."""


def expected_items(models: Sequence[str], cases: Sequence[str], samples: int) -> Iterator[Item]:
    """Every item of a complete run, in run order (models, then cases, then samples)."""
    return ((m, c, s) for m in models for c in cases for s in range(max(1, samples)))


def format_items(items: Sequence[Item], limit: int = SHOWN) -> str:
    """``m / c07 / sample 0, m / c09 / sample 1 …and 3 more``."""
    shown = ", ".join(f"{m} / {c} / sample {s}" for m, c, s in items[:limit])
    more = len(items) - limit
    return shown + (f" …and {more} more" if more > 0 else "")


@dataclass(frozen=True, slots=True)
class ItemCheck:
    """What a run's rows hold against the items it should hold."""

    expected: int
    """Items of a complete run."""
    missing: tuple[Item, ...] = ()
    """Expected items with no row, in run order."""
    duplicated: tuple[Item, ...] = ()
    """Items with more than one row (each named once)."""
    foreign: tuple[Item, ...] = ()
    """Rows of a model, case or sample the run was not asked for."""

    @property
    def exact(self) -> bool:
        """True when every expected item has exactly one row and no row is foreign."""
        return not (self.missing or self.duplicated or self.foreign)

    def describe(self) -> str:
        """``1 of 40 (model, case, sample) items missing (m / c07 / sample 0); ...``."""
        parts = []
        for name, items in (
            ("missing", self.missing),
            ("duplicated", self.duplicated),
            ("foreign (not in the run's models, suite cases or samples)", self.foreign),
        ):
            if items:
                parts.append(f"{len(items)} {name} ({format_items(items)})")
        what = "; ".join(parts) if parts else "every item present once"
        return f"of {self.expected} (model, case, sample) items: {what}"


def check_items(rows: Iterable[Item], expected: Iterable[Item]) -> ItemCheck:
    """Compare the rows' keys with the expected items (see the module docstring).

    ``expected`` is read once, in run order, and not kept: a generator over a streamed suite's
    cases holds no list of them.
    """
    left = Counter(rows)
    count = 0
    missing: list[Item] = []
    duplicated: list[Item] = []
    for item in expected:
        count += 1
        found = left.pop(item, 0)
        if found == 0:
            missing.append(item)
        elif found > 1:
            duplicated.append(item)
    return ItemCheck(count, tuple(missing), tuple(duplicated), tuple(left))
