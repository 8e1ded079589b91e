"""Screenshots of the report and compare pages at 1280 and 390 px against committed
references (tests/report/screenshots/), compared as layout fingerprints so that fonts and
antialiasing of another machine do not fail them (see tests/report/_screenshots.py; update
with PLANEVAL_UPDATE_SCREENSHOTS=1, keep every screenshot with PLANEVAL_SCREENSHOTS=DIR).
Skipped (with the reason) where Chromium or Playwright is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.report import write_report
from tests.report._browser import chromium, page, skip_without_browser
from tests.report._plans import crossing_seven, cyclic, wide, with_plans
from tests.report._screenshots import FINGERPRINT_CSS, check_screenshot, compare_png
from tests.report._synthetic import make_run
from tests.report.test_pages_fit import _compare_page

pytestmark = skip_without_browser()

PLANS = {"c7": crossing_seven(), "c30": wide(30), "cyc": cyclic()}
DRAWN = (
    "b => { const s = b.querySelector('svg');"
    " return s && Math.abs(+s.getAttribute('width') - b.clientWidth) < 1; }"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def report_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    outcomes = {("model-a", c): "pf" for c in PLANS}
    run = with_plans(make_run(tmp_path_factory.mktemp("shots") / "run", outcomes), PLANS)
    return write_report(run).report_html.as_uri()


def _graph(pg: Any, selector: str) -> Any:
    box = pg.locator(selector)
    pg.wait_for_function(DRAWN, arg=box.element_handle(), timeout=10_000)
    return box


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("case", ["c7", "c30", "cyc"])
def test_report_graph_matches_its_reference(
    browser: Any, report_url: str, case: str, width: int, tmp_path: Path
) -> None:
    with page(
        f"{report_url}#case={case}&model=model-a&sample=0", width=width, browser=browser
    ) as w:
        box = _graph(w.page, '.model-block[data-model="model-a"] .graph-box')
        w.page.screenshot(path=str(tmp_path / f"report-{case}-{width}.page.png"))
        check_screenshot(w.page, box, f"report-{case}-{width}", tmp_path)


@pytest.mark.parametrize("width", [1280, 390])
def test_compare_flip_matches_its_reference(browser: Any, tmp_path: Path, width: int) -> None:
    html = _compare_page(tmp_path)
    with page(html.as_uri() + "#flip=model-a%2Fc7", width=width, browser=browser) as w:
        box = _graph(w.page, ".graph-cand .graph-box")
        w.page.screenshot(path=str(tmp_path / f"compare-{width}.page.png"), full_page=True)
        check_screenshot(w.page, box, f"compare-cand-{width}", tmp_path)


def test_the_comparison_ignores_fonts_and_catches_a_moved_task(
    browser: Any, report_url: str
) -> None:
    """The fingerprint of one graph drawn with another font is the same; with one task box
    moved by 12 px it differs (the comparison can fail)."""
    with page(f"{report_url}#case=cyc&model=model-a&sample=0", width=1280, browser=browser) as w:
        pg = w.page
        box = _graph(pg, '.model-block[data-model="model-a"] .graph-box')
        pg.add_style_tag(content=FINGERPRINT_CSS)
        reference = box.screenshot()
        pg.add_style_tag(content=".graph-box svg text{font-family:monospace;font-size:13px}")
        same, _ = compare_png(pg, box.screenshot(), reference)
        assert same.same and same.why.startswith("0 of"), same.why
        box.evaluate(
            "b => { const r = b.querySelector('g[data-task=\"report\"] rect');"
            " r.setAttribute('x', +r.getAttribute('x') + 12); }"
        )
        moved, _ = compare_png(pg, box.screenshot(), reference)
        assert not moved.same, moved.why
