"""The scheduler behind ``execute``: runs tasks in dependency order, journalling each step.

One scheduler thread (the caller's) owns the journal and all bookkeeping; each attempt runs in
a daemon thread of its own (reused once the attempt returns) and reports back through a queue
(``_attempts``); an ``inline_agent`` with no timeout runs in the scheduler's thread and reports
through the same queue. Bookkeeping is by counters and heaps, so the overhead per task is O(1)
amortised (O(log n) heap steps): a task becomes ready when its count of unfinished
prerequisites drops to zero; ready tasks wait in a heap by topological position (so with one
slot the order is the plan's topological order); retries and deadlines wait in heaps by time.
The scheduler sleeps on the queue until a result, the next deadline, or a stop (a
``StopSignal`` or ``interrupt`` wakes it at once).

Two attempts of one task never overlap: an attempt past its timeout is recorded as a
``Timeout`` failure and *abandoned* (``context.cancelled`` is set), but its retry waits until
it has returned; ``task_attempt_ended`` records when it really ended, unless it returned a
success, which is kept (``task_succeeded``, the retry cancelled). An abandoned attempt still
running a grace period after its timeout stops the execution, naming the task.
"""

from __future__ import annotations

import heapq
import queue
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.execute._attempts import WAKE, Attempt, AttemptRunner, Outcome, StopSignal
from harness.execute._context import Agent, TaskContext, agent_reads
from harness.execute._graph import TaskGraph
from harness.execute._lifecycle import finish, open_execution, record_interruption, result_of
from harness.execute._result import ExecutionResult, TaskFailure
from harness.execute._resume import ResumeDecision
from harness.execute._structure import inputs_digest, what_it_sees
from harness.journal import (
    EventNotSerializableError,
    JournalWriter,
    ReplayState,
    encode_body,
)
from harness.plan import Plan, Task

__all__ = ["EXHAUSTED", "EventHook", "Execution"]

EventHook = Callable[[str, dict[str, Any]], None]
EXHAUSTED = "AttemptsExhausted"
"""``error_type`` of a task whose attempts over all executions reached the total budget."""
_PLAIN_EVENT_POLL = 0.05
"""A plain ``threading.Event`` as ``stop`` cannot wake the scheduler: checked this often."""


