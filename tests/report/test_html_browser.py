"""report.html in a real headless browser: the script draws the case table and opens a case.

Skipped when no Chromium is installed. Only a file:// URL is opened, with networking features
off; nothing reaches the internet.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.report import write_report
from tests.report._synthetic import make_run

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium installed")


def _dom(url: str, profile: Path) -> str:
    assert BROWSER is not None
    result = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=3000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    )
    return result.stdout


def test_case_table_is_drawn_and_a_case_opens(tmp_path: Path) -> None:
    """All 3 cases get a row; #case=c2 filters to it and opens its plans and graph."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pp", ("a", "c2"): "pf", ("a", "c3"): "mm"})
    html = write_report(run).report_html.as_uri()
    dom = _dom(html, tmp_path / "profile")
    assert dom.count('<tr class="row">') == 3
    opened = _dom(html + "#case=c2", tmp_path / "profile2")
    assert opened.count('<tr class="row open">') == 1
    assert "[acyclic]" in opened and "<svg" in opened and "cycle use" in opened
