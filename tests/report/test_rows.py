"""The fast results.jsonl reader: same rows and same refusals as the careful stdlib one."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from harness._errors import RunFormatError
from harness.report import load_run
from harness.report._rows import FIELD_NAMES
from harness.run import ResultRow
from tests.report._synthetic import PLAN, make_run


def test_a_row_holds_every_results_row_field() -> None:
    """A field added to ResultRow must be added to the reader's Row too (else reports drop it)."""
    assert tuple(f.name for f in dataclasses.fields(ResultRow)) == FIELD_NAMES


def _rewrite(run: Path, change: dict[str, object], line: int = 1, **dump: object) -> None:
    path = run / "results.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[line - 1].update(change)
    path.write_text("".join(json.dumps(r, **dump) + "\n" for r in rows))  # type: ignore[arg-type]


def test_rows_read_back_as_written(tmp_path: Path) -> None:
    """Every field of every row, the plan included, reads back as the writer wrote it."""
    run = make_run(tmp_path / "r", {("m", "a"): "pfu", ("n", "b"): "me"})
    written = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    loaded = load_run(run)
    assert [r.to_dict() for r in loaded.rows] == written
    assert loaded.rows[0]["plan"] == PLAN and loaded.rows[0].get("plan") == PLAN
    assert loaded.rows[0].get("no_such_field", "x") == "x"


def test_nan_and_unknown_fields_are_read_like_the_stdlib_reads_them(tmp_path: Path) -> None:
    """NaN (which Python's json writes) and fields of other names do not stop a report."""
    run = make_run(tmp_path / "r", {("m", "a"): "pp"})
    _rewrite(run, {"latency_ms": math.nan, "extra": 1, "plan": {"x": math.inf}}, line=2)
    loaded = load_run(run)
    assert math.isnan(loaded.rows[1].latency_ms)
    assert loaded.rows[1]["plan"] == {"x": math.inf}
    assert len(loaded.rows) == 2 and loaded.torn_line is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sample": True}, "'sample' is a bool"),
        ({"case": 3}, "'case' is a int"),
        ({"checks": {"schema": 1}}, "'checks' must map check ids"),
        ({"tokens": {"input": True}}, "'tokens' must map names to numbers"),
        ({"violations": {"check": "x"}}, "'violations' is a dict"),
        ({"status": "great"}, "unknown status 'great'"),
    ],
)
def test_wrong_field_types_are_refused_with_the_line(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    """A row of the wrong shape is refused naming the field and the line, never misread."""
    run = make_run(tmp_path / "r", {("m", "a"): "ppp"})
    _rewrite(run, change, line=2)
    with pytest.raises(RunFormatError, match=message) as info:
        load_run(run)
    assert "line 2" in str(info.value)


def test_a_row_without_a_required_field_is_refused(tmp_path: Path) -> None:
    """suite, case, model, sample and status are required."""
    run = make_run(tmp_path / "r", {("m", "a"): "pp"})
    path = run / "results.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    del rows[1]["model"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(RunFormatError, match="a result row needs") as info:
        load_run(run)
    assert "line 2" in str(info.value)


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    """Blank lines (a hand-edited file) are not rows and not damage."""
    run = make_run(tmp_path / "r", {("m", "a"): "pf"})
    path = run / "results.jsonl"
    path.write_text(path.read_text().replace("\n", "\n\n"))
    assert [r.status for r in load_run(run).rows] == ["pass", "fail"]