class _Interrupted(Exception):
    def __init__(self, reason: str, stuck: Attempt | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stuck = stuck


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
        max_total_attempts: int,
        backoff: float,
        max_backoff: float,
        timeout: float | None,
        grace: float,
        stop: threading.Event,
        on_event: EventHook | None,
    ) -> None:
        self.plan = plan
        self.graph = graph
        self.path = path
        self._source = str(path)
        self.agent = agent
        self.decision = decision
        self.state = state
        self.max_concurrency = max_concurrency
        self.max_attempts = max_attempts
        self.max_total_attempts = max_total_attempts
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.grace = grace
        self.stop = stop
        self.on_event = on_event
        self.identity = plan.identity
        self.tasks = {t.id: t for t in plan.tasks}
        self.results: queue.SimpleQueue[Outcome] = queue.SimpleQueue()
        self.runner = AttemptRunner(self.results)
        self.reads = agent_reads(agent)
        """What the agent reads (``reads``): its successes are journalled with digests of it."""
        self._inline = getattr(agent, "inline", False) is True
        """The agent runs in this thread when a task has no timeout (see ``inline_agent``)."""
        self.outputs: dict[str, Any] = dict(decision.outputs)
        self.attempts: dict[str, int] = dict(decision.attempts)
        self.spent: dict[str, int] = dict(decision.spent)
        self.failed: dict[str, TaskFailure] = {}
        self.blocked: dict[str, str] = {}
        self.running: dict[str, Attempt] = {}
        self.abandoned: dict[str, Attempt] = {}
        self.by_token: dict[int, Attempt] = {}
        self.used: dict[str, int] = {}
        self.executed: dict[str, None] = {}
        self.halted = False
        self.reason: str | None = None
        self._tokens = 0
        order = graph.topological
        self._position = {tid: i for i, tid in enumerate(order)}
        self._order = order
        self._ready: list[int] = []  # heap of topological positions
        self._retries: list[tuple[float, int]] = []  # heap of (due time, position)
        self._retry_due: dict[str, float] = {}
        self._deferred: set[str] = set()  # due retries waiting for an abandoned attempt
        self._deadlines: list[tuple[float, int]] = []  # heap of (time, attempt token)
        self._waiting: dict[str, int] = {}
        self.hurry = False

    # -- journal -------------------------------------------------------------------------

    def emit(self, event: str, **payload: Any) -> None:
        self.writer.append_body(encode_body(event, payload, source=self._source))
        if self.on_event is not None:
            self.on_event(event, payload)

    def interrupt(self, reason: str) -> None:
        """Ask the scheduler to stop (signal handlers and other threads call this).

        A second call while the first waits for running attempts cuts that wait short.
        """
        if self.stop.is_set():
            self.hurry = True
        self.reason = self.reason or reason
        self.stop.set()
        self.results.put(WAKE)

    # -- the run -------------------------------------------------------------------------

    def go(self, *, resume: bool) -> ExecutionResult:
        began = time.monotonic()
        open_execution(self, resume)
        wake = self._wake
        if isinstance(self.stop, StopSignal):
            self.stop.listen(wake)
        stuck: Attempt | None = None
        try:
            if len(self.outputs) < len(self.tasks):
                self._prepare()
                self._loop()
            status = finish(self, began)
        except (_Interrupted, KeyboardInterrupt) as exc:
            reason = exc.reason if isinstance(exc, _Interrupted) else "KeyboardInterrupt"
            stuck = exc.stuck if isinstance(exc, _Interrupted) else None
            status = record_interruption(self, reason, stuck)
        finally:
            self.runner.close()
            if isinstance(self.stop, StopSignal):
                self.stop.forget(wake)
        return result_of(self, status, began, stuck)

    def _wake(self) -> None:
        self.results.put(WAKE)

    def _prepare(self) -> None:
        """Count each pending task's unfinished prerequisites; queue those with none."""
        outputs = self.outputs
        for tid in self._order:
            if tid in outputs:
                continue
            left = sum(1 for dep in self.graph.prerequisites[tid] if dep not in outputs)
            self._waiting[tid] = left
            if not left:
                self._ready.append(self._position[tid])
        heapq.heapify(self._ready)

    def _loop(self) -> None:
        plain_stop = not isinstance(self.stop, StopSignal)
        while True:
            if self.stop.is_set():
                raise _Interrupted(self.reason or "stop requested")
            now = time.monotonic()
            self._expire(now)
            self._release_retries(now)
            if not self.halted:
                self._start_ready(now)
            if not self.running and not self._retries and not self.abandoned:
                return
            horizon = self._horizon()
            if plain_stop:
                horizon = min(horizon, now + _PLAIN_EVENT_POLL)
            self._wait(max(horizon - now, 0.0) if horizon != float("inf") else None)

    def settled(self, task_id: str) -> bool:
        return task_id in self.outputs or task_id in self.failed or task_id in self.blocked

    def _start_ready(self, now: float) -> None:
        ready = self._ready
        while ready and len(self.running) < self.max_concurrency:
            task_id = self._order[heapq.heappop(ready)]
            if task_id in self.running or self.settled(task_id):
                continue
            if task_id in self.abandoned:  # never two attempts at once: wait for it
                self._deferred.add(task_id)
                continue
            self._start(self.tasks[task_id], now)

    def _release_retries(self, now: float) -> None:
        retries = self._retries
        while retries and retries[0][0] <= now:
            due, position = heapq.heappop(retries)
            task_id = self._order[position]
            if self._retry_due.get(task_id) == due:
                del self._retry_due[task_id]
                heapq.heappush(self._ready, position)

    def _horizon(self) -> float:
        """The next time something is due: a deadline, or a retry when a slot is free."""
        deadlines = self._deadlines
        while deadlines and deadlines[0][1] not in self.by_token:
            heapq.heappop(deadlines)  # that attempt has returned
        horizon = deadlines[0][0] if deadlines else float("inf")
        if self._retries and len(self.running) < self.max_concurrency and not self.halted:
            horizon = min(horizon, self._retries[0][0])
        return horizon

    def _start(self, task: Task, now: float) -> None:
        spent = self.spent.get(task.id, 0)
        if spent >= self.max_total_attempts:
            self._exhausted(task, spent)
            return
        number = self.attempts.get(task.id, 0) + 1
        self.attempts[task.id] = number
        self.spent[task.id] = spent + 1
        self.used[task.id] = self.used.get(task.id, 0) + 1
        self.executed.setdefault(task.id, None)
        limit = _task_timeout(task, self.timeout)
        self._tokens += 1
        attempt = Attempt(
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
        self.by_token[attempt.token] = attempt
        if attempt.deadline is not None:
            heapq.heappush(self._deadlines, (attempt.deadline, attempt.token))
        elif self._inline:
            self.runner.run_inline(self.agent, context, attempt.token)
            return
        self.runner.run(self.agent, context, attempt.token)

    def _exhausted(self, task: Task, spent: int) -> None:
        message = (
            f"{spent} attempts over all executions of this journal reached the total budget "
            f"(--max-total-attempts {self.max_total_attempts}); resume with --from {task.id} "
            "or --reset-attempts to try again"
        )
        attempt = Attempt(0, task, self.attempts.get(task.id, 0), 0.0, None, threading.Event())
        error = (message, EXHAUSTED, False)
        self._emit_failed(attempt, error, 0.0, final=True)
        self._fail_for_good(attempt, error)

    def _context(self, task: Task, attempt: Attempt, limit: float | None) -> TaskContext:
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

    def _wait(self, timeout: float | None) -> None:
        try:
            outcome = self.results.get(timeout=timeout)
        except queue.Empty:
            return
        self._handle(outcome)

    def _handle(self, outcome: Outcome) -> None:
        token, ok, value, duration = outcome
        attempt = self.by_token.pop(token, None)
        if attempt is None:
            return  # a wake-up
        task_id = attempt.task.id
        if attempt.abandoned_at is not None:
            self.abandoned_returned(attempt, ok, value, duration)
            return
        del self.running[task_id]
        if ok:
            self._succeeded(attempt, value, duration)
        else:
            self._attempt_failed(attempt, _describe(value), duration)

    def abandoned_returned(self, attempt: Attempt, ok: bool, value: Any, duration: float) -> None:
        """An abandoned attempt (past its timeout, or running at an interruption) returned.

        A success is kept when it is known: its output is journalled as ``task_succeeded``
        like any success and the task counts as done, so neither its pending retry nor a
        resume calls the agent again (the payment is not made twice). A failure, or an
        output that is not JSON, is journalled ``task_attempt_ended``: its retry goes ahead.
        """
        task_id = attempt.task.id
        if self.abandoned.get(task_id) is attempt:
            del self.abandoned[task_id]
        payload: dict[str, Any] = {
            "task_id": task_id,
            "attempt": attempt.number,
            "duration": round(duration, 6),
            "outcome": "succeeded" if ok else "failed",
            "after_abandoned": round(time.monotonic() - (attempt.abandoned_at or 0.0), 6),
        }
        if ok and task_id not in self.outputs:
            if self._keep_late_success(attempt, value, duration):
                return
            payload.update(outcome="failed", error_type="OutputNotSerializable")
        elif not ok:
            payload["error_type"] = _describe(value)[1]
        self.emit("task_attempt_ended", **payload)
        if task_id in self._deferred:
            self._deferred.discard(task_id)
            heapq.heappush(self._ready, self._position[task_id])

    def _keep_late_success(self, attempt: Attempt, output: Any, duration: float) -> bool:
        """Journal the success of an attempt abandoned at its timeout (``abandoned_returned``);
        False when its output is not JSON (nothing written).

        Its ``Timeout`` is already journalled: a retry waiting for this attempt is cancelled.
        When that timeout was the task's last attempt, the task had failed for good: it now
        counts as succeeded, and what that failure decided stays decided for this execution
        (dependents blocked, or already run without its output under ``on_failure:
        continue``); the resume restores the output and runs those dependents.
        """
        task = attempt.task
        payload = self._success_payload(attempt, output, duration)
        try:
            body = encode_body("task_succeeded", payload, source=self._source)
        except EventNotSerializableError:
            return False
        self._retry_due.pop(task.id, None)
        self._deferred.discard(task.id)
        failed_for_good = self.failed.pop(task.id, None) is not None
        self._record_success(task, body, payload, output, unlock=not failed_for_good)
        return True

    def kept_after_interruption(self, attempt: Attempt, output: Any, duration: float) -> None:
        """An attempt abandoned by an interruption returned a success within the grace
        period: journal it as succeeded, with its output, like any success."""
        if self.abandoned.get(attempt.task.id) is attempt:
            del self.abandoned[attempt.task.id]
        self._succeeded(attempt, output, duration)

    def _expire(self, now: float) -> None:
        deadlines = self._deadlines
        while deadlines and deadlines[0][0] <= now:
            _, token = heapq.heappop(deadlines)
            attempt = self.by_token.get(token)
            if attempt is None:
                continue
            if attempt.abandoned_at is not None:  # past its grace period and still running
                raise _Interrupted(
                    f"stuck: task {attempt.task.id!r} (attempt {attempt.number}) is still "
                    f"running {self.grace:g}s after it was abandoned at its timeout",
                    stuck=attempt,
                )
            self.abandon(attempt, now)
            limit = (attempt.deadline or now) - attempt.started
            error = (f"no result within the task timeout of {limit:g}s", "Timeout", True)
            self._attempt_failed(attempt, error, now - attempt.started)

    def abandon(self, attempt: Attempt, now: float) -> None:
        attempt.cancelled.set()
        attempt.abandoned_at = now
        attempt.stuck_at = now + self.grace
        del self.running[attempt.task.id]
        self.abandoned[attempt.task.id] = attempt
        heapq.heappush(self._deadlines, (attempt.stuck_at, attempt.token))

    def _succeeded(self, attempt: Attempt, output: Any, duration: float) -> None:
        task = attempt.task
        payload = self._success_payload(attempt, output, duration)
        try:
            body = encode_body("task_succeeded", payload, source=self._source)
        except EventNotSerializableError as exc:
            message = f"the agent's output is not JSON-serialisable at {exc.pointer}: {exc.what}"
            self._attempt_failed(attempt, (message, "OutputNotSerializable", False), duration)
            return
        self._record_success(task, body, payload, output, unlock=True)

    def _success_payload(self, attempt: Attempt, output: Any, duration: float) -> dict[str, Any]:
        task = attempt.task
        return {
            "task_id": task.id,
            "description": task.description,
            "attempt": attempt.number,
            "duration": round(duration, 6),
            "output": output,
            "sees": self.sees(task),
        }

    def _record_success(
        self, task: Task, body: bytes, payload: dict[str, Any], output: Any, *, unlock: bool
    ) -> None:
        self.writer.append_body(body)  # encoded once: the check before is the line written
        if self.on_event is not None:
            self.on_event("task_succeeded", payload)
        self.outputs[task.id] = output
        if unlock:
            self._unlock_dependents(task.id)

    def sees(self, task: Task) -> dict[str, str]:
        """What the task's agent saw (``what_it_sees``): its inputs are the outputs of its
        needs, fixed before it started."""
        inputs = {}
        failed = []
        for need in task.needs:
            inputs[need.name] = self.outputs.get(need.task)
            if need.task not in self.outputs:
                failed.append(need.name)
        return what_it_sees(task, self.plan.goal, self.reads, inputs_digest(inputs, failed))

    def _unlock_dependents(self, task_id: str) -> None:
        waiting = self._waiting
        for child in self.graph.dependents[task_id]:
            if child in waiting:
                waiting[child] -= 1
                if not waiting[child] and not self.settled(child):
                    heapq.heappush(self._ready, self._position[child])

    def _attempt_failed(
        self, attempt: Attempt, error: tuple[str, str, bool], duration: float
    ) -> None:
        task = attempt.task
        retryable = error[2]
        final = (
            not retryable
            or self.used[task.id] >= self.max_attempts
            or self.spent[task.id] >= self.max_total_attempts
            or self.halted
        )
        self._emit_failed(attempt, error, duration, final=final)
        if not final:
            due = time.monotonic() + self._delay(self.used[task.id])
            self._retry_due[task.id] = due
            heapq.heappush(self._retries, (due, self._position[task.id]))
            return
        self._fail_for_good(attempt, error)

    def _emit_failed(
        self, attempt: Attempt, error: tuple[str, str, bool], duration: float, *, final: bool
    ) -> None:
        message, error_type, retryable = error
        self.emit(
            "task_failed",
            task_id=attempt.task.id,
            description=attempt.task.description,
            attempt=attempt.number,
            duration=round(duration, 6),
            error=message,
            error_type=error_type,
            retryable=retryable,
            final=final,
        )

    def _fail_for_good(self, attempt: Attempt, error: tuple[str, str, bool]) -> None:
        """Record the task failed (its ``task_failed`` is journalled) and block or stop."""
        task = attempt.task
        message, error_type, retryable = error
        self.failed[task.id] = TaskFailure(message, error_type, retryable, attempt.number)
        if task.on_failure == "continue":
            self._unlock_dependents(task.id)
            return
        downstream = self.graph.downstream([task.id]) - {task.id}
        for child in sorted(downstream, key=self._position.__getitem__):
            if not self.settled(child):
                self.blocked[child] = task.id
                self._retry_due.pop(child, None)
                self.emit(
                    "task_blocked",
                    task_id=child,
                    description=self.tasks[child].description,
                    blocked_by=task.id,
                )
        if task.on_failure in (None, "stop"):
            self.halted = True
            self._retries.clear()
            self._retry_due.clear()

    def _delay(self, failures: int) -> float:
        if self.backoff <= 0:
            return 0.0
        base = min(self.max_backoff, self.backoff * 2.0 ** (failures - 1))
        return float(base * random.uniform(0.5, 1.0))  # equal jitter


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
