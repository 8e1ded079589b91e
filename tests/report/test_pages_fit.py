"""report.html and the compare page at 1280 px and at 390 px (a phone) in headless Chromium:
geometry a user would notice. The page never scrolls sideways; every task of a plan of up to
30 tasks is inside the drawn graph without overlapping another; beyond 30 tasks the graph
zooms and pans; a cycle's back edge is drawn; labels stay at least 11 px; compare's verdict is
on screen. Skipped (with the reason) where Chromium or Playwright is missing.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.report import write_report
from tests.report._browser import chromium, page, skip_without_browser
from tests.report._plans import crossing_seven, cyclic, wide, with_plans
from tests.report._synthetic import make_run

pytestmark = skip_without_browser()

WIDTHS = (1280, 390)
PLANS = {"c7": crossing_seven(), "c30": wide(30), "c60": wide(60), "cyc": cyclic()}
MIN_LABEL_PX = 11

# What the page shows of an opened sample's graph, measured in the page (CSS pixels).
MEASURE = """box => {
 const svg = box.querySelector('svg.plan-graph'); const s = svg.getBoundingClientRect();
 const clip = box.parentElement.getBoundingClientRect();
 const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
 const scale = svg.getScreenCTM().a;
 return {
  page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
  svg: r(svg), clip: [clip.left, clip.top, clip.right, clip.bottom],
  nodes: [...svg.querySelectorAll('g.task rect')].map(r),
  labels: [...svg.querySelectorAll('text')]
   .map(t => parseFloat(getComputedStyle(t).fontSize) * scale),
  backEdges: [...svg.querySelectorAll('path.back-edge')]
   .map(p => [p.getAttribute('data-edge'), p.getTotalLength()]),
  crossings: +svg.getAttribute('data-crossings'),
 };
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def report_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    outcomes = {(m, c): "pf" for m in ("model-a", "model-b-with-a-longer-name") for c in PLANS}
    run = with_plans(make_run(tmp_path_factory.mktemp("pages") / "run", outcomes), PLANS)
    return write_report(run).report_html.as_uri()


def _open_graph(pg: Any) -> Any:
    """The opened sample's graph box, once drawn at the width the page gives it."""
    box = pg.locator('.model-block[data-model="model-a"] .graph-box')
    pg.wait_for_function(
        "b => { const s = b.querySelector('svg');"
        " return s && Math.abs(+s.getAttribute('width') - b.clientWidth) < 1; }",
        arg=box.element_handle(),
        timeout=10_000,
    )
    return box


def _inside(inner: list[float], outer: list[float], slack: float = 0.5) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def _overlaps(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def _assert_no_overlap(nodes: list[list[float]]) -> None:
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            assert not _overlaps(a, b), f"task boxes overlap: {a} and {b}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", ["c7", "c30", "cyc"])
def test_up_to_30_tasks_every_task_is_visible_without_scrolling_sideways(
    browser: Any, report_url: str, case: str, width: int
) -> None:
    """Every task box lies inside the graph's box and the window, none overlaps another, the
    graph box needs no scroll bar, the page none either, and labels are at least 11 px."""
    with page(
        f"{report_url}#case={case}&model=model-a&sample=0", width=width, browser=browser
    ) as w:
        box = _open_graph(w.page)
        m = box.evaluate(MEASURE)
        assert m["page"][0] <= m["page"][1]
        assert len(m["nodes"]) == len(PLANS[case]["tasks"])
        for node in m["nodes"]:
            assert _inside(node, m["svg"]) and _inside(node, m["clip"])
            assert node[2] <= width
        _assert_no_overlap(m["nodes"])
        scroll = box.evaluate("b => [b.parentElement.scrollWidth, b.parentElement.clientWidth]")
        assert scroll[0] <= scroll[1], "the graph's box scrolls sideways"
        assert min(m["labels"]) >= MIN_LABEL_PX
        assert w.console_errors == [] and w.outside_requests == []


def test_the_layout_uncrosses_edges_the_task_order_would_cross(
    browser: Any, report_url: str
) -> None:
    """In task order, a-y and b-x cross; the barycenter sweeps put y under a and x under b."""
    with page(f"{report_url}#case=c7&model=model-a&sample=0", width=1280, browser=browser) as w:
        m = _open_graph(w.page).evaluate(MEASURE)
        assert m["crossings"] == 0
        order = _open_graph(w.page).evaluate(
            "b => { const x = id => b.querySelector(`g[data-task='${id}'] rect`)"
            ".getBoundingClientRect().x;"
            " return [x('a') < x('b'), x('y') < x('x')]; }"
        )
        assert order == [True, True]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_cycles_back_edges_are_drawn_with_a_legend(
    browser: Any, report_url: str, width: int
) -> None:
    """The cycle parse -> transform -> validate -> parse has one edge drawn against the
    top-down order, and retry's dependency on itself is a loop: both are drawn, dashed, and
    the legend says what they are; every other edge points down."""
    with page(f"{report_url}#case=cyc&model=model-a&sample=0", width=width, browser=browser) as w:
        box = _open_graph(w.page)
        m = box.evaluate(MEASURE)
        back = dict(m["backEdges"])
        assert set(back) == {"validate>parse", "retry>retry"}
        assert all(length > 20 for length in back.values())
        assert box.locator("path.back-edge").first.get_attribute("stroke-dasharray")
        legend = box.locator(".graph-legend")
        assert "back edge" in (legend.text_content() or "")
        right = legend.locator("text").evaluate("t => t.getBoundingClientRect().right")
        assert right <= m["svg"][2]  # the legend's text is not cut
        tops = box.evaluate(
            "b => Object.fromEntries([...b.querySelectorAll('g.task')].map(g => "
            "[g.getAttribute('data-task'), g.querySelector('rect').getBoundingClientRect().top]))"
        )
        assert tops["load"] < tops["parse"] < tops["transform"] < tops["validate"] < tops["report"]


@pytest.mark.parametrize("width", WIDTHS)
def test_beyond_30_tasks_the_graph_zooms_and_pans(
    browser: Any, report_url: str, width: int
) -> None:
    """60 tasks: the graph sits in a box of its own with zoom buttons; at actual size labels
    are readable; "fit" shows every task inside the box; zooming in enlarges the tasks;
    dragging moves them; the page never scrolls sideways."""
    with page(f"{report_url}#case=c60&model=model-a&sample=0", width=width, browser=browser) as w:
        pg = w.page
        box = _open_graph(pg)
        m = box.evaluate(MEASURE)
        assert m["page"][0] <= m["page"][1]
        assert min(m["labels"]) >= MIN_LABEL_PX
        _assert_no_overlap(m["nodes"])
        box.locator('button[data-zoom="fit"]').click()
        m = box.evaluate(MEASURE)
        assert len(m["nodes"]) == 60
        assert all(_inside(node, m["svg"]) for node in m["nodes"])
        fit_width = m["nodes"][0][2] - m["nodes"][0][0]
        box.locator('button[data-zoom="zoom-in"]').click()
        m = box.evaluate(MEASURE)
        assert m["nodes"][0][2] - m["nodes"][0][0] > fit_width * 1.2
        svg = m["svg"]
        first = box.locator("g.task rect").first
        before = first.bounding_box()
        assert before is not None
        x, y = (svg[0] + svg[2]) / 2, (svg[1] + svg[3]) / 2
        pg.mouse.move(x, y)
        pg.mouse.down()
        pg.mouse.move(x + 40, y + 30, steps=4)
        pg.mouse.up()
        after = first.bounding_box()
        assert after is not None
        assert after["x"] - before["x"] == pytest.approx(40, abs=2)
        assert after["y"] - before["y"] == pytest.approx(30, abs=2)
        assert w.console_errors == [] and w.outside_requests == []


def test_at_390_px_an_opened_sample_fits_and_the_chart_keeps_its_text(
    browser: Any, report_url: str
) -> None:
    """A phone-width page: the bar chart's labels keep their size, the violation text wraps
    inside the window, the task table scrolls inside its own box, and the page does not."""
    with page(f"{report_url}#case=cyc&model=model-a&sample=1", width=390, browser=browser) as w:
        pg = w.page
        _open_graph(pg)
        sizes = pg.evaluate(
            "[...document.querySelectorAll('#pass-chart .bar-label, #pass-chart .bar-value,"
            " #pass-chart .bar-axis span')].map(e => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert sizes and min(sizes) >= MIN_LABEL_PX
        parts = pg.locator("#pass-chart .bar-row > *").evaluate_all(
            "es => es.map(e => [e.getBoundingClientRect().left, e.getBoundingClientRect().right,"
            " e.scrollWidth <= e.clientWidth])"
        )
        assert parts and all(left >= 0 and right <= 390 and fits for left, right, fits in parts)
        view = pg.locator('.model-block[data-model="model-a"] .sample-view')
        for li in view.locator(".viol li").all():
            b = li.bounding_box()
            assert b is not None and b["x"] >= 0 and b["x"] + b["width"] <= 390
        table_box = view.locator("table").locator("xpath=..")
        b = table_box.bounding_box()
        assert b is not None and b["x"] + b["width"] <= 390
        widths = pg.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1]
        assert w.console_errors == [] and w.outside_requests == []


def _compare_page(tmp_path: Path) -> Path:
    """Two runs of the four plans: c7 flips pass -> fail with a cyclic candidate plan."""
    base = {("model-a", c): "pp" for c in PLANS}
    cand = {**base, ("model-a", "c7"): "ff"}
    b = with_plans(make_run(tmp_path / "base", base), PLANS)
    c = with_plans(make_run(tmp_path / "cand", cand), {**PLANS, "c7": cyclic()})
    result = CliRunner().invoke(app, ["compare", str(b), str(c), "--format", "html"])
    assert result.exit_code == 0, result.output
    html = tmp_path / "compare.html"
    html.write_text(result.stdout, encoding="utf-8")
    return html


@pytest.mark.parametrize("width", WIDTHS)
def test_the_compare_verdict_and_both_graphs_are_on_screen(
    browser: Any, tmp_path: Path, width: int
) -> None:
    """At either width the verdict cell is on screen when the page opens (at 390 px the
    table becomes one card per model, verdict right under the model's name); an opened
    flip's two graphs fit the window."""
    html = _compare_page(tmp_path)
    with page(html.as_uri(), width=width, height=844, browser=browser) as w:
        pg = w.page
        verdict = pg.locator("table#verdicts td.verdict-cell").first
        b = verdict.bounding_box()
        assert b is not None
        assert b["x"] >= 0 and b["x"] + b["width"] <= width
        assert b["y"] >= 0 and b["y"] + b["height"] <= 844
        assert "no significant difference" in verdict.inner_text()
        if width < 600:
            base_cell = pg.locator("table#verdicts td[data-label='base']").first.bounding_box()
            assert base_cell is not None and b["y"] < base_cell["y"]  # the verdict first
        pg.locator("details.flip summary").first.click()
        for side in ("base", "cand"):
            box = pg.locator(f".graph-{side} .graph-box")
            pg.wait_for_function(
                "b => { const s = b.querySelector('svg');"
                " return s && Math.abs(+s.getAttribute('width') - b.clientWidth) < 1; }",
                arg=box.element_handle(),
                timeout=10_000,
            )
            m = box.evaluate(MEASURE)
            assert all(_inside(n, m["svg"]) and n[2] <= width for n in m["nodes"])
            _assert_no_overlap(m["nodes"])
        assert pg.locator(".graph-cand path.back-edge").count() >= 1
        widths = pg.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1]
        assert w.console_errors == [] and w.outside_requests == []


