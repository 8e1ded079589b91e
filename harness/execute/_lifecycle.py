"""The journal events that open and close an execution, and the result it returns."""

from __future__ import annotations

import queue
import time
from typing import TYPE_CHECKING, Any

from harness.execute._attempts import Attempt
from harness.execute._result import ExecutionResult, ExecutionStatus
from harness.journal import JOURNAL_VERSION

if TYPE_CHECKING:
    from harness.execute._scheduler import Execution

__all__ = ["finish", "open_execution", "record_interruption", "result_of"]


def open_execution(run: Execution, resume: bool) -> None:
    """Journal ``plan_started`` (new journal) and/or ``plan_resumed`` (with the decision)."""
    d = run.decision
    common = {
        "plan_id": run.identity,
        "plan_hash": run.plan.content_hash,
        "journal_version": JOURNAL_VERSION,
        "structure": d.structure,
    }
    if not resume or run.state is None:
        run.emit("plan_started", **common, goal=run.plan.goal, tasks=len(run.tasks))
        if not resume:
            return
    payload: dict[str, Any] = {
        **common,
        "from": d.from_task,
        "restored": list(d.restored),
        "forced": d.forced,
    }
    if d.reset_attempts:
        payload["reset_attempts"] = list(d.reset_attempts)
    if d.matched_by_description:
        payload["matched_by_description"] = d.matched_by_description
    if d.forced and run.state is not None:
        payload["previous_plan_id"] = run.state.plan_id
        if d.changed:
            payload["changed"] = d.changed
    if run.state is not None and run.state.damage:
        payload["damaged_lines"] = [x.line for x in run.state.damage]
    if d.in_doubt:
        payload["in_doubt"] = list(d.in_doubt)
    if d.reasons:
        payload["invalidated"] = d.reasons
    if d.accepted:
        payload["accepted"] = d.accepted
    run.emit("plan_resumed", **payload)


def finish(run: Execution, began: float) -> ExecutionStatus:
    """Journal ``plan_completed``; the status is completed when every task succeeded."""
    status: ExecutionStatus = "completed" if len(run.outputs) == len(run.tasks) else "failed"
    run.emit(
        "plan_completed",
        plan_id=run.identity,
        status=status,
        execution_time=round(time.monotonic() - began, 6),
        executed=len(run.executed),
        failed=list(run.failed),
        blocked=list(run.blocked),
    )
    return status


def record_interruption(run: Execution, reason: str, stuck: Attempt | None) -> ExecutionStatus:
    """Cancel what runs, wait up to the grace period for it, journal ``plan_interrupted``.

    An attempt that was running at the interruption and returns a success within the grace
    period is journalled as succeeded, with its output: the work is done (a payment made, an
    email sent), so the resume restores it instead of calling the agent again.
    """
    running = list(run.running)
    interrupted = {attempt.token for attempt in run.running.values()}
    now = time.monotonic()
    for attempt in list(run.running.values()):
        run.abandon(attempt, now)
    end = now + (0.0 if stuck is not None else run.grace)
    while run.abandoned and stuck is None and not run.hurry:
        left = end - time.monotonic()
        if left <= 0:
            break
        try:
            outcome = run.results.get(timeout=left)
        except queue.Empty:
            break
        token = outcome[0]
        returned = run.by_token.pop(token, None)
        if returned is None:
            continue  # a wake-up
        if outcome[1] and token in interrupted:
            run.kept_after_interruption(returned, outcome[2], outcome[3])
        else:
            run.abandoned_returned(returned, outcome[1], outcome[2], outcome[3])
    payload: dict[str, Any] = {"plan_id": run.identity, "reason": reason, "running": running}
    if run.abandoned:
        payload["still_running"] = [
            {"task_id": a.task.id, "attempt": a.number} for a in run.abandoned.values()
        ]
    run.emit("plan_interrupted", **payload)
    return "failed" if stuck is not None else "interrupted"


def result_of(
    run: Execution, status: ExecutionStatus, began: float, stuck: Attempt | None
) -> ExecutionResult:
    order = run.plan.task_ids
    return ExecutionResult(
        status=status,
        journal=str(run.path),
        plan_id=run.identity,
        outputs={tid: run.outputs[tid] for tid in order if tid in run.outputs},
        executed=tuple(run.executed),
        restored=run.decision.restored,
        failed=dict(run.failed),
        blocked=dict(run.blocked),
        not_started=tuple(t for t in order if not run.settled(t)),
        attempts=dict(run.attempts),
        damage=run.state.damage if run.state is not None else (),
        duration=time.monotonic() - began,
        stuck=stuck.task.id if stuck is not None else None,
    )
