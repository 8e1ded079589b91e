"""Hand-written example agent: the demo agent, failing where FLAKY_TASK says.

    FLAKY_TASK=issue_refund planeval execute examples/execute/refund.plan.json \
        --journal /tmp/refund.jsonl --agent examples/execute/flaky_agent.py:agent
    planeval execute examples/execute/refund.plan.json --journal /tmp/refund.jsonl --resume
"""

from __future__ import annotations

import os
from typing import Any

from harness.execute import TaskContext, TaskError, demo_agent


def agent(context: TaskContext) -> Any:
    """Fail every attempt of the task named in FLAKY_TASK; behave like demo_agent otherwise."""
    if context.task.id == os.environ.get("FLAKY_TASK"):
        raise TaskError(f"{context.task.id} is down (attempt {context.attempt})")
    return demo_agent(context)
