"""``map_in_processes``: an ordered map over worker processes (resume-eval's workers)."""

from __future__ import annotations

import os

import pytest

from harness.execute._processes import map_in_processes


def _square_and_pid(number: int) -> tuple[int, int]:
    if number == 13:
        raise ValueError("thirteen")
    return number * number, os.getpid()


def test_results_come_in_order_from_other_processes() -> None:
    """Two workers: every result in input order, computed outside this process."""
    results = list(map_in_processes(_square_and_pid, range(12), workers=2))
    assert [square for square, _ in results] == [n * n for n in range(12)]
    assert os.getpid() not in {pid for _, pid in results}


def test_one_worker_or_one_item_stays_in_this_process() -> None:
    """No pool for a single worker or a single item."""
    assert list(map_in_processes(_square_and_pid, range(3), workers=1)) == [
        (0, os.getpid()),
        (1, os.getpid()),
        (4, os.getpid()),
    ]
    assert list(map_in_processes(_square_and_pid, [5], workers=4)) == [(25, os.getpid())]


def test_an_error_in_a_worker_is_raised_at_its_item() -> None:
    """The items before the failing one are delivered, then its exception is raised."""
    results = map_in_processes(_square_and_pid, [1, 2, 13, 4], workers=2)
    assert next(results)[0] == 1
    assert next(results)[0] == 4
    with pytest.raises(ValueError, match="thirteen"):
        next(results)
