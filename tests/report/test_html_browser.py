"""report.html in headless Chromium: the verdict, filters, opening a case and a sample, deep
links, and no console error or outside request. Skipped (with the reason) where Chromium or
Playwright is missing; `.ci/run` installs Chromium when the machine allows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.report import write_report
from tests.report._browser import page, skip_without_browser
from tests.report._synthetic import make_run

pytestmark = skip_without_browser()

OUTCOMES = {
    ("a", "c1"): "pp",
    ("a", "c2"): "pf",
    ("a", "c10"): "uw",
    ("a", "c100"): "pp",
    ("b", "c1"): "ff",
    ("b", "c2"): "pp",
    ("b", "c10"): "pm",
    ("b", "c100"): "pp",
}


@pytest.fixture
def report_url(tmp_path: Path) -> str:
    return write_report(make_run(tmp_path / "r", OUTCOMES)).report_html.as_uri()


def _case_ids(w) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.get_attribute("data-case") for r in w.page.locator("tr.row").all()]


def test_report_page(report_url: str) -> None:
    """Verdict shown; rows natural-sorted by id; filters by status, check, model and tag; a
    click opens a case, a chip opens another sample; the address follows every click."""
    with page(report_url) as w:
        pg = w.page
        assert "a vs b: no significant difference" in pg.locator("#verdicts").inner_text()
        warn_cell = pg.locator("td.w")
        assert warn_cell.count() == 1 and "warn" in warn_cell.inner_text()
        assert "207,34,46" not in (warn_cell.get_attribute("style") or "")
        pg.select_option("#sort", "id")
        assert _case_ids(w) == ["c1", "c2", "c10", "c100"]
        pg.select_option("#fcheck", label="acyclic")
        assert _case_ids(w) == ["c1", "c2"]
        pg.select_option("#fmodel", label="b")
        assert _case_ids(w) == ["c1"]
        assert pg.locator("#cases thead th").all_inner_texts() == ["case", "tags", "b"]
        pg.select_option("#fmodel", "all")
        pg.select_option("#fcheck", "all")
        pg.select_option("#fstatus", "unparseable")
        assert _case_ids(w) == ["c10"]
        pg.select_option("#fstatus", "all")
        pg.select_option("#ftag", label="t1")
        assert len(_case_ids(w)) == 4

        pg.locator('tr.row[data-case="c10"]').click()
        pg.wait_for_function("location.hash === '#case=c10'", timeout=10_000)
        assert pg.url.endswith("#case=c10")
        block = pg.locator('.model-block[data-model="a"]')
        view = block.locator(".sample-view")
        assert view.get_attribute("data-sample") == "0"  # the unparseable one first
        text = view.inner_text()
        assert "parse error: unparseable: synthetic detail" in text
        assert "Sorry, I cannot plan that." in text  # the raw answer is shown open
        view.locator("summary", has_text="prompt").click()
        assert "Plan this goal: c10" in view.inner_text()

        block.locator('button.chip[data-sample="1"]').click()
        view = block.locator(".sample-view")
        assert view.get_attribute("data-sample") == "1"
        assert "[isolated_task, warning] fetch: task fetch is isolated" in view.inner_text()
        assert view.locator("g.warn-task").count() == 1
        pg.wait_for_function("location.hash === '#case=c10&model=a&sample=1'", timeout=10_000)
        assert pg.url.endswith("#case=c10&model=a&sample=1")

        pg.locator('tr.row[data-case="c2"]').click()
        failing = pg.locator(
            'tr[data-case="c2"] + tr.detail .model-block[data-model="a"] .sample-view'
        )
        assert failing.get_attribute("data-sample") == "1"
        assert failing.locator("g.bad-task").count() == 1
        assert failing.locator("path.bad-edge").count() == 1
        assert w.console_errors == [] and w.outside_requests == []


def test_deep_link_opens_the_exact_case_and_sample_in_view(report_url: str, tmp_path: Path) -> None:
    """#case=c10 opens c10 (not c100, which contains it), at the linked sample, in view."""
    with page(report_url + "#case=c10&model=b&sample=1") as w:
        pg = w.page
        assert pg.locator("tr.row.open").get_attribute("data-case") == "c10"
        view = pg.locator('.model-block[data-model="b"] .sample-view')
        assert view.get_attribute("data-sample") == "1" and "missing" in view.inner_text()
        box = pg.locator('.model-block[data-model="b"]').bounding_box()
        assert box is not None and 0 <= box["y"] < 900
        pg.screenshot(path=str(tmp_path / "report.png"), full_page=False)
        assert w.console_errors == [] and w.outside_requests == []


def test_a_long_plan_fits_its_box_and_the_page_does_not_scroll(tmp_path: Path) -> None:
    """A 12-task chain with long ids: its graph is laid out top-down and fits the sample's box
    (it used to run sideways out of it); the wide task table scrolls inside its own box, and
    the page itself never needs a horizontal scroll bar."""
    import json

    run = make_run(tmp_path / "wide", {("a", "c1"): "p", ("b", "c1"): "p"})
    path = run / "results.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    chain = [
        {
            "id": f"step_{i}_with_a_long_identifier",
            "description": f"Step {i}: do something described at some length",
            "depends_on": [f"step_{i - 1}_with_a_long_identifier"] if i else [],
        }
        for i in range(12)
    ]
    for r in rows:
        r["plan"] = {**r["plan"], "tasks": chain}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    url = write_report(run).report_html.as_uri()
    with page(url + "#case=c1&model=a&sample=0") as w:
        pg = w.page
        view = pg.locator('.model-block[data-model="a"] .sample-view')
        assert view.locator("svg.plan-graph").count() == 1
        widths = pg.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1]
        graph_box = view.locator(".scroll").first
        inner, outer = graph_box.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert inner <= outer  # the graph needs no sideways scrolling
        tops = view.locator("g.task rect").evaluate_all(
            "rs => rs.map(r => r.getBoundingClientRect().top)"
        )
        assert tops == sorted(tops) and len(set(tops)) == 12  # one layer per step, downwards
        assert w.console_errors == [] and w.outside_requests == []


def test_the_offending_argument_is_highlighted_in_the_task_table(tmp_path: Path) -> None:
    """An arguments_valid violation marks its argument in the task table's arguments column,
    with the message as its title; a sound argument stays plain."""
    from tests.report.test_argument_checks_reported import _run

    url = write_report(_run(tmp_path / "args", ["overwrite"])).report_html.as_uri()
    with page(url + "#case=c1&model=m&sample=0") as w:
        view = w.page.locator('.model-block[data-model="m"] .sample-view')
        assert view.locator("th").all_inner_texts()[-1] == "arguments"
        bad = view.locator('span.bad-arg[data-arg="mode"]')
        assert bad.count() == 1
        assert bad.inner_text() == 'mode="overwrite"'
        assert "must be one of" in (bad.get_attribute("title") or "")
        assert view.locator('span.arg[data-arg="text"]').inner_text() == "text=\u2190 fetch"
        assert view.locator('span.bad-arg[data-arg="text"]').count() == 0
        assert w.console_errors == [] and w.outside_requests == []
