"""Runs: evaluating a suite over models and samples, and the records a run writes."""

from harness.run._records import (
    COUNTED_STATUSES,
    FORMAT_VERSION,
    STATUSES,
    ResultRow,
    RunManifest,
    Status,
)

__all__ = [
    "COUNTED_STATUSES",
    "FORMAT_VERSION",
    "STATUSES",
    "ResultRow",
    "RunManifest",
    "Status",
]
