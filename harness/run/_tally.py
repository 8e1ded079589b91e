"""What a run's summary reads, kept row by row in memory that does not grow with the rows.

``planeval run`` writes every row whole to results.jsonl as it finishes; what it prints after
(the pass-rate table with its clustered interval, the failing cases, the infrastructure errors
and gaps, tokens and cost, the exit code) needs far less than the rows. ``RunTally`` keeps
that: counts per model and status, per case the passed, counted and failed samples in typed
arrays (4 bytes each, for the clustered interval and the failing share), token and cost sums,
and only the first few rows of each kind that is listed (errors, gaps, the worst failing
cases). A run of 100,000 cases holds a few megabytes of it.
"""

from __future__ import annotations

import heapq
import itertools
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from harness.run._failing import FailingCase, first_violation
from harness.run._records import COUNTED_STATUSES, STATUSES, ResultRow
from harness.run._summary import ModelSummary

if TYPE_CHECKING:
    from harness.cost import Price, UsageSummary

__all__ = ["RunTally"]

SHOWN = 10
"""Rows of each listed kind kept (``run`` lists the first ten of each)."""

_FAILED = ("fail", "unparseable")


class _CaseCounts:
    """``(passed, counted)`` per case of one model, iterated from the tally's arrays."""

    __slots__ = ("_counted", "_passed")

    def __init__(self, passed: array[int], counted: array[int]) -> None:
        self._passed, self._counted = passed, counted

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self._passed, self._counted, strict=True)


