"""What a live run keeps an eye on while it calls planners: budgets, rate limits, running totals.

Every live call goes through ``LiveControls``: ``admit`` before it starts (the budget may refuse
it), ``pace`` before each attempt (the provider's token buckets), ``settle`` when it is over
(the real usage and cost replace the estimate).

Budget semantics: a call is admitted only while ``spent + reserved + estimate <= max_cost``
(``reserved`` being the estimates of the calls in flight) and fewer than ``max_calls`` calls
have started. Once one call is refused, every later one is too, so a run stops at a clean
point. The estimate is the prompt's characters / 4 (a tokenizer-free rule of thumb, scaled by
the ratio of reported to estimated input tokens of the model's earlier calls) plus the mean
output tokens recorded for the model (this run's calls, else its recordings on disk, else the
request's ``max_tokens``, else as many as the input). A budget can therefore be overshot only
by how far the estimates of calls in flight fall short, never by a call that started after
the budget was reached.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harness._errors import InputError
from harness.cost import Price, call_cost, usage_from_body
from harness.recording import CassetteMiss
from harness.run._limits import ProviderLimits
from harness.suite import ModelSpec

__all__ = [
    "Budget",
    "LiveControls",
    "LiveStats",
    "Ticket",
    "estimate_prompt_tokens",
    "mean_recorded_output",
]


def estimate_prompt_tokens(text: str) -> int:
    """About one token per four characters (no tokenizer needed; right within ~25% for
    English prose and JSON)."""
    return max(1, (len(text) + 3) // 4)


@dataclass(frozen=True, slots=True)
class Budget:
    """Caps on a live run."""

    max_cost: float | None = None
    """USD; no call starts once it would be exceeded."""
    max_calls: int | None = None
    """Planner calls (samples sent to a planner; retries are not extra calls)."""

    def describe(self) -> dict[str, float | int | None]:
        """As run.json records it."""
        return {"max_cost": self.max_cost, "max_calls": self.max_calls}


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


@dataclass(slots=True)
class Ticket:
    """An admitted call: what it was estimated to cost."""

    model: ModelSpec
    raw_input: int
    """The prompt's characters / 4."""
    estimated_input: int
    estimated_output: int
    estimated_cost: float


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
    stopped: str | None = None
    """Why the budget stopped the run (one line), once it has."""
    _spent: float = 0.0
    _reserved: float = 0.0
    _history: dict[str, _ModelHistory] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- before a call ------------------------------------------------------------------------
    def admit(self, model: ModelSpec, prompt: str) -> Ticket | str:
        """Reserve a call of ``model`` for ``prompt``, or say (one line) why the budget refuses."""
        with self._lock:
            raw = estimate_prompt_tokens(prompt)
            estimate_in, estimate_out = self._estimate(model, raw)
            price = self.prices.get(model.id)
            usd = call_cost({"input": estimate_in, "output": estimate_out}, price) or 0.0
            refusal = self.stopped or self._refusal(usd)
            if refusal is not None:
                self.stopped = refusal
                self.stats.refused += 1
                return refusal
            self._reserved += usd
            self.stats.started += 1
            self.stats.in_flight += 1
            return Ticket(model, raw, estimate_in, estimate_out, usd)

    def _refusal(self, usd: float) -> str | None:
        budget = self.budget
        if budget.max_calls is not None and self.stats.started >= budget.max_calls:
            return f"not called: the --max-calls budget of {budget.max_calls} call(s) is used up"
        if budget.max_cost is not None and self._spent + self._reserved + usd > budget.max_cost:
            return (
                f"not called: the --max-cost budget of ${budget.max_cost:g} would be exceeded "
                f"(${self._spent:.4f} spent, ${self._reserved:.4f} in flight, next call "
                f"~${usd:.4f})"
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
        """Replace the call's estimate by what it really used (unknown usage: the estimate)."""
        price = self.prices.get(ticket.model.id)
        usd = call_cost(tokens, price)
        limits = self.limits.get(ticket.model.provider)
        if limits is not None and tokens is not None:
            actual = int(tokens.get("input", 0)) + int(tokens.get("output", 0))
            limits.correct_tokens(ticket.estimated_input + ticket.estimated_output, actual)
        with self._lock:
            self._reserved -= ticket.estimated_cost
            # providers bill no failed call; a call without reported usage costs its estimate
            self._spent += usd if usd is not None else (ticket.estimated_cost if ok else 0.0)
            stats = self.stats
            stats.in_flight -= 1
            stats.done += 1
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
        """USD of the calls settled so far (estimates for calls without reported usage)."""
        return self._spent


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
