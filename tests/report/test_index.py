"""``planeval report DIR`` on a folder of runs: every run's report and one index page."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from harness._cli.main import app
from tests.report._synthetic import make_run

runner = CliRunner()


def test_index_links_every_suite_with_its_figures(tmp_path: Path) -> None:
    """Two suites: each gets its report, and index.html links both with their pass rates."""
    make_run(tmp_path / "runs" / "alpha", {("m", "c1"): "pp", ("m", "c2"): "pf"}, suite="alpha")
    make_run(tmp_path / "runs" / "beta", {("m", "c1"): "f", ("n", "c1"): "p"}, suite="beta")
    result = runner.invoke(app, ["report", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert "alpha: 3/4 counted results pass (75.0%)" in result.stdout
    index = (tmp_path / "runs" / "index.html").read_text()
    links = re.findall(r"<a href='([^']+)'>", index)
    assert links == ["alpha/report.html", "beta/report.html"]
    assert all((tmp_path / "runs" / link).is_file() for link in links)
    assert "<b>75.0%</b>" in index and "<b>50.0%</b>" in index
    assert "<code>n</code> 100.0%" in index  # beta's best model


def test_a_broken_run_is_named_and_the_rest_written(tmp_path: Path) -> None:
    """One unreadable run: its line says why, the others are written, exit 2."""
    make_run(tmp_path / "runs" / "good", {("m", "c1"): "p"})
    make_run(tmp_path / "runs" / "old", {("m", "c1"): "p"}, format_version=99)
    result = runner.invoke(app, ["report", str(tmp_path / "runs"), "--format", "json"])
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert [r["problem"] is None for r in data["runs"]] == [True, False]
    assert "format version 99" in result.stderr
    index = (tmp_path / "runs" / "index.html").read_text()
    assert "no report:" in index and "good/report.html" in index


def test_a_folder_without_runs_is_refused(tmp_path: Path) -> None:
    """No run.json anywhere: one line, exit 2."""
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    result = runner.invoke(app, ["report", str(tmp_path / "empty")])
    assert result.exit_code == 2 and "folder of runs" in result.stderr