class RunTally:
    """A run's summary, fed one row at a time (``add``), in any order.

    Args:
        models: the model ids of the run, in run order.
        cases: the suite's cases (their count sizes the arrays).
        samples: samples per case and model.
        prices: each model's price (tokens are costed as rows come).
        items_of: how many of a (model index, case index) pair's samples this run has (a
            shard has some of them); default ``samples``.
        budget_reason: why the budget stopped calls, once it has (its refused rows carry it).
    """

    def __init__(
        self,
        models: Sequence[str],
        cases: int,
        samples: int,
        *,
        prices: Mapping[str, Price | None] | None = None,
        items_of: Callable[[int, int], int] | None = None,
        budget_reason: Callable[[], str | None] | None = None,
    ) -> None:
        from harness.cost import UsageSummary

        self.models = list(dict.fromkeys(models))
        self._model_index = {m: i for i, m in enumerate(self.models)}
        self._cases = cases
        self._samples = samples
        self._items_of = items_of or (lambda _m, _c: samples)
        self._budget_reason = budget_reason or (lambda: None)
        self._prices = dict(prices or {})
        zeros = bytes(4 * cases)
        self._passed = [array("I", zeros) for _ in self.models]
        self._counted = [array("I", zeros) for _ in self.models]
        self._failed = [array("I", zeros) for _ in self.models]
        self._seen = [array("I", zeros) for _ in self.models]
        self._counts: list[dict[str, int]] = [dict.fromkeys(STATUSES, 0) for _ in self.models]
        self._usage = {m: UsageSummary(m) for m in self.models}
        self._cost = 0.0
        self._first: dict[tuple[int, int], tuple[int, str, str, str]] = {}
        """(model, case) pairs with a failed sample whose samples have not all come: the first
        failed sample, its first violation, the suite label and the case id."""
        self._worst: list[tuple[float, int, int, FailingCase]] = []
        self._errors: list[tuple[int, int, ResultRow]] = []
        self._pending: list[tuple[int, int, ResultRow]] = []
        self._tie = itertools.count()
        self.rows = 0
        """Rows added."""
        self.failing_count = 0
        """(model, case) pairs with a failed or unparseable sample."""
        self.budget_refused = 0
        """Rows the budget did not call (``missing``, saying why)."""
        self.recordings_missing = False
        """True when a missing row is one a recording would fill (not a dataset model's gold
        id without a prediction)."""

    @classmethod
    def of_rows(
        cls,
        rows: Iterable[ResultRow],
        models: Sequence[str],
        samples: int,
        *,
        prices: Mapping[str, Price | None] | None = None,
        budget_reason: str | None = None,
        is_unpredicted: Callable[[ResultRow], bool] | None = None,
    ) -> RunTally:
        """The tally of rows held in memory (cases numbered by first appearance)."""
        rows = list(rows)
        order: dict[str, int] = {}
        for row in rows:
            order.setdefault(row.case, len(order))
        counts: dict[tuple[str, str], int] = {}
        for row in rows:
            counts[(row.model, row.case)] = counts.get((row.model, row.case), 0) + 1
        every = list(dict.fromkeys([*models, *(r.model for r in rows)]))
        ids = {i: c for c, i in order.items()}
        tally = cls(
            every,
            len(order),
            samples,
            prices=prices,
            items_of=lambda m, c: counts.get((every[m], ids[c]), 0),
            budget_reason=lambda: budget_reason,
        )
        unpredicted = is_unpredicted or (lambda _row: False)
        for index, row in enumerate(rows):
            gold = row.status == "missing" and unpredicted(row)
            tally.add(index, order[row.case], row, unpredicted_gold=gold)
        return tally.finish()

    def add(self, index: int, case_index: int, row: ResultRow, *, unpredicted_gold: bool) -> None:
        """Count one finished row: ``index`` is its place in the run's order, ``case_index``
        its case's place in the suite; ``unpredicted_gold``: a dataset model's gold id
        without a prediction (its ``missing`` needs no recording)."""
        m = self._model_index.get(row.model)
        if m is None:
            m = self._model_index[row.model] = len(self.models)
            self.models.append(row.model)
            zeros = bytes(4 * self._cases)
            for arrays in (self._passed, self._counted, self._failed, self._seen):
                arrays.append(array("I", zeros))
            self._counts.append(dict.fromkeys(STATUSES, 0))
        self.rows += 1
        status = row.status
        self._counts[m][status] += 1
        if status in COUNTED_STATUSES:
            self._counted[m][case_index] += 1
            if status == "pass":
                self._passed[m][case_index] += 1
            else:
                self._failed[m][case_index] += 1
                key = (m, case_index)
                kept = self._first.get(key)
                if kept is None or row.sample < kept[0]:
                    self._first[key] = (row.sample, first_violation(row), row.suite, row.case)
        elif status == "error":
            self._keep(self._errors, index, row)
        elif status in ("missing", "stale"):
            self._keep(self._pending, index, row)
            if status == "missing":
                if not unpredicted_gold:
                    self.recordings_missing = True
                reason = self._budget_reason()
                if reason is not None and row.detail == reason:
                    self.budget_refused += 1
        self._add_usage(row)
        self._seen[m][case_index] += 1
        if self._seen[m][case_index] >= self._items_of(m, case_index):
            self._close(m, case_index)

    def finish(self) -> RunTally:
        """Close the pairs whose samples did not all come (a run stopped early)."""
        for m, c in list(self._first):
            self._close(m, c)
        return self

    # -- what the summary reads ------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """Rows per status over every model."""
        return {s: sum(c[s] for c in self._counts) for s in STATUSES}

    def model_summaries(self) -> list[ModelSummary]:
        """One ``ModelSummary`` per model, in run order (counts and per-case clusters)."""
        return [
            ModelSummary(
                model,
                dict(self._counts[m]),
                case_counts=_CaseCounts(self._passed[m], self._counted[m]),
            )
            for m, model in enumerate(self.models)
        ]

    def worst_failing(self) -> list[FailingCase]:
        """The first ``SHOWN`` failing (model, case) pairs, worst first: the order
        ``failing_cases`` gives (largest failing share, then run order)."""
        kept = sorted(self._worst, key=lambda w: (-w[0], -w[1], -w[2]))
        return [w[3] for w in kept]

    def first_errors(self) -> list[ResultRow]:
        """The first ``SHOWN`` error rows in run order (summary rows)."""
        return [r for _i, _t, r in sorted(self._errors, key=lambda e: -e[0])]

    def first_pending(self) -> list[ResultRow]:
        """The first ``SHOWN`` missing or stale rows in run order (summary rows)."""
        return [r for _i, _t, r in sorted(self._pending, key=lambda e: -e[0])]

    def pending_models(self) -> list[str]:
        """The models with a missing or stale row, in run order."""
        return [
            model
            for m, model in enumerate(self.models)
            if self._counts[m]["missing"] or self._counts[m]["stale"]
        ]

    def usage(self) -> tuple[list[UsageSummary], UsageSummary]:
        """Tokens and cost per model with rows (in run order) and in total, as
        ``harness.cost.summarize_usage`` gives them for the rows in run order (the cost is
        summed in the order rows finished, as results.jsonl holds them)."""
        from harness.cost import usage_total

        per_model = [self._usage[m] for m in self.models if self._usage[m].rows]
        return per_model, usage_total(per_model, self._cost)

    # -- inside ----------------------------------------------------------------------------

    def _keep(self, heap: list[tuple[int, int, ResultRow]], index: int, row: ResultRow) -> None:
        """Keep ``row`` if it is among the first ``SHOWN`` of its kind (a max-heap on index)."""
        from harness.run._runner import summary_row

        entry = (-index, next(self._tie), summary_row(row))
        if len(heap) < SHOWN:
            heapq.heappush(heap, entry)
        elif entry[0] > heap[0][0]:
            heapq.heapreplace(heap, entry)

    def _add_usage(self, row: ResultRow) -> None:
        from harness.cost import UsageSummary, call_cost

        summary = self._usage.get(row.model)
        if summary is None:
            summary = self._usage[row.model] = UsageSummary(row.model)
        tokens = row.tokens
        usd = call_cost(tokens, self._prices.get(row.model)) if isinstance(tokens, dict) else None
        summary._count(row.status == "pass", tokens, usd)
        if usd is not None:
            self._cost += usd

    def _close(self, m: int, c: int) -> None:
        """A (model, case) pair has all its samples: offer it to the worst failing ones."""
        kept = self._first.pop((m, c), None)
        if kept is None:
            return
        failed, counted = self._failed[m][c], self._counted[m][c]
        self.failing_count += 1
        sample, violation, suite, case = kept
        item = FailingCase(suite, self.models[m], case, failed, counted, violation, sample)
        entry = (failed / counted, -m, -c, item)
        if len(self._worst) < SHOWN:
            heapq.heappush(self._worst, entry)
        elif entry[:3] > self._worst[0][:3]:
            heapq.heapreplace(self._worst, entry)
