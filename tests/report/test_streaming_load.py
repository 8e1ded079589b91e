"""``load_run`` reads results.jsonl block by block and keeps columns, not rows (issue 28).

The runs are written in code (provenance: handwritten generator, ``test_columnar._run``, plus
a few hand-written lines). Whatever the block size, the report files are the same bytes; a
line msgspec refuses (NaN) or a damaged or torn line is handled where it falls, with its true
line number; and loading a run holds a fraction of its file, not the file and every row.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import harness.report._scan as scan
from harness._errors import RunFormatError
from harness.report import load_run, render_junit, write_csv, write_report
from tests.report.test_columnar import RUNS, _csv_by_row, _junit_by_row, _run

FILES = ("summary.md", "report.html", "junit.xml", "results.csv")


def _report(run: Path, out: Path) -> dict[str, bytes]:
    write_report(load_run(run), out, processes=1)
    return {name: (out / name).read_bytes() for name in FILES}


@pytest.mark.parametrize("seed, plain, repeats", RUNS)
def test_any_block_size_gives_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, plain: bool, repeats: bool
) -> None:
    run = _run(tmp_path, seed, plain=plain, repeats=repeats)
    monkeypatch.setattr(scan, "BLOCK_BYTES", 1 << 30)  # the whole file at once
    whole = _report(run, tmp_path / "whole")
    for size in (97, 4096):  # lines longer than a block; many lines a block
        monkeypatch.setattr(scan, "BLOCK_BYTES", size)
        assert _report(run, tmp_path / f"b{size}") == whole


def _row(case: str, **extra: object) -> dict[str, object]:
    return {"suite": "s", "case": case, "model": "m", "sample": 0, "status": "pass", **extra}


def _write(tmp_path: Path, lines: list[str]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.jsonl").write_text("".join(lines), encoding="utf-8")
    manifest = {"format_version": 1, "run_id": "r", "suite": "s", "samples": 1}
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


@pytest.mark.parametrize("block", [64, 1 << 20])
def test_nan_and_torn_lines_are_read_where_they_fall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(scan, "BLOCK_BYTES", block)
    lines = [json.dumps(_row(f"c{i}")) + "\n" for i in range(6)]
    lines[3] = json.dumps(_row("c3", latency_ms=math.nan)) + "\n"  # NaN: only json reads it
    lines.insert(2, "\n")  # a blank line is skipped
    lines.append('{"suite": "s", "case": "c6", "mod')  # torn: the run was killed
    loaded = load_run(_write(tmp_path, lines))
    assert loaded.torn_line == 8
    assert [r.case for r in loaded.rows] == [f"c{i}" for i in range(6)]
    assert math.isnan(loaded.rows[3].latency_ms)
    assert loaded.frame["case"].tolist() == [f"c{i}" for i in range(6)]


@pytest.mark.parametrize("block", [64, 1 << 20])
def test_a_damaged_line_in_a_later_block_is_named_by_its_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(scan, "BLOCK_BYTES", block)
    lines = [json.dumps(_row(f"c{i}")) + "\n" for i in range(8)]
    lines[6] = '{"suite": "s", "case": oops}\n'
    with pytest.raises(RunFormatError, match="damaged line") as err:
        load_run(_write(tmp_path, lines))
    assert "line 7" in str(err.value)


def test_a_wrong_type_in_a_later_block_is_refused_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "BLOCK_BYTES", 64)
    lines = [json.dumps(_row(f"c{i}")) + "\n" for i in range(8)]
    lines[5] = json.dumps(_row("c5", violations="none")) + "\n"
    with pytest.raises(RunFormatError, match="'violations' is a str") as err:
        load_run(_write(tmp_path, lines))
    assert "line 6" in str(err.value)


def test_loading_holds_a_fraction_of_the_file(tmp_path: Path) -> None:
    """Before: the whole file was read at once and every row kept (the file's size and more);
    now a block at a time and columns (a 1,000,000-row run reports within 1 GiB)."""
    plan = {"tasks": [{"id": f"t{i}", "description": "x" * 200} for i in range(12)]}
    violations = [{"check": "acyclic", "message": "m" * 300}]
    lines = [
        json.dumps(
            _row(
                f"case-{i}",
                model=f"m{i % 3}",
                status="fail",
                checks={"acyclic": "fail"},
                violations=violations,
                plan=plan,
                tags=["t"],
                tokens={"input": 10 + i, "output": 3},
            )
        )
        + "\n"
        for i in range(3_000)
    ]
    run = _write(tmp_path, lines)
    size = (run / "results.jsonl").stat().st_size
    assert size > 9_000_000
    # Measured in a fresh process, as a user's `planeval report` loads: in a test process
    # that ran others first (under xdist), their leftovers could be traced in the window.
    probe = (
        "import json, sys, tracemalloc\n"
        "import harness.report._scan as scan\n"
        "from harness.report import load_run\n"
        "scan.BLOCK_BYTES = 1 << 20\n"
        "tracemalloc.start()\n"
        "loaded = load_run(sys.argv[1])\n"
        "peak = tracemalloc.get_traced_memory()[1]\n"
        "tracemalloc.stop()\n"
        "print(json.dumps([peak, len(loaded.rows), loaded.rows[2_999].plan]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(run)], capture_output=True, text=True, check=True
    )
    peak, count, last_plan = json.loads(done.stdout)
    assert count == 3_000 and last_plan == plan
    assert peak < size / 2, f"loading peaked at {peak:,} bytes for a {size:,}-byte file"


def test_tables_read_rows_only_the_stdlib_reads(tmp_path: Path) -> None:
    """results.csv and junit.xml read the rows back in spans of the file: a NaN, a byte that
    is not UTF-8, blank and CRLF lines inside a span still give the row-by-row files."""
    lines = [
        json.dumps(
            _row(
                f"c{i}",
                status=("pass", "fail", "error")[i % 3],
                violations=[{"check": "acyclic", "message": f"m{i % 2}"}] if i % 3 == 1 else [],
                latency_ms=12.5,
                recording=f"r{i},x.json",
                detail="why" if i % 3 == 2 else None,
            )
        )
        + ("\r\n" if i == 4 else "\n")
        for i in range(9)
    ]
    lines[3] = json.dumps(_row("c3", latency_ms=math.nan, status="fail")) + "\n"
    lines[6] = lines[6].replace('"why"', '"wh\\u00ff"')
    lines.insert(5, "\n  \n")
    run = _write(tmp_path, lines)
    data = (run / "results.jsonl").read_bytes()
    (run / "results.jsonl").write_bytes(data.replace(b"r6,x", b"r6\xff"))  # not UTF-8
    loaded = load_run(run)
    write_csv(loaded, tmp_path / "results.csv")
    assert (tmp_path / "results.csv").read_bytes().decode() == _csv_by_row(loaded)
    assert render_junit(loaded) == _junit_by_row(loaded)
