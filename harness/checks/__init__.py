"""Structural checks on plans."""

from harness.checks._report import (
    CHECKS,
    CheckReport,
    CheckVerdict,
    Expectations,
    Severity,
    Violation,
)
from harness.checks._run_files import (
    FileResult,
    check_files,
    iter_check_files,
    iter_check_verdicts,
)
from harness.checks._structural import check_plan

__all__ = [
    "CHECKS",
    "CheckReport",
    "CheckVerdict",
    "Expectations",
    "FileResult",
    "Severity",
    "Violation",
    "check_files",
    "check_plan",
    "iter_check_files",
    "iter_check_verdicts",
]