def _random_plan(rng: random.Random) -> dict[str, Any]:
    """Up to 30 tasks; dependencies mostly on earlier tasks, some on later ones (cycles), on
    itself, or on no task at all (dangling); some needs-only edges."""
    n = rng.randint(1, 30)
    tasks = []
    for i in range(n):
        deps = {f"t{rng.randrange(i)}" for _ in range(rng.randint(0, 3)) if i}
        if rng.random() < 0.08:
            deps.add(f"t{rng.randrange(n)}")
        if rng.random() < 0.03:
            deps.add(f"t{i}")
        if rng.random() < 0.05:
            deps.add("nowhere")
        task: dict[str, Any] = {"id": f"t{i}", "depends_on": sorted(deps)}
        if i and rng.random() < 0.1:
            task["needs"] = [{"name": "x", "task": f"t{rng.randrange(i)}"}]
        tasks.append(task)
    return {"tasks": tasks}


def _acyclic(n: int, edges: list[tuple[int, int]]) -> bool:
    succ: dict[int, list[int]] = {i: [] for i in range(n)}
    indeg = [0] * n
    for a, b in edges:
        succ[a].append(b)
        indeg[b] += 1
    ready = [i for i in range(n) if not indeg[i]]
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for w in succ[v]:
            indeg[w] -= 1
            if not indeg[w]:
                ready.append(w)
    return seen == n


