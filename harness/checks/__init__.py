"""Structural checks on plans."""

from harness.checks._report import CHECKS, CheckReport, Expectations, Severity, Violation

__all__ = ["CHECKS", "CheckReport", "Expectations", "Severity", "Violation"]
