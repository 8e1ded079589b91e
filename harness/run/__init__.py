"""Runs: evaluating a suite over models and samples, and the records a run writes.

The records (``ResultRow``, ``RunManifest``, statuses) load at once; the evaluation machinery
(providers, suites, checks) loads on first use, so that reading a run (``planeval report``)
does not import the providers' SDK glue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness._lazy import lazy_attributes
from harness.run._failing import FailingCase, failing_cases
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
from harness.run._summary import ModelSummary, count_statuses, summarize

if TYPE_CHECKING:
    from harness.run._evaluate import (
        Pending,
        check_record_mode,
        evaluate_one,
        fixtures_root,
        prepare_one,
    )
    from harness.run._finish import RESUME_SUFFIX, Selection, finish_command
    from harness.run._limits import ProviderLimits, TokenBucket, limits_from_suite
    from harness.run._live import Budget, LiveControls, LiveStats, estimate_prompt_tokens
    from harness.run._merge import MergeResult, merge_runs
    from harness.run._runner import RunInterrupted, RunResult, live_record_mode, run_suite
    from harness.run._shard import Shard, parse_shard
    from harness.run._stop import StopRequest, stop_on_signals

_LAZY = {
    "_evaluate": ("Pending", "check_record_mode", "evaluate_one", "fixtures_root", "prepare_one"),
    "_finish": ("RESUME_SUFFIX", "Selection", "finish_command"),
    "_limits": ("ProviderLimits", "TokenBucket", "limits_from_suite"),
    "_live": ("Budget", "LiveControls", "LiveStats", "estimate_prompt_tokens"),
    "_merge": ("MergeResult", "merge_runs"),
    "_runner": ("RunInterrupted", "RunResult", "live_record_mode", "run_suite"),
    "_shard": ("Shard", "parse_shard"),
    "_stop": ("StopRequest", "stop_on_signals"),
}
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())

__all__ = [
    "ANSWER_LIMIT",
    "COUNTED_STATUSES",
    "FORMAT_VERSION",
    "PROMPTS_FILE",
    "RESUME_SUFFIX",
    "STATUSES",
    "Budget",
    "FailingCase",
    "LiveControls",
    "LiveStats",
    "MergeResult",
    "ModelSummary",
    "Pending",
    "ProviderLimits",
    "ResultRow",
    "RunInterrupted",
    "RunManifest",
    "RunResult",
    "Selection",
    "Shard",
    "Status",
    "StopRequest",
    "TokenBucket",
    "check_record_mode",
    "count_statuses",
    "estimate_prompt_tokens",
    "evaluate_one",
    "failing_cases",
    "finish_command",
    "fixtures_root",
    "limits_from_suite",
    "live_record_mode",
    "merge_runs",
    "parse_shard",
    "prepare_one",
    "run_suite",
    "stop_on_signals",
    "summarize",
]
