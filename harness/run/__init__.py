"""Runs: evaluating a suite over models and samples, and the records a run writes."""

from harness.run._evaluate import (
    Pending,
    check_record_mode,
    evaluate_one,
    fixtures_root,
    prepare_one,
)
from harness.run._failing import FailingCase, failing_cases
from harness.run._finish import RESUME_SUFFIX, finish_command
from harness.run._records import (
    ANSWER_LIMIT,
    COUNTED_STATUSES,
    FORMAT_VERSION,
    PROMPTS_FILE,
    STATUSES,
    ResultRow,
    RunManifest,
    Status,
)
from harness.run._runner import RunInterrupted, RunResult, live_record_mode, run_suite
from harness.run._stop import StopRequest, stop_on_signals
from harness.run._summary import ModelSummary, count_statuses, summarize

__all__ = [
    "ANSWER_LIMIT",
    "COUNTED_STATUSES",
    "FORMAT_VERSION",
    "PROMPTS_FILE",
    "RESUME_SUFFIX",
    "STATUSES",
    "FailingCase",
    "ModelSummary",
    "Pending",
    "ResultRow",
    "RunInterrupted",
    "RunManifest",
    "RunResult",
    "Status",
    "StopRequest",
    "check_record_mode",
    "count_statuses",
    "evaluate_one",
    "failing_cases",
    "finish_command",
    "fixtures_root",
    "live_record_mode",
    "prepare_one",
    "run_suite",
    "stop_on_signals",
    "summarize",
]
