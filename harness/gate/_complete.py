"""Refusing incomplete runs: a gate or a baseline on part of a suite would pass by accident.

A run is complete when it finished (run.json has ``finished_at`` and is not marked
``interrupted``) and holds one row per model x case x sample. Runs written before run.json
recorded the number of cases are checked against the suite file when it can be read, else
against the cases seen in the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness._errors import InputError, RunFormatError
from harness.report import LoadedRun
from harness.run import finish_command

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
    """How much of its suite a run holds."""

    rows: int
    """Rows in results.jsonl (a torn last line not included)."""
    expected: int | None
    """Rows a complete run holds (models x cases x samples), or None when unknown."""
    interrupted: bool
    """run.json says the run was stopped (Ctrl+C, SIGTERM)."""
    unfinished: bool
    """run.json has no ``finished_at``: the run was killed, or is still running."""

    @property
    def missing(self) -> int:
        """Rows short of a complete run (0 when the expected count is unknown)."""
        return 0 if self.expected is None else max(0, self.expected - self.rows)

    @property
    def complete(self) -> bool:
        """True when nothing says the run is partial."""
        return not (self.interrupted or self.unfinished or self.missing)

    def describe(self) -> str:
        """One sentence: why the run is incomplete."""
        why = (
            "it was interrupted"
            if self.interrupted
            else "it did not finish (killed, or still running)"
            if self.unfinished
            else "rows are missing"
        )
        if self.expected is None:
            return f"the run is incomplete: {why}; it holds {self.rows} row(s)"
        return f"the run is incomplete: {self.missing} of {self.expected} rows are missing ({why})"


def _suite_cases(run: LoadedRun) -> int | None:
    """The number of cases in the run's suite file, when the file can still be read."""
    m = run.manifest
    d = run.run_dir.resolve()
    if not m.suite_path or d.parent.name != "runs" or d.parent.parent.name != "reports":
        return None
    path = d.parent.parent.parent / m.suite_path
    if not path.is_file():
        return None
    from harness.suite import load_suite

    try:
        return len(load_suite(Path(path)).cases)
    except InputError:
        return None


def completeness(run: LoadedRun) -> Completeness:
    """How complete ``run`` is (see the module docstring)."""
    m = run.manifest
    expected = m.expected_rows
    if expected is None:
        cases = _suite_cases(run)
        seen = run.frame["case"].nunique()
        expected = len(m.models) * max(cases or 0, seen) * max(1, int(m.samples or 1))
        if not m.models:
            expected = None
    return Completeness(
        rows=len(run.rows),
        expected=expected,
        interrupted=bool(m.interrupted),
        unfinished=m.finished_at is None,
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
    command = finish_command(run.manifest)
    raise IncompleteRunError(
        state,
        source=str(run.run_dir),
        hint=f"finish it with `{command}`, then {what} the new run",
    )
