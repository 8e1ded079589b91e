"""The scheduler behind ``execute``: runs tasks in dependency order, journalling each step.

One scheduler thread (the caller's) owns the journal and all bookkeeping; each attempt runs
in its own daemon thread and reports back through a queue. That keeps journal order simple
and lets the scheduler enforce per-task timeouts itself: an attempt past its deadline is
recorded as a ``Timeout`` failure and abandoned (its late result is ignored, its
``context.cancelled`` event is set so a cooperative agent can stop).
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.execute._context import Agent, TaskContext
from harness.execute._graph import TaskGraph
from harness.execute._result import ExecutionResult, ExecutionStatus, TaskFailure
from harness.execute._resume import ResumeDecision
from harness.journal import (
    JOURNAL_VERSION,
    EventNotSerializableError,
    JournalWriter,
    ReplayState,
    encode_event,
)
from harness.plan import Plan, Task

__all__ = ["EventHook", "Execution"]

EventHook = Callable[[str, dict[str, Any]], None]
_POLL = 0.01
"""Longest the scheduler sleeps without a result: how soon it notices a ``stop`` event set
from outside (``interrupt()`` wakes it at once). 100 wake-ups a second cost nothing visible."""


@dataclass(slots=True)
class _Attempt:
    token: int
    task: Task
    number: int
    started: float
    deadline: float | None
    cancelled: threading.Event


class _Interrupted(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Execution:
    """One execution of a plan into a journal (``execute`` builds it and calls ``go``)."""

    writer: JournalWriter

    def __init__(
        self,
        *,
        plan: Plan,
        graph: TaskGraph,
        path: Path,
        agent: Agent,
        decision: ResumeDecision,
        state: ReplayState | None,
        max_concurrency: int,
        max_attempts: int,
        backoff: float,
        max_backoff: float,
        timeout: float | None,
        stop: threading.Event,
        on_event: EventHook | None,
    ) -> None:
        self.plan = plan
        self.graph = graph
        self.path = path
        self.agent = agent
        self.decision = decision
        self.state = state
        self.max_concurrency = max_concurrency
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.stop = stop
        self.on_event = on_event
        self.identity = plan.identity
        self.tasks = {t.id: t for t in plan.tasks}
        self.results: queue.Queue[tuple[int, bool, Any, float]] = queue.Queue()
        self.outputs: dict[str, Any] = dict(decision.outputs)
        self.attempts: dict[str, int] = dict(decision.attempts)
        self.failed: dict[str, TaskFailure] = {}
        self.blocked: dict[str, str] = {}
        self.running: dict[str, _Attempt] = {}
        self.retry_at: dict[str, float] = {}
        self.used: dict[str, int] = {}
        self.executed: dict[str, None] = {}
        self.halted = False
        self.reason: str | None = None
        self._tokens = 0

    # -- journal -------------------------------------------------------------------------

    def emit(self, event: str, **payload: Any) -> None:
        self.writer.append(event, **payload)
        if self.on_event is not None:
            self.on_event(event, payload)

    def interrupt(self, reason: str) -> None:
        """Ask the scheduler to stop (signal handlers and other threads call this)."""
        self.reason = self.reason or reason
        self.stop.set()
        self.results.put((-1, False, None, 0.0))  # wake the scheduler now

    # -- the run -------------------------------------------------------------------------

    def go(self, *, resume: bool) -> ExecutionResult:
        began = time.monotonic()
        self._open(resume)
        try:
            if len(self.outputs) < len(self.tasks):
                self._loop()
            status = self._finish(began)
        except (_Interrupted, KeyboardInterrupt) as exc:
            reason = exc.reason if isinstance(exc, _Interrupted) else "KeyboardInterrupt"
            status = self._interrupted(reason)
        return self._result(status, began)

    def _open(self, resume: bool) -> None:
        d = self.decision
        common = {
            "plan_id": self.identity,
            "plan_hash": self.plan.content_hash,
            "journal_version": JOURNAL_VERSION,
        }
        if not resume or self.state is None:
            self.emit("plan_started", **common, goal=self.plan.goal, tasks=len(self.tasks))
            if not resume:
                return
        payload: dict[str, Any] = {
            **common,
            "from": d.from_task,
            "restored": list(d.restored),
            "forced": d.forced,
        }
        if d.matched_by_description:
            payload["matched_by_description"] = d.matched_by_description
        if d.forced and self.state is not None:
            payload["previous_plan_id"] = self.state.plan_id
        if self.state is not None and self.state.damage:
            payload["damaged_lines"] = [x.line for x in self.state.damage]
        self.emit("plan_resumed", **payload)

    def _loop(self) -> None:
        pending = [tid for tid in self.graph.topological if tid not in self.outputs]
        while True:
            if self.stop.is_set():
                raise _Interrupted(self.reason or "stop requested")
            now = time.monotonic()
            self._expire(now)
            if not self.halted:
                self._start_ready(pending, now)
            if not self.running and not self.retry_at:
                return
            self._wait(now)

    def _start_ready(self, pending: list[str], now: float) -> None:
        for task_id in pending:
            if len(self.running) >= self.max_concurrency:
                return
            if task_id in self.running or self._settled(task_id):
                continue
            ready_at = self.retry_at.get(task_id)
            if ready_at is not None and ready_at > now:
                continue
            if not all(self._usable(dep) for dep in self.graph.prerequisites[task_id]):
                continue
            self.retry_at.pop(task_id, None)
            self._start(self.tasks[task_id], now)

    def _settled(self, task_id: str) -> bool:
        return task_id in self.outputs or task_id in self.failed or task_id in self.blocked

    def _usable(self, dep: str) -> bool:
        if dep in self.outputs:
            return True
        return dep in self.failed and self.tasks[dep].on_failure == "continue"

    def _start(self, task: Task, now: float) -> None:
        number = self.attempts.get(task.id, 0) + 1
        self.attempts[task.id] = number
        self.used[task.id] = self.used.get(task.id, 0) + 1
        self.executed.setdefault(task.id, None)
        limit = _task_timeout(task, self.timeout)
        self._tokens += 1
        attempt = _Attempt(
            token=self._tokens,
            task=task,
            number=number,
            started=now,
            deadline=now + limit if limit is not None else None,
            cancelled=threading.Event(),
        )
        context = self._context(task, attempt, limit)
        self.emit(
            "task_started",
            task_id=task.id,
            description=task.description,
            attempt=number,
            idempotency_key=context.idempotency_key,
        )
        self.running[task.id] = attempt
        worker = threading.Thread(
            target=self._work,
            args=(attempt.token, context),
            name=f"planeval-task-{task.id}",
            daemon=True,
        )
        worker.start()

    def _context(self, task: Task, attempt: _Attempt, limit: float | None) -> TaskContext:
        inputs: dict[str, Any] = {}
        failed_inputs: dict[str, dict[str, Any]] = {}
        for need in task.needs:
            if need.task in self.outputs:
                inputs[need.name] = self.outputs[need.task]
            else:
                inputs[need.name] = None
                failed_inputs[need.name] = {"task": need.task, **_brief(self.failed[need.task])}
        upstream = {
            dep: _brief(self.failed[dep])
            for dep in self.graph.prerequisites[task.id]
            if dep in self.failed
        }
        return TaskContext(
            task=task,
            inputs=inputs,
            attempt=attempt.number,
            idempotency_key=f"{self.identity}:{task.id}",
            plan=self.plan,
            failed_inputs=failed_inputs,
            upstream_failures=upstream,
            cancelled=attempt.cancelled,
            timeout=limit,
        )

    def _work(self, token: int, context: TaskContext) -> None:
        began = time.monotonic()
        try:
            output = self.agent(context)
        except BaseException as exc:
            self.results.put((token, False, exc, time.monotonic() - began))
        else:
            self.results.put((token, True, output, time.monotonic() - began))

    def _wait(self, now: float) -> None:
        horizon = [a.deadline for a in self.running.values() if a.deadline is not None]
        if len(self.running) < self.max_concurrency:  # a due retry can only start in a free slot
            horizon += [t for tid, t in self.retry_at.items() if tid not in self.running]
        wait = min([*(h - now for h in horizon), _POLL])
        try:
            token, ok, value, duration = self.results.get(timeout=max(wait, 0.001))
        except queue.Empty:
            return
        if token < 0:
            return
        attempt = next((a for a in self.running.values() if a.token == token), None)
        if attempt is None:
            return  # an abandoned attempt (timed out or interrupted) finished late
        del self.running[attempt.task.id]
        if ok:
            self._succeeded(attempt, value, duration)
        else:
            self._attempt_failed(attempt, _describe(value), duration)

    def _expire(self, now: float) -> None:
        for attempt in list(self.running.values()):
            if attempt.deadline is not None and now >= attempt.deadline:
                attempt.cancelled.set()
                del self.running[attempt.task.id]
                limit = attempt.deadline - attempt.started
                error = (f"no result within the task timeout of {limit:g}s", "Timeout", True)
                self._attempt_failed(attempt, error, now - attempt.started)

    def _succeeded(self, attempt: _Attempt, output: Any, duration: float) -> None:
        task = attempt.task
        payload = {
            "task_id": task.id,
            "description": task.description,
            "attempt": attempt.number,
            "duration": round(duration, 6),
            "output": output,
        }
        try:
            encode_event("task_succeeded", payload, source=str(self.path))
        except EventNotSerializableError as exc:
            message = f"the agent's output is not JSON-serialisable at {exc.pointer}: {exc.what}"
            self._attempt_failed(attempt, (message, "OutputNotSerializable", False), duration)
            return
        self.emit("task_succeeded", **payload)
        self.outputs[task.id] = output

    def _attempt_failed(
        self, attempt: _Attempt, error: tuple[str, str, bool], duration: float
    ) -> None:
        task = attempt.task
        message, error_type, retryable = error
        final = not retryable or self.used[task.id] >= self.max_attempts or self.halted
        self.emit(
            "task_failed",
            task_id=task.id,
            description=task.description,
            attempt=attempt.number,
            duration=round(duration, 6),
            error=message,
            error_type=error_type,
            retryable=retryable,
            final=final,
        )
        if not final:
            self.retry_at[task.id] = time.monotonic() + self._delay(self.used[task.id])
            return
        self.failed[task.id] = TaskFailure(message, error_type, retryable, attempt.number)
        if task.on_failure == "continue":
            return
        downstream = self.graph.downstream([task.id]) - {task.id}
        for child in self.graph.topological:
            if child in downstream and not self._settled(child):
                self.blocked[child] = task.id
                self.retry_at.pop(child, None)
                self.emit(
                    "task_blocked",
                    task_id=child,
                    description=self.tasks[child].description,
                    blocked_by=task.id,
                )
        if task.on_failure in (None, "stop"):
            self.halted = True
            self.retry_at.clear()

    def _delay(self, failures: int) -> float:
        if self.backoff <= 0:
            return 0.0
        base = min(self.max_backoff, self.backoff * 2.0 ** (failures - 1))
        return float(base * random.uniform(0.5, 1.0))  # equal jitter

    def _finish(self, began: float) -> ExecutionStatus:
        status: ExecutionStatus = "completed" if len(self.outputs) == len(self.tasks) else "failed"
        self.emit(
            "plan_completed",
            plan_id=self.identity,
            status=status,
            execution_time=round(time.monotonic() - began, 6),
            executed=len(self.executed),
            failed=list(self.failed),
            blocked=list(self.blocked),
        )
        return status

    def _interrupted(self, reason: str) -> ExecutionStatus:
        running = list(self.running)
        for attempt in self.running.values():
            attempt.cancelled.set()
        self.running.clear()
        self.emit("plan_interrupted", plan_id=self.identity, reason=reason, running=running)
        return "interrupted"

    def _result(self, status: ExecutionStatus, began: float) -> ExecutionResult:
        order = self.plan.task_ids
        return ExecutionResult(
            status=status,
            journal=str(self.path),
            plan_id=self.identity,
            outputs={tid: self.outputs[tid] for tid in order if tid in self.outputs},
            executed=tuple(self.executed),
            restored=self.decision.restored,
            failed=dict(self.failed),
            blocked=dict(self.blocked),
            not_started=tuple(t for t in order if not self._settled(t)),
            attempts=dict(self.attempts),
            damage=self.state.damage if self.state is not None else (),
            duration=time.monotonic() - began,
        )


def _task_timeout(task: Task, default: float | None) -> float | None:
    own = task.extra.get("timeout")
    if isinstance(own, int | float) and not isinstance(own, bool) and own > 0:
        return float(own)
    return default


def _describe(exc: BaseException) -> tuple[str, str, bool]:
    """(message, error_type, retryable) for an exception an agent raised."""
    retryable = getattr(exc, "retryable", True)
    error_type = getattr(exc, "error_type", None) or type(exc).__name__
    message = str(exc) or type(exc).__name__
    return message, str(error_type), retryable if isinstance(retryable, bool) else True


def _brief(failure: TaskFailure) -> dict[str, Any]:
    return {"error": failure.error, "error_type": failure.error_type}
