"""What a live run keeps an eye on while it calls planners: budgets, rate limits, running totals.

Every live call goes through ``LiveControls``: ``admit`` before it starts (the budget may refuse
it), ``pace`` before each attempt (the provider's token buckets), ``settle`` when it is over
(the real usage and cost replace the reservation).

Budget semantics (a promise, not an estimate): each call reserves its worst case before it
starts, ``worst_case_tokens``: every byte of the request body (messages, the response schema,
tools) counted as one input token (byte-level BPE tokenizers never make a token of less than
one byte) plus a fixed overhead per request and for tools, and the call's ``max_tokens`` of
output (reasoning included), at the model's highest input rate. A call is admitted only while
``spent + reserved + worst case <= max_cost``; when it does not fit but calls are in flight, it
waits for them to settle (a settled call returns the unused part of its reservation), and it is
refused only when nothing is in flight. Once one call is refused, every later one is too. An
attempt whose outcome is unknown (a client timeout, a dropped connection, a body that is not
JSON) may have been billed: it is charged its whole reservation, a retry after it reserves
another worst case, and the run's cost is then an upper bound (run.json ``budget.uncertain``).
A ``Budget`` object is one budget: every ``run_suite`` given the same object shares it (a
folder of suites under one ``--max-cost``); ``shards`` splits it evenly over shard processes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._errors import InputError
from harness.cost import Price, call_cost, usage_from_body
from harness.recording import CassetteMiss
from harness.run._limits import ProviderLimits
from harness.suite import ModelSpec

__all__ = [
    "REQUEST_OVERHEAD_TOKENS",
    "TOOLS_OVERHEAD_TOKENS",
    "Budget",
    "BudgetLedger",
    "LiveControls",
    "LiveStats",
    "Ticket",
    "estimate_prompt_tokens",
    "mean_recorded_output",
    "output_cap",
    "worst_case_tokens",
]

REQUEST_OVERHEAD_TOKENS = 64
"""Tokens a request may cost beyond its body's bytes (role markers, message framing)."""
TOOLS_OVERHEAD_TOKENS = 512
"""Tokens a request with tools or a response schema may cost beyond its bytes (Anthropic
documents a tool-use system prompt of up to 346 tokens; OpenAI wraps a response schema)."""


def output_cap(body: Mapping[str, Any]) -> int | None:
    """The request's cap on output tokens (reasoning included): ``max_tokens`` or
    ``max_completion_tokens``; None when it has none."""
    for name in ("max_completion_tokens", "max_tokens"):
        value = body.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def worst_case_tokens(body: Mapping[str, Any]) -> tuple[int, int | None]:
    """(input, output) tokens a request can be billed at most: its JSON body's UTF-8 bytes
    plus the overheads, and its output cap (None: unbounded)."""
    size = len(json.dumps(body, ensure_ascii=False).encode("utf-8"))
    extra = REQUEST_OVERHEAD_TOKENS
    if body.get("tools") or body.get("response_format"):
        extra += TOOLS_OVERHEAD_TOKENS
    return size + extra, output_cap(body)


