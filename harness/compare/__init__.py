"""Comparing two runs of one suite on their shared cases: flips with plan diffs, per-check
deltas and paired significance tests; text, markdown, JSON and HTML."""

from harness.compare._compare import (
    ALPHA,
    Comparison,
    Flip,
    IncomparableRunsError,
    PairedTest,
    compare_runs,
)
from harness.compare._flip_detail import FlipDetail, flip_details
from harness.compare._html import render_compare_html
from harness.compare._plan_diff import PlanDiff, diff_plans
from harness.compare._render import comparison_to_dict, render_markdown, render_text

__all__ = [
    "ALPHA",
    "Comparison",
    "Flip",
    "FlipDetail",
    "IncomparableRunsError",
    "PairedTest",
    "PlanDiff",
    "compare_runs",
    "comparison_to_dict",
    "diff_plans",
    "flip_details",
    "render_compare_html",
    "render_markdown",
    "render_text",
]
