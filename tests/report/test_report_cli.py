"""``planeval report``: files written, exit 0; unusable input is one line and exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from harness._cli.main import app
from tests.report._synthetic import make_run

runner = CliRunner()


def test_report_writes_and_exits_0(tmp_path: Path) -> None:
    """The command prints the headline and the four paths."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pf"})
    result = runner.invoke(app, ["report", str(run)])
    assert result.exit_code == 0, result.output
    assert "1/2 counted results pass" in result.stdout
    assert (run / "report.html").is_file()


def test_report_json(tmp_path: Path) -> None:
    """--format json prints totals and file paths."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pp"})
    result = runner.invoke(app, ["report", str(run), "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["totals"]["passed"] == 2


def test_torn_line_is_a_warning_not_an_error(tmp_path: Path) -> None:
    """A torn last line is reported on stderr and the report is still written."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pf"}, torn=True)
    result = runner.invoke(app, ["report", str(run)])
    assert result.exit_code == 0
    assert "torn" in result.stderr


def test_empty_run_is_one_line_exit_2(tmp_path: Path) -> None:
    """An empty run: one error line, exit 2, no traceback, no report files."""
    run = make_run(tmp_path / "r", {("a", "c1"): "p"})
    (run / "results.jsonl").write_text("\n")
    result = runner.invoke(app, ["report", str(run)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "empty" in result.stderr
    assert "Traceback" not in result.output
    assert not (run / "report.html").exists()


def test_missing_folder_exit_2(tmp_path: Path) -> None:
    """A path that is not a run folder is refused with exit 2."""
    result = runner.invoke(app, ["report", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "no such run folder" in result.stderr


def test_run_with_nothing_counted(tmp_path: Path) -> None:
    """Every row missing: the report is written, the rate is null, nothing is called a failure."""
    run = make_run(tmp_path / "r", {("a", "c1"): "mm", ("b", "c1"): "s"})
    result = runner.invoke(app, ["report", str(run), "--format", "json"])
    assert result.exit_code == 0, result.output
    totals = json.loads(result.stdout)["totals"]
    assert totals["rate"] is None and totals["fail"] == 0 and totals["missing"] == 2
    assert "2 missing" in (run / "summary.md").read_text()


def test_files_are_not_private(tmp_path: Path) -> None:
    """Report files get the usual permissions, not mkstemp's 0600."""
    run = make_run(tmp_path / "r", {("a", "c1"): "p"})
    runner.invoke(app, ["report", str(run)])
    mask = os.umask(0)
    os.umask(mask)
    assert (run / "summary.md").stat().st_mode & 0o777 == 0o666 & ~mask


def test_json_has_per_model_figures(tmp_path: Path) -> None:
    """--format json lists each model's rate, interval and not-counted rows."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pf", ("b", "c1"): "mm"})
    data = json.loads(runner.invoke(app, ["report", str(run), "--format", "json"]).stdout)
    by = {m["model"]: m for m in data["models"]}
    assert by["a"]["rate"] == 0.5 and by["a"]["counted"] == 2
    assert by["b"]["rate"] is None and by["b"]["missing"] == 2
