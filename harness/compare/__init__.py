"""Comparing two runs of one suite: flips, per-check deltas and paired significance tests."""

from harness.compare._compare import (
    ALPHA,
    Comparison,
    Flip,
    IncomparableRunsError,
    PairedTest,
    compare_runs,
)
from harness.compare._render import comparison_to_dict, render_markdown, render_text

__all__ = [
    "ALPHA",
    "Comparison",
    "Flip",
    "IncomparableRunsError",
    "PairedTest",
    "compare_runs",
    "comparison_to_dict",
    "render_markdown",
    "render_text",
]
