"""The metric readers (report's metrics section, ``compare``, ``gate --min-metric``) read the
scored rows as a view on results.jsonl, a block at a time, not as a list of every row
(issue 28: ``compare`` of 3 samples x 100,000 cases held about 10 GiB)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

import harness.report._scan as scan
from harness.report import load_run
from harness.report._scan import RowsAt, metric_rows
from tests.compare.test_pooled import GOOD, SHORT, taskbench_run


def _answers(cases: int) -> dict[str, list[list[str]]]:
    return {f"c{i}": [GOOD if i % 3 else SHORT, SHORT] for i in range(cases)}


def test_the_view_reads_the_rows_the_list_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same rows in file order, whatever the block size (lines longer than a block, many
    lines a block), and again on a second pass; indexing and slicing agree."""
    run = load_run(taskbench_run(tmp_path / "r", _answers(40)))
    expected = run.metric_rows()
    for size in (97, 4096, 1 << 24):
        monkeypatch.setattr(scan, "BLOCK_BYTES", size)
        view = metric_rows(run)
        assert isinstance(view, RowsAt) and len(view) == len(expected) == 80
        assert list(view) == expected
        assert list(view) == expected
        assert view[5] == expected[5] and view[-1] == expected[-1]
        assert view[3:9] == expected[3:9]


def test_reading_the_view_holds_a_block_not_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """6,000 scored rows with their TaskBench details, read in blocks of 256 KiB (16 MiB in
    use; the file is smaller than that): going through them once holds a small fraction of
    what the list of them holds."""
    run = load_run(taskbench_run(tmp_path / "r", _answers(3000)))
    monkeypatch.setattr(scan, "BLOCK_BYTES", 256 << 10)

    def peak(read: object) -> int:
        tracemalloc.start()
        try:
            rows = read() if callable(read) else None
            for row in rows or ():
                assert row.get("metric_status") == "scored"
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    as_list = peak(run.metric_rows)
    as_view = peak(lambda: metric_rows(run))
    assert as_view * 5 < as_list, (as_view, as_list)