LAYOUT = """([plans, width]) => plans.map(p => { const l = graphLayout(p, width);
 return {nodes: l.nodes.map(v => [v.x, v.y, v.x + v.w, v.y + v.h]), w: l.w,
  edges: l.edges.map(e => [e.from, e.to, e.back])}; })"""


def test_the_layout_holds_on_300_random_plans(browser: Any, report_url: str) -> None:
    """The page's own layout function on seeded random plans of 1 to 30 tasks, at the graph
    widths of a 390 px and a 1280 px window: every task inside the width, no two overlapping,
    every edge not marked back points down, and the back edges are exactly what must go for
    the rest to be acyclic (none when the plan has no cycle)."""
    rng = random.Random(24)
    plans = [_random_plan(rng) for _ in range(300)]
    with page(report_url, width=1280, browser=browser) as w:
        for width in (332, 1104):
            for plan, lay in zip(plans, w.page.evaluate(LAYOUT, [plans, width]), strict=True):
                n = len(plan["tasks"])
                assert len(lay["nodes"]) == n and lay["w"] <= width
                for node in lay["nodes"]:
                    assert node[0] >= 0 and node[2] <= width
                _assert_no_overlap(lay["nodes"])
                kept = [(a, b) for a, b, back in lay["edges"] if not back]
                for a, b in kept:
                    assert lay["nodes"][b][1] > lay["nodes"][a][1]
                everything = [(a, b) for a, b, _ in lay["edges"]]
                assert _acyclic(n, kept)
                assert any(back for *_, back in lay["edges"]) == (not _acyclic(n, everything))
