"""``planeval report`` writes junit.xml and results.csv in a forked process (two cores): the
files are the ones one process writes, and a failure there is one line, not a traceback.
The command runs as a subprocess so that it is single-threaded, as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.report import load_run, write_report
from tests.report._synthetic import make_run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")

OUTCOMES = {
    (model, f"case-{c}"): "pfuwmse"[(c + i) % 7] * 2 + "pf"[c % 2]
    for i, model in enumerate(("model-a", "model-b", "model-c"))
    for c in range(40)
}


def _report(run: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", "report", str(run), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_forked_tables_equal_one_process(tmp_path: Path) -> None:
    """The four files of the command equal those written in one process."""
    run = make_run(tmp_path / "run", OUTCOMES)
    done = _report(run, tmp_path / "forked")
    assert done.returncode == 0, done.stderr
    write_report(load_run(run), tmp_path / "single", processes=1)
    for name in ("junit.xml", "results.csv", "summary.md", "report.html"):
        forked = (tmp_path / "forked" / name).read_bytes()
        assert forked == (tmp_path / "single" / name).read_bytes(), name
    assert b"<testcase" in (tmp_path / "forked" / "junit.xml").read_bytes()


def test_a_failure_in_the_forked_writer_is_one_line(tmp_path: Path) -> None:
    """junit.xml cannot be written (a folder is in its place): exit 4 with one line naming
    it, no traceback, the other files whole and no temp file left."""
    run = make_run(tmp_path / "run", OUTCOMES)
    out = tmp_path / "out"
    (out / "junit.xml").mkdir(parents=True)
    (out / "junit.xml" / "keep").write_text("not empty", encoding="utf-8")
    done = _report(run, out)
    assert done.returncode == 4, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("planeval: error:"), done.stderr
    assert "junit.xml" in lines[0]
    assert "Traceback" not in done.stderr
    assert (out / "summary.md").read_text(encoding="utf-8").startswith("#")
    assert (out / "report.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert not list(out.glob(".*.tmp"))
