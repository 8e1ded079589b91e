"""Reading run folders: the torn last line, damaged lines, empty runs, unknown versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._errors import RunFormatError
from harness.report import load_run
from tests.report._synthetic import make_run


def test_torn_last_line_is_reported_and_the_rest_used(tmp_path: Path) -> None:
    """A killed run's half-written last line is left out and named in a warning."""
    run = make_run(tmp_path / "r", {("m", "a"): "pp", ("m", "b"): "f"}, torn=True)
    loaded = load_run(run)
    assert len(loaded.rows) == 3
    assert loaded.torn_line == 4
    assert any("line 4 is torn" in w for w in loaded.warnings)


def test_damaged_middle_line_is_refused_with_its_number(tmp_path: Path) -> None:
    """Only the last line may be torn; a damaged line elsewhere is an error naming it."""
    run = make_run(tmp_path / "r", {("m", "a"): "ppp"})
    path = run / "results.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:30]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunFormatError, match="line 2"):
        load_run(run)


def test_empty_run_is_refused(tmp_path: Path) -> None:
    """A run with no rows has nothing to report: one clear error."""
    run = make_run(tmp_path / "r", {("m", "a"): "p"})
    (run / "results.jsonl").write_text("")
    with pytest.raises(RunFormatError, match="empty"):
        load_run(run)


def test_unknown_format_version_is_refused(tmp_path: Path) -> None:
    """A run written in a format this planeval does not know is not guessed at."""
    run = make_run(tmp_path / "r", {("m", "a"): "p"}, format_version=99)
    with pytest.raises(RunFormatError, match="format version 99"):
        load_run(run)


def test_not_a_run_folder(tmp_path: Path) -> None:
    """A folder without run.json, and a path that does not exist, are refused."""
    with pytest.raises(RunFormatError, match=r"run\.json is missing"):
        load_run(tmp_path)
    with pytest.raises(RunFormatError, match="no such run folder"):
        load_run(tmp_path / "nope")


def test_rows_of_another_suite_are_refused(tmp_path: Path) -> None:
    """results.jsonl must hold the suite run.json names."""
    run = make_run(tmp_path / "r", {("m", "a"): "p"})
    data = json.loads((run / "run.json").read_text())
    data["suite"] = "other"
    (run / "run.json").write_text(json.dumps(data))
    with pytest.raises(RunFormatError, match="suite"):
        load_run(run)


def test_accepts_the_results_file_path(tmp_path: Path) -> None:
    """Giving results.jsonl or run.json instead of the folder works too."""
    run = make_run(tmp_path / "r", {("m", "a"): "p"})
    assert load_run(run / "results.jsonl").run_dir == run


@pytest.mark.parametrize("ending", ["\n", ""])
def test_rows_are_read_whole_with_or_without_the_last_newline(tmp_path: Path, ending: str) -> None:
    """Every row, in order, with its checks, whether or not the file ends with a newline."""
    run = make_run(tmp_path / "r", {("m", "a"): "pfu", ("n", "b"): "pwm"})
    path = run / "results.jsonl"
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + ending, encoding="utf-8")
    expected = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    loaded = load_run(run)
    assert [(r.model, r.case, r.sample, r.status, r.checks) for r in loaded.rows] == [
        (e["model"], e["case"], e["sample"], e["status"], e["checks"]) for e in expected
    ]
    assert loaded.torn_line is None
