"""Checking many plan files at once, keeping every result: the library side of ``check``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

from harness._errors import PlanLoadError
from harness._gc import gc_paused
from harness.checks._report import CheckReport, CheckVerdict, Expectations
from harness.checks._structural import check_plan
from harness.checks._taskbench_lane import RecordChecker
from harness.plan import MAX_PLAN_BYTES, Plan
from harness.plan._stream import iter_plan_entries
from harness.plan._taskbench_record import TaskBenchRecord
from harness.registry import Registry

__all__ = ["FileResult", "check_files", "iter_check_files", "iter_check_verdicts"]


@dataclass(frozen=True, slots=True)
class FileResult:
    """The outcome for one plan of one file: a report, or why the input was unusable."""

    path: str
    """The file path, or ``PATH#<id>`` for an item of a multi-plan file."""
    report: CheckReport | None
    """The check report, when the plan could be loaded."""
    error: str | None
    """One line saying why the input is unusable, else None."""

    @property
    def ok(self) -> bool:
        """True when the plan loaded and no error-severity check failed."""
        return self.report is not None and self.report.ok

    def to_dict(self) -> dict[str, Any]:
        """``{path, ok, task_count, violations}`` (+ ``error`` when unusable)."""
        if self.report is None:
            return {
                "path": self.path,
                "ok": False,
                "task_count": None,
                "violations": [],
                "error": self.error,
            }
        return {
            "path": self.path,
            "ok": self.report.ok,
            "task_count": self.report.task_count,
            "violations": [v.to_dict() for v in self.report.violations],
        }


def check_files(
    paths: Iterable[Path | str],
    *,
    registry: Registry | None = None,
    expect: Expectations | None = None,
    format: str = "auto",
    max_bytes: int = MAX_PLAN_BYTES,
) -> list[FileResult]:
    """Load and check every plan in every file; an unusable file never stops the others."""
    return list(
        iter_check_files(
            paths, registry=registry, expect=expect, format=format, max_bytes=max_bytes
        )
    )


def iter_check_files(
    paths: Iterable[Path | str],
    *,
    registry: Registry | None = None,
    expect: Expectations | None = None,
    format: str = "auto",
    max_bytes: int = MAX_PLAN_BYTES,
) -> Iterator[FileResult]:
    """``check_files``, one result at a time: a many-plan file (JSON Lines) is read, checked
    and given plan by plan, so memory does not grow with the file (``iter_plan_file``). A plain
    TaskBench line is checked on its graph of node positions, its plan built only when read
    or when that lane does not answer for it (``harness.checks._taskbench_lane``)."""
    return _checked(paths, registry, expect, format, max_bytes, verdicts=False)  # type: ignore[return-value]


def iter_check_verdicts(
    paths: Iterable[Path | str],
    *,
    registry: Registry | None = None,
    expect: Expectations | None = None,
    format: str = "auto",
    max_bytes: int = MAX_PLAN_BYTES,
) -> Iterator[tuple[str, CheckVerdict | str]]:
    """``iter_check_files`` for printing: each plan's label with its ``CheckVerdict``, or with
    the one line saying why it is unusable. No report or plan is made for a plain TaskBench
    line, and records of one graph share one verdict (``RecordChecker``)."""
    return _checked(paths, registry, expect, format, max_bytes, verdicts=True)  # type: ignore[return-value]


def _checked(
    paths: Iterable[Path | str],
    registry: Registry | None,
    expect: Expectations | None,
    format: str,
    max_bytes: int,
    *,
    verdicts: bool,
) -> Iterator[FileResult | tuple[str, CheckVerdict | str]]:
    """The one loop of ``iter_check_files`` (``verdicts`` False) and ``iter_check_verdicts``."""
    expect = expect or Expectations()
    checker = RecordChecker(expect)
    for path in paths:
        entries = iter_plan_entries(path, format=format, max_bytes=max_bytes)
        try:
            first = next(entries, None)
        except PlanLoadError as exc:
            error = _without_source(exc, str(path))
            yield (str(path), error) if verdicts else FileResult(str(path), None, error)
            continue
        if first is None:
            continue
        # A multi-plan file builds many small acyclic objects: the cyclic collector would
        # only rescan them (see harness._gc).
        with gc_paused():
            for label, entry in chain((first,), entries):
                plan: Plan
                if isinstance(entry, TaskBenchRecord):
                    if registry is None:  # a plain TaskBench line: checked on its graph
                        if verdicts:
                            verdict = checker.verdict(entry)
                            if verdict is not None:
                                yield label, verdict
                                continue
                        else:
                            report = checker.report(entry)
                            if report is not None:
                                yield FileResult(label, report, None)
                                continue
                    plan = entry.plan()
                elif isinstance(entry, PlanLoadError):
                    error = _without_source(entry, label)
                    yield (label, error) if verdicts else FileResult(label, None, error)
                    continue
                else:
                    plan = entry
                full = check_plan(plan, registry=registry, expect=expect)
                yield (label, CheckVerdict.of(full)) if verdicts else FileResult(label, full, None)


def _without_source(exc: PlanLoadError, label: str) -> str:
    """The error line without a leading source that repeats the label it is printed under."""
    line = exc.one_line()
    prefix = f"{label}: "
    return line[len(prefix) :] if line.startswith(prefix) else line
