"""``compare --format html`` (in headless Chromium) and the markdown plan diff."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness._cli.main import app
from tests.report._browser import page, skip_without_browser
from tests.report._synthetic import make_run

runner = CliRunner()

EXTRA = {"id": "check", "description": "Check it", "depends_on": ["use"]}


def _runs(tmp_path: Path) -> tuple[Path, Path]:
    """c1 flips pass -> fail and its candidate plan gains a task; c2 flips fail -> pass."""
    base = {("m", "c1"): "pp", ("m", "c2"): "ff", ("m", "c3"): "pp", ("m", "gone"): "p"}
    cand = {("m", "c1"): "ff", ("m", "c2"): "pp", ("m", "c3"): "pp"}
    b, c = make_run(tmp_path / "base", base), make_run(tmp_path / "cand", cand)
    path = c / "results.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    for r in rows:
        if r["case"] == "c1":
            r["plan"] = {**r["plan"], "tasks": [*r["plan"]["tasks"], EXTRA]}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return b, c


def test_markdown_has_a_short_plan_diff(tmp_path: Path) -> None:
    """The worst flips get one line each: what changed in the plan, pass -> fail first."""
    b, c = _runs(tmp_path)
    md = runner.invoke(app, ["compare", str(b), str(c), "--format", "markdown"]).stdout
    section = md.split("### What changed in the plans")[1]
    first, second = [x for x in section.splitlines() if x.startswith("- ")][:2]
    assert first.startswith("- **pass -> fail** `m` / `c1` (2/2 -> 0/2)")
    assert "tasks +1 (check)" in first and "edges +1 (use->check)" in first
    assert "new: [acyclic] cycle use -> fetch -> use" in first
    assert second.startswith("- **fail -> pass** `m` / `c2`") and "gone: [acyclic]" in second
    assert "3 case(s) compared; left out: 1 case(s) only in base" in md


@skip_without_browser()
def test_compare_page(tmp_path: Path) -> None:
    """The page shows the headline, the verdict, the check changes and the flips; opening a
    flip draws both plans side by side with the added task and edge marked, and links it."""
    b, c = _runs(tmp_path)
    result = runner.invoke(app, ["compare", str(b), str(c), "--format", "html"])
    assert result.exit_code == 0
    html = tmp_path / "compare.html"
    html.write_text(result.stdout, encoding="utf-8")
    with page(html.as_uri()) as w:
        pg = w.page
        assert "3 case(s) compared" in pg.locator("#headline").inner_text()
        assert "no significant difference" in pg.locator("#verdicts").inner_text()
        flips = pg.locator("details.flip")
        assert flips.count() == 2
        assert flips.nth(0).locator("summary").inner_text().startswith("pass -> fail")
        flips.nth(0).locator("summary").click()
        pg.wait_for_function("location.hash === '#flip=m%2Fc1'", timeout=10_000)
        assert pg.url.endswith("#flip=m%2Fc1")
        base, cand = flips.nth(0).locator(".graph-base"), flips.nth(0).locator(".graph-cand")
        assert base.locator("svg").count() == 1 and cand.locator("svg").count() == 1
        assert cand.locator('g.added-task[data-task="check"]').count() == 1
        assert cand.locator('path.added-edge[data-edge="use>check"]').count() == 1
        assert cand.locator("g.bad-task").count() == 1  # the candidate's acyclic violation
        assert "task added: check" in flips.nth(0).inner_text()
        pg.screenshot(path=str(html.parent / "compare.png"), full_page=True)
        assert w.console_errors == [] and w.outside_requests == []
