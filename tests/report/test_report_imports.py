"""What ``planeval report`` imports: nothing it does not use (each module costs every report's
start-up, issue 28)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape as sax_escape
from xml.sax.saxutils import quoteattr as sax_quoteattr

import pytest

from harness.report._junit import escape, quoteattr
from tests.cli_helpers import replayed_run_script


def test_report_of_a_run_with_its_prices_imports_neither_saxutils_nor_yaml(
    tmp_path: Path,
) -> None:
    """A run made by ``planeval run`` stores its prices: reporting it reads no YAML, and the
    junit writer escapes without xml.sax.saxutils (which pulls in urllib, http, email, ssl)."""
    script = (
        replayed_run_script(tmp_path)
        + """
heavy = ("yaml", "xml", "ssl", "http", "email")
before = set(m for m in sys.modules if m.split(".")[0] in heavy)
for name in list(sys.modules):
    if name.split(".")[0] in heavy or name.startswith(("harness.report", "harness.cost")):
        del sys.modules[name]
try:
    main(["report", str(root / "run")])
except SystemExit as done:
    print("exit", done.code, file=sys.stderr)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stderr.count("exit 0") == 2
    assert (tmp_path / "run" / "junit.xml").is_file()
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


@pytest.mark.parametrize(
    "text",
    ["", "plain", "a&b<c>d", 'say "hi"', "it's", "both \" and '", "line\nend\r\ttab", "&amp;"],
)
def test_junit_escaping_is_saxutils(text: str) -> None:
    """The junit writer's own escape functions give saxutils' output, byte for byte."""
    assert escape(text) == sax_escape(text)
    assert quoteattr(text) == sax_quoteattr(text)
