"""``RunTally``: the summary ``planeval run`` prints, counted row by row without keeping rows.

Each figure is checked against the same figure computed from every row held in memory (the
way ``run`` computed it before): statuses, the clustered interval, the failing cases in their
order, the first errors and gaps, tokens and cost. Rows are hand-made (provenance:
handwritten) and fed in a shuffled order, as a live run finishes them.
"""

from __future__ import annotations

import random

import pytest

from harness.cost import Price, summarize_usage
from harness.run import ResultRow, Shard, count_statuses, failing_cases, summarize
from harness.run._runner import _items_of
from harness.run._tally import SHOWN, RunTally

MODELS = ["alpha", "beta"]
STATUSES = ["pass", "pass", "pass", "fail", "unparseable", "missing", "stale", "error"]
PRICES = {"alpha": Price(input=1.0, output=2.0), "beta": None}


def _rows(seed: int, cases: int, samples: int) -> list[ResultRow]:
    """Every (model, case, sample) row of a run, in run order."""
    rng = random.Random(seed)
    rows = []
    for model in MODELS:
        for case in range(cases):
            for sample in range(samples):
                status = rng.choice(STATUSES)
                violations = (
                    [{"check": "acyclic", "severity": "error", "message": f"cycle {case}/{sample}"}]
                    if status == "fail"
                    else []
                )
                rows.append(
                    ResultRow(
                        suite="s",
                        case=f"c{case:03d}",
                        model=model,
                        sample=sample,
                        status=status,  # type: ignore[arg-type]
                        violations=violations,
                        detail=f"why {case}/{sample}" if status != "pass" else None,
                        tokens={"input": rng.randint(1, 99), "output": 7}
                        if rng.random() < 0.7
                        else None,
                    )
                )
    return rows


def _tally(rows: list[ResultRow], cases: int, samples: int, seed: int) -> RunTally:
    """The tally of ``rows`` added in a shuffled order (a live run's finishing order)."""
    tally = RunTally(MODELS, cases, samples, prices=PRICES)
    placed = list(enumerate(rows))
    random.Random(seed).shuffle(placed)
    for index, row in placed:
        tally.add(index, int(row.case[1:]), row, unpredicted_gold=False)
    return tally.finish()


@pytest.mark.parametrize(("seed", "cases", "samples"), [(1, 40, 1), (2, 30, 3), (3, 7, 5)])
def test_tally_gives_what_the_rows_give(seed: int, cases: int, samples: int) -> None:
    rows = _rows(seed, cases, samples)
    tally = _tally(rows, cases, samples, seed)
    assert tally.rows == len(rows)
    assert tally.counts() == count_statuses(rows)
    whole = summarize(rows, MODELS)
    for mine, theirs in zip(tally.model_summaries(), whole, strict=True):
        assert (mine.model, mine.counts) == (theirs.model, theirs.counts)
        assert mine.interval == pytest.approx(theirs.interval, nan_ok=True)
    failing = failing_cases(rows)
    assert tally.failing_count == len(failing) > SHOWN
    assert tally.worst_failing() == failing[:SHOWN]
    errors = [r for r in rows if r.status == "error"]
    assert [(r.case, r.model, r.sample, r.detail) for r in tally.first_errors()] == [
        (r.case, r.model, r.sample, r.detail) for r in errors[:SHOWN]
    ]
    pending = [r for r in rows if r.status in ("missing", "stale")]
    assert [(r.status, r.case, r.model, r.sample) for r in tally.first_pending()] == [
        (r.status, r.case, r.model, r.sample) for r in pending[:SHOWN]
    ]
    assert tally.pending_models() == list(dict.fromkeys(r.model for r in pending))
    assert tally.recordings_missing
    per_model, total = tally.usage()
    their_models, their_total = summarize_usage(rows, PRICES)
    for mine_usage, their_usage in zip(per_model, their_models, strict=True):
        a, b = mine_usage.to_dict(), their_usage.to_dict()
        costs = ("cost_usd", "cost_per_pass_usd")
        assert [a.pop(k) for k in costs] == pytest.approx([b.pop(k) for k in costs])
        assert a == b  # the cost is summed in finishing order, so equal to rounding
    assert total.tokens == their_total.tokens
    assert (total.rows, total.calls, total.unpriced) == (
        their_total.rows,
        their_total.calls,
        their_total.unpriced,
    )
    assert total.cost == pytest.approx(their_total.cost)  # summed in finishing order


def test_the_same_from_rows_kept_in_memory() -> None:
    """``RunTally.of_rows`` (a run that kept its rows) agrees with the streamed tally."""
    rows = _rows(4, 25, 2)
    streamed = _tally(rows, 25, 2, 4)
    held = RunTally.of_rows(rows, MODELS, 2, prices=PRICES)
    assert held.counts() == streamed.counts()
    assert held.worst_failing() == streamed.worst_failing()
    assert held.failing_count == streamed.failing_count


def test_a_shard_closes_each_case_on_its_own_samples() -> None:
    """A shard holds only some samples of a (model, case): the failing share is over those,
    and every failing case is listed even though no case has all its samples here."""
    cases, samples, shard = 9, 3, Shard(2, 2)
    every = _rows(5, cases, samples)
    rows = [r for i, r in enumerate(every) if shard.holds(i)]
    indices = [i for i in range(len(every)) if shard.holds(i)]
    tally = RunTally(
        MODELS,
        cases,
        samples,
        items_of=lambda m, c: _items_of(samples, cases, shard, m, c),
    )
    for index, row in zip(indices, rows, strict=True):
        tally.add(index, int(row.case[1:]), row, unpredicted_gold=False)
    assert tally.worst_failing() == failing_cases(rows)[:SHOWN]
    assert tally._first == {}  # every pair closed as its last sample came: nothing held
    assert tally.failing_count == len(failing_cases(rows))


def test_a_stopped_run_lists_its_unfinished_cases() -> None:
    """Rows of a run stopped in the middle of a case's samples still list that case."""
    rows = [r for r in _rows(6, 5, 4) if r.sample < 2]
    tally = RunTally(MODELS, 5, 4)
    for index, row in enumerate(rows):
        tally.add(index, int(row.case[1:]), row, unpredicted_gold=False)
    assert tally.failing_count == 0  # no case has all its samples yet
    tally.finish()
    assert tally.worst_failing() == failing_cases(rows)[:SHOWN]
    assert tally.failing_count == len(failing_cases(rows))


def test_gold_ids_without_predictions_need_no_recording() -> None:
    row = ResultRow(suite="s", case="c000", model="alpha", sample=0, status="missing")
    tally = RunTally(MODELS, 1, 1)
    tally.add(0, 0, row, unpredicted_gold=True)
    assert not tally.recordings_missing
    tally.add(
        1,
        0,
        ResultRow(suite="s", case="c000", model="beta", sample=0, status="missing"),
        unpredicted_gold=False,
    )
    assert tally.recordings_missing
