"""Committed baselines, read: the file format and the per-case evidence of a new failure.

Below both ``harness.report`` (which ranks failing cases against a baseline) and
``harness.gate`` (whose rules judge a run against one, and which writes them).
"""

from harness.baseline._evidence import CASE_LEVEL, all_passed_p_value
from harness.baseline._file import (
    BASELINE_FORMAT,
    BASELINE_VERSION,
    BASELINES_DIR,
    Baseline,
    baseline_path,
    default_baseline_path,
    load_baseline,
    reports_folder,
)

__all__ = [
    "BASELINES_DIR",
    "BASELINE_FORMAT",
    "BASELINE_VERSION",
    "CASE_LEVEL",
    "Baseline",
    "all_passed_p_value",
    "baseline_path",
    "default_baseline_path",
    "load_baseline",
    "reports_folder",
]