def estimate_prompt_tokens(text: str) -> int:
    """About one token per four characters (no tokenizer needed; right within ~25% for
    English prose and JSON)."""
    return max(1, (len(text) + 3) // 4)


@dataclass(slots=True)
class BudgetLedger:
    """What one budget has spent and holds (shared by every run given the same ``Budget``)."""

    spent: float = 0.0
    """USD settled: reported usage, or the reservation of calls whose outcome is unknown."""
    reserved: float = 0.0
    """USD held by calls in flight (their worst case)."""
    started: int = 0
    """Calls admitted."""
    in_flight: int = 0
    uncertain: int = 0
    """Attempts whose outcome is unknown, charged their worst case: ``spent`` is an upper
    bound when this is not 0."""
    stopped: str | None = None
    """Why the budget refused a call (one line), once it has."""
    condition: threading.Condition = field(default_factory=threading.Condition)


@dataclass(frozen=True, slots=True)
class Budget:
    """Caps on a live command: one budget for every run it is given to."""

    max_cost: float | None = None
    """USD; no call starts whose worst case would pass it."""
    max_calls: int | None = None
    """Planner calls (samples sent to a planner; retries are not extra calls)."""
    shards: int = 1
    """The caps are split evenly over this many shard processes (``--shard i/n``)."""
    ledger: BudgetLedger = field(default_factory=BudgetLedger, compare=False, repr=False)
    """What has been spent against it so far."""

    @property
    def cost_cap(self) -> float | None:
        """USD this process may spend: ``max_cost / shards``."""
        return None if self.max_cost is None else self.max_cost / self.shards

    @property
    def calls_cap(self) -> int | None:
        """Calls this process may start: ``max_calls // shards``."""
        return None if self.max_calls is None else self.max_calls // self.shards

    def describe(self) -> dict[str, float | int | None]:
        """As run.json records it (the caps as given, and this process's share)."""
        out: dict[str, float | int | None] = {
            "max_cost": self.max_cost,
            "max_calls": self.max_calls,
        }
        if self.shards > 1:
            out.update(shards=self.shards, shard_max_cost=self.cost_cap)
            out["shard_max_calls"] = self.calls_cap
        ledger = self.ledger
        out["spent"] = round(ledger.spent, 6)
        out["uncertain"] = ledger.uncertain
        return out


@dataclass(slots=True)
class LiveStats:
    """Running totals for the progress display (read without a lock: a display may lag)."""

    started: int = 0
    in_flight: int = 0
    done: int = 0
    failed: int = 0
    refused: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    unpriced: int = 0
    """Finished calls whose cost is unknown (no price, or no usage reported)."""
    uncertain: int = 0
    """Attempts whose outcome is unknown (timeouts, dropped connections): charged their
    worst case, so the cost shown is an upper bound."""


@dataclass(slots=True)
class Ticket:
    """An admitted call: what it was estimated to cost, and what it holds of the budget."""

    model: ModelSpec
    raw_input: int
    """The prompt's characters / 4."""
    estimated_input: int
    estimated_output: int
    estimated_cost: float
    worst_cost: float = 0.0
    """USD one attempt can be billed at most (what each reservation holds)."""
    units: int = 1
    """Worst-case reservations held (one, plus one per retry after an unknown outcome)."""
    unknown: int = 0
    """Attempts whose outcome is unknown (each charged ``worst_cost``)."""


@dataclass(slots=True)
class _ModelHistory:
    input_ratio_sum: float = 0.0
    output_sum: int = 0
    calls: int = 0


@dataclass
class LiveControls:
    """Budget, rate limits and running totals shared by a live run's workers."""

    budget: Budget = field(default_factory=Budget)
    limits: Mapping[str, ProviderLimits] = field(default_factory=dict)
    prices: Mapping[str, Price | None] = field(default_factory=dict)
    recorded_output: Mapping[str, float] = field(default_factory=dict)
    """Mean output tokens of each model's existing recordings (model id -> tokens)."""
    stats: LiveStats = field(default_factory=LiveStats)
    cancelled: Callable[[], bool] = lambda: False
    """True once the run is stopping: a call waiting for budget room gives up."""
    _history: dict[str, _ModelHistory] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def stopped(self) -> str | None:
        """Why the budget stopped calls (one line), once it has."""
        return self.budget.ledger.stopped

    # -- before a call ------------------------------------------------------------------------
    def admit(
        self,
        model: ModelSpec,
        prompt: str,
        body: Mapping[str, Any] | None = None,
        *,
        wait: bool = True,
    ) -> Ticket | str:
        """Reserve a call of ``model`` for ``prompt`` (its request ``body`` when it is an HTTP
        call), or say (one line) why the budget refuses it. With ``wait``, waits while the
        call's worst case does not fit but calls in flight may still give part of theirs
        back."""
        ticket = self._ticket(model, prompt, body)
        worst = ticket.worst_cost
        ledger = self.budget.ledger
        with ledger.condition:
            while True:
                refusal = ledger.stopped or self._refusal(worst)
                if refusal is None:
                    break
                waiting = wait and not ledger.stopped and ledger.in_flight
                if waiting and "--max-cost" in refusal:
                    if self.cancelled():
                        return "not called: the run was stopped"
                    ledger.condition.wait(0.1)  # a settling call may make room
                    continue
                ledger.stopped = refusal
                self.stats.refused += 1
                return refusal
            self._reserve(worst)
        return ticket

    def hold(self, model: ModelSpec, prompt: str, body: Mapping[str, Any]) -> Ticket:
        """Reserve a call that was sent already (a request of a batch this process resumes) at
        its worst case, never refused: its cost is committed, and calls admitted after it
        must fit beside it. Settle it like an admitted call."""
        ticket = self._ticket(model, prompt, body)
        worst = ticket.worst_cost
        ledger = self.budget.ledger
        with ledger.condition:
            self._reserve(worst)
        return ticket

    def _reserve(self, worst: float) -> None:
        """Count a started call holding ``worst`` USD (the caller holds the ledger's lock)."""
        ledger = self.budget.ledger
        ledger.reserved += worst
        ledger.started += 1
        ledger.in_flight += 1
        self.stats.started += 1
        self.stats.in_flight += 1

    def _ticket(self, model: ModelSpec, prompt: str, body: Mapping[str, Any] | None) -> Ticket:
        """The estimate and the worst case of one call of ``model`` for ``prompt``."""
        raw = estimate_prompt_tokens(prompt)
        with self._lock:
            estimate_in, estimate_out = self._estimate(model, raw)
        price = self.prices.get(model.id)
        usd = call_cost({"input": estimate_in, "output": estimate_out}, price) or 0.0
        worst = self._worst_cost(model, raw, estimate_out, body, price)
        return Ticket(model, raw, estimate_in, estimate_out, usd, worst)

    def readmit(self, ticket: Ticket) -> str | None:
        """Before a retry after an unknown outcome: reserve another worst case, or refuse."""
        ledger = self.budget.ledger
        with ledger.condition:
            refusal = self._refusal(ticket.worst_cost, new_call=False)
            if refusal is not None:
                return refusal
            ledger.reserved += ticket.worst_cost
            ticket.units += 1
            return None

    def _worst_cost(
        self,
        model: ModelSpec,
        raw: int,
        estimate_out: int,
        body: Mapping[str, Any] | None,
        price: Price | None,
    ) -> float:
        if price is None:
            return 0.0
        if body is None:  # a command planner (never under --max-cost): its estimate
            return call_cost({"input": raw, "output": estimate_out}, price) or 0.0
        tokens_in, tokens_out = worst_case_tokens(body)
        rate_in = max(price.input, price.cache_write_input or 0.0)
        out = tokens_out if tokens_out is not None else max(estimate_out, tokens_in)
        return (tokens_in * rate_in + out * price.output) / 1_000_000

    def _refusal(self, usd: float, *, new_call: bool = True) -> str | None:
        budget, ledger = self.budget, self.budget.ledger
        calls = budget.calls_cap
        if new_call and calls is not None and ledger.started >= calls:
            return f"not called: the --max-calls budget of {calls} call(s) is used up"
        cap = budget.cost_cap
        if cap is not None and ledger.spent + ledger.reserved + usd > cap:
            return (
                f"not called: the --max-cost budget of ${cap:g} would be exceeded "
                f"(${ledger.spent:.4f} spent, ${ledger.reserved:.4f} held by calls in flight, "
                f"next call up to ${usd:.4f})"
            )
        return None

    def _estimate(self, model: ModelSpec, raw: int) -> tuple[int, int]:
        seen = self._history.get(model.id)
        if seen is not None and seen.calls:
            return round(raw * seen.input_ratio_sum / seen.calls), round(
                seen.output_sum / seen.calls
            )
        recorded = self.recorded_output.get(model.id)
        if recorded is not None:
            return raw, round(recorded)
        cap = model.params.get("max_tokens") or model.params.get("max_completion_tokens")
        if isinstance(cap, int) and cap > 0:
            return raw, cap
        return raw, raw

    def pace(self, ticket: Ticket) -> float:
        """Wait for the provider's token buckets before an attempt; return the seconds waited."""
        limits = self.limits.get(ticket.model.provider)
        if limits is None:
            return 0.0
        return limits.before_request(ticket.estimated_input + ticket.estimated_output)

    # -- after a call -------------------------------------------------------------------------
    def settle(self, ticket: Ticket, tokens: Mapping[str, int] | None, *, ok: bool) -> None:
        """Replace the call's reservation by what it cost: its reported usage, plus its worst
        case for every attempt whose outcome is unknown (usage unknown on success: the worst
        case too)."""
        price = self.prices.get(ticket.model.id)
        usd = call_cost(tokens, price)
        limits = self.limits.get(ticket.model.provider)
        if limits is not None and tokens is not None:
            actual = int(tokens.get("input", 0)) + int(tokens.get("output", 0))
            limits.correct_tokens(ticket.estimated_input + ticket.estimated_output, actual)
        charged = ticket.unknown * ticket.worst_cost
        if usd is not None:
            charged += usd
        elif ok:
            charged += ticket.worst_cost
        ledger = self.budget.ledger
        with ledger.condition:
            ledger.reserved -= ticket.units * ticket.worst_cost
            ledger.spent += charged
            ledger.uncertain += ticket.unknown
            ledger.in_flight -= 1
            ledger.condition.notify_all()
        with self._lock:
            stats = self.stats
            stats.in_flight -= 1
            stats.done += 1
            stats.uncertain += ticket.unknown
            if not ok:
                stats.failed += 1
            if tokens is not None:
                stats.tokens_in += int(tokens.get("input", 0))
                stats.tokens_out += int(tokens.get("output", 0))
                history = self._history.setdefault(ticket.model.id, _ModelHistory())
                history.calls += 1
                history.output_sum += int(tokens.get("output", 0))
                history.input_ratio_sum += int(tokens.get("input", 0)) / ticket.raw_input
            if usd is None:
                stats.unpriced += 1 if ok else 0
            else:
                stats.cost += usd

    @property
    def spent(self) -> float:
        """USD settled so far against the budget (an upper bound when outcomes were unknown)."""
        return self.budget.ledger.spent


def mean_recorded_output(folder: Path, limit: int = 50) -> float | None:
    """Mean output tokens over up to ``limit`` of a model's recordings (None: none report any).

    ``folder`` is ``plan_fixtures/<suite>/<model>``; response files and cassettes both count.
    """
    from harness.recording import ResponseFile, read_cassette, replay_response

    outputs: list[int] = []
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob("*/sample-*")):
        if len(outputs) >= limit:
            break
        try:
            if path.name.endswith(".meta.json"):
                continue
            if path.suffix == ".json":
                tokens = ResponseFile.read(path).tokens
            elif path.suffix == ".yaml":
                tokens = usage_from_body(replay_response(read_cassette(path)))
            else:
                continue
        except (InputError, CassetteMiss, ValueError, KeyError, TypeError, OSError):
            continue
        if tokens and isinstance(tokens.get("output"), int):
            outputs.append(tokens["output"])
    return sum(outputs) / len(outputs) if outputs else None
