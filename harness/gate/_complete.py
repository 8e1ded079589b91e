"""Refusing incomplete runs: a gate or a baseline on part of a suite would pass by accident.

A run is complete when it finished (run.json has ``finished_at`` and is not marked
``interrupted``), is not an unmerged ``--shard`` run nor a merge made with
``--allow-partial``, and holds **exactly one row per (model, case, sample) item**: none
missing, none duplicated, none foreign (``harness.run._items``). The suite's case ids come
from run.json (shard and merged runs record them), else from the suite file when it still has
the case count run.json recorded, else from the rows themselves (then cases that never
appear are counted from run.json's case count, not named).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness._errors import InputError, RunFormatError
from harness.report import LoadedRun
from harness.run import finish_command
from harness.run._items import Item, ItemCheck, check_items, expected_items, format_items

if TYPE_CHECKING:
    from harness.suite import Case

__all__ = ["Completeness", "IncompleteRunError", "completeness", "require_complete"]


class IncompleteRunError(RunFormatError):
    """A run that stopped early or lacks rows: judging it would judge part of the suite.

    The CLI exits 3 (rows are missing, like missing recordings).
    """

    def __init__(self, state: Completeness, *, source: str, hint: str) -> None:
        self.state = state
        super().__init__(state.describe(), source=source, hint=hint)


@dataclass(frozen=True, slots=True)
class Completeness:
    """How much of its suite a run holds, item by item."""

    rows: int
    """Rows in results.jsonl (a torn last line not included)."""
    expected: int | None
    """Rows a complete run holds (models x cases x samples), or None when unknown."""
    interrupted: bool
    """run.json says the run was stopped (Ctrl+C, SIGTERM)."""
    unfinished: bool
    """run.json has no ``finished_at``: the run was killed, or is still running."""
    items: ItemCheck | None = None
    """The rows' (model, case, sample) keys against the expected items (None: no models)."""
    unnamed_missing: int = 0
    """Missing items of cases that never appear in the rows and whose ids are unknown."""
    shard: str | None = None
    """``1/2`` for an unmerged ``--shard`` run: part of the suite by design."""
    partial: dict[str, int] = field(default_factory=dict)
    """What ``merge --allow-partial`` recorded as missing or foreign (empty otherwise)."""

    @property
    def missing(self) -> int:
        """Expected items with no row."""
        named = len(self.items.missing) if self.items else 0
        if self.items is None and self.expected is not None:
            return max(0, self.expected - self.rows)
        return named + self.unnamed_missing

    @property
    def complete(self) -> bool:
        """True when nothing says the run is partial."""
        exact = self.items is None or self.items.exact
        return not (
            self.interrupted
            or self.unfinished
            or self.missing
            or not exact
            or self.shard
            or self.partial
        )

    def describe(self) -> str:
        """One sentence: why the run is incomplete, with the items."""
        if self.shard:
            return (
                f"the run is shard {self.shard} of its suite (an unmerged --shard run holds "
                "part of the suite)"
            )
        if self.partial:
            counts = ", ".join(f"{n} {what}" for what, n in self.partial.items())
            return f"the run was merged with --allow-partial ({counts} items)"
        why = (
            "it was interrupted"
            if self.interrupted
            else "it did not finish (killed, or still running)"
            if self.unfinished
            else None
        )
        parts = []
        if self.missing:
            named = self.items.missing if self.items else ()
            listed = f": {format_items(named)}" if named else ""
            of = f" of {self.expected}" if self.expected is not None else ""
            parts.append(f"{self.missing}{of} rows are missing ({why or 'rows are missing'})")
            parts[-1] += listed
        if self.items and self.items.duplicated:
            parts.append(
                f"{len(self.items.duplicated)} (model, case, sample) items have more than one "
                f"row: {format_items(self.items.duplicated)}"
            )
        if self.items and self.items.foreign:
            parts.append(
                f"{len(self.items.foreign)} rows are of a model, case or sample the run was not "
                f"asked for: {format_items(self.items.foreign)}"
            )
        if not parts:
            return f"the run is incomplete: {why}; it holds {self.rows} row(s)"
        return "the run is incomplete: " + "; ".join(parts)


def _suite_cases(run: LoadedRun) -> Sequence[Case] | None:
    """The cases of the run's suite file, when the file can still be read: a suite with a
    cases file gives them streamed (read again at each iteration, its count known)."""
    from harness.run._finish import suite_file

    path = suite_file(run.manifest, run.run_dir)
    if path is None:
        return None
    from harness.suite import load_suite

    try:
        return load_suite(path).cases
    except InputError:
        return None


def _suite_items(models: list[str], cases: Sequence[Case], samples: int) -> Iterator[Item]:
    """``expected_items`` over the suite's cases, read again for each model, none kept."""
    for model in models:
        for case in cases:
            for sample in range(samples):
                yield model, case.id, sample


def completeness(run: LoadedRun) -> Completeness:
    """How complete ``run`` is (see the module docstring)."""
    m = run.manifest
    models = [str(x["id"]) for x in m.models if x.get("id") is not None]
    samples = max(1, int(m.samples or 1))
    f = run.frame  # the rows' ids, without reading the rows back from results.jsonl
    keys = list(zip(f["model"].tolist(), f["case"].tolist(), f["sample"].tolist(), strict=True))
    common = dict(
        rows=len(run.rows),
        interrupted=bool(m.interrupted),
        unfinished=m.finished_at is None,
        shard=f"{m.shard['index']}/{m.shard['count']}" if m.shard else None,
        partial=dict(m.partial or {}),
    )
    if not models:
        return Completeness(expected=m.expected_rows, **common)  # type: ignore[arg-type]
    items: ItemCheck | None = None
    if m.case_ids:
        items = check_items(keys, expected_items(models, list(m.case_ids), samples))
    else:
        from_suite = _suite_cases(run)
        if from_suite is not None and (m.cases is None or len(from_suite) == m.cases):
            try:
                items = check_items(keys, _suite_items(models, from_suite, samples))
            except InputError:  # the cases file changed or broke since it was loaded
                items = None
    unnamed = 0
    if items is None:
        cases = list(dict.fromkeys(case for _, case, _ in keys))
        if m.cases is not None and m.cases > len(cases):
            unnamed = (m.cases - len(cases)) * len(models) * samples
        items = check_items(keys, expected_items(models, cases, samples))
    return Completeness(
        expected=items.expected + unnamed,
        items=items,
        unnamed_missing=unnamed,
        **common,  # type: ignore[arg-type]
    )


def require_complete(run: LoadedRun, *, what: str) -> None:
    """Raise ``IncompleteRunError`` unless ``run`` is complete.

    Args:
        run: the loaded run.
        what: the action refused, for the message (``"gate"``, ``"baseline"``).
    """
    state = completeness(run)
    if state.complete:
        return
    m = run.manifest
    if state.shard:
        count = m.shard["count"] if m.shard else "N"
        hint = (
            f"run every shard (--shard i/{count}), join them with `planeval merge SHARD-RUN...`, "
            f"then {what} the merged run"
        )
    elif state.partial:
        hint = f"run the missing shards or items, merge again without --allow-partial, then {what}"
    else:
        command = finish_command(m)
        hint = f"finish it with `{command}`, then {what} the new run"
        if state.items and (state.items.duplicated or state.items.foreign):
            hint = f"make a new run with `{command}`, then {what} it (rows were added by hand?)"
    raise IncompleteRunError(state, source=str(run.run_dir), hint=hint)
