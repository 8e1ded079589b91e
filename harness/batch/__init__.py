"""Provider batch APIs: a live run's calls sent as OpenAI Batches or Anthropic Message Batches.

Half the price of direct calls, answered within a day; planeval records every answer as an
ordinary recording, so replay, reports and gates cannot tell the difference (provenance can).
"""

from __future__ import annotations

from harness.batch._collect import BATCH_FILE, BatchFailure, batch_state, collect_batches
from harness.batch._vendors import BatchStatus, Outcome, poll, results, submit

__all__ = [
    "BATCH_FILE",
    "BatchFailure",
    "BatchStatus",
    "Outcome",
    "batch_state",
    "collect_batches",
    "poll",
    "results",
    "submit",
]
