"""report.html with its case table in a side folder (``report-data-<hash>/``): the page's size
does not grow with the cases, the folder is written whole and replaces an older one, and in
headless Chromium (opened from disk) the table reads only the parts a page, a filter or an
opened case needs while searching, sorting, filtering and deep links work as with the data
in the page. Browser tests skip (with the reason) where Chromium or Playwright is missing.
"""

from __future__ import annotations

import errno
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import harness.report._write as write_module
from harness._cli.main import app
from harness.report import load_run, summarize, write_report
from harness.report._html import INLINE_BYTES, render_report_page
from harness.report._write import write_report_page
from tests.report._browser import chromium, page, skip_without_browser
from tests.report._synthetic import make_run

PAGE_WITHOUT_DATA = 120_000
"""report.html's bytes besides the case table's data (CSS, scripts, summary tables): ~60 KB."""


def _many_cases(run_dir: Path, cases: int) -> Path:
    """A run of ``cases`` cases of one model and one sample (every third one failing), its
    rows written from two templates (fast enough for 100,000 cases)."""
    make_run(run_dir, {("a", "c0"): "f", ("a", "c1"): "p"})
    path = run_dir / "results.jsonl"
    fail, ok = path.read_text(encoding="utf-8").splitlines()
    with path.open("w", encoding="utf-8") as out:
        for i in range(cases):
            line = fail if i % 3 == 0 else ok
            out.write(
                line.replace('"case": "c0"', f'"case": "c{i}"').replace(
                    '"case": "c1"', f'"case": "c{i}"'
                )
                + "\n"
            )
    return run_dir


def _data_folders(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "report-data-" in p.name)


def _parts(folder: Path, kind: str) -> list[Any]:
    """The parts of ``kind`` in a side folder, decoded, in order."""
    out: list[Any] = []
    for f in sorted(folder.glob(f"{kind}-*.js")):
        m = re.fullmatch(
            rf"planevalReport\.{kind}\((\d+),(.*)\);\n", f.read_text(encoding="utf-8"), re.S
        )
        assert m is not None, f.name
        assert int(m.group(1)) == len(out)
        out.append(json.loads(m.group(2)))
    return out


@pytest.mark.slow
def test_the_page_does_not_grow_with_the_cases(tmp_path: Path) -> None:
    """At 20,000 and at 100,000 cases report.html is the same size within 1 KB and under
    PAGE_WITHOUT_DATA (the case list was 45 bytes a case inside it: 4.5 MB at 100,000); every
    case is in the side folder, in parts of whole table pages."""
    sizes = {}
    for n in (20_000, 100_000):
        files = write_report(_many_cases(tmp_path / f"r{n}", n))
        html = files.report_html.read_text(encoding="utf-8")
        sizes[n] = len(html.encode())
        assert files.report_data is not None and files.report_data.name in html
        cases = _parts(files.report_data, "cases")
        assert sum(len(p) for p in cases) == n
        assert {c["id"] for p in cases for c in p} == {f"c{i}" for i in range(n)}
        index = json.loads(re.search(r'id="case-index">(.*?)</script>', html).group(1))  # type: ignore[union-attr]
        assert index["per"] % 50 == 0 and all(len(p) == index["per"] for p in cases[:-1])
        assert max(f.stat().st_size for f in files.report_data.iterdir()) < 2 * 256_000
    assert sizes[100_000] < PAGE_WITHOUT_DATA
    assert abs(sizes[100_000] - sizes[20_000]) < 1_000


def test_a_small_run_stays_one_file(tmp_path: Path) -> None:
    """Under INLINE_BYTES of case data the page holds it all and no folder is written."""
    files = write_report(_many_cases(tmp_path / "r", 200))
    assert files.report_data is None and _data_folders(files.report_html.parent) == []
    assert INLINE_BYTES < len(files.report_html.read_bytes()) + INLINE_BYTES < 2 * INLINE_BYTES


@pytest.mark.slow
def test_a_rewritten_report_leaves_no_stale_side_files(tmp_path: Path) -> None:
    """``planeval report`` names the folder it wrote; a report written again over a changed
    run gets a new folder and the old one goes; a small report over a large one leaves none;
    a crash's half-written folder is removed."""
    run = _many_cases(tmp_path / "r", 30_000)
    result = CliRunner().invoke(app, ["report", str(run)])
    assert result.exit_code == 0, result.output
    [first] = [run / name for name in _data_folders(run)]
    assert f"wrote {first}/ (report.html's case table: keep it beside the page)" in result.output
    (run / f".{first.name}.abc.tmp").mkdir()  # what a killed writer leaves
    rows = (
        (run / "results.jsonl")
        .read_text(encoding="utf-8")
        .replace('"status": "pass"', '"status": "fail"', 1)
    )
    (run / "results.jsonl").write_text(rows, encoding="utf-8")
    second = write_report(run).report_data
    assert second is not None and second != first
    assert _data_folders(run) == [second.name]
    assert second.name in (run / "report.html").read_text(encoding="utf-8")
    again = write_report(run).report_data  # the same content: the same folder, rewritten
    assert again == second and _data_folders(run) == [second.name]
    _many_cases(run, 10)
    assert write_report(run).report_data is None and _data_folders(run) == []


@pytest.mark.slow
def test_a_failed_write_leaves_the_old_report_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills while the new side folder is written: the error comes out, the old page
    and its folder are as they were, and nothing half-written is left."""
    run = _many_cases(tmp_path / "r", 30_000)
    old = write_report(run)
    assert old.report_data is not None
    before = {p.name: p.read_bytes() for p in [old.report_html, *old.report_data.iterdir()]}
    _many_cases(run, 31_000)
    summary = summarize(load_run(run))
    calls = iter(range(1000))

    def full_disk(data: bytes) -> bytes:
        if next(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return data

    monkeypatch.setattr(write_module, "scrub_bytes", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_report_page(render_report_page(summary), run / "report.html")
    assert _data_folders(run) == [old.report_data.name]
    after = {p.name: p.read_bytes() for p in [old.report_html, *old.report_data.iterdir()]}
    assert after == before


@pytest.mark.parametrize("second_path", ["same", "symlink"])
def test_two_writers_of_one_folder_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second_path: str
) -> None:
    """Two reports written into one folder at once (two ``planeval report`` of one run): the
    second waits for the first, so neither removes the other's side folder as stale and the
    page left names a folder that is there; also when the second names the folder by another
    path (a symlink: the lock is on the folder itself). (Before, the second writer removed the
    first's new folder before the first had written the page naming it: a page without its
    data.)"""
    out = tmp_path / "out"
    out.mkdir()
    second_out = out
    if second_path == "symlink":
        second_out = tmp_path / "link"
        second_out.symlink_to(out, target_is_directory=True)
    pages = []
    for name, outcomes in (("a", {("m", "c0"): "p"}), ("b", {("m", "c0"): "f"})):
        make_run(tmp_path / name, outcomes)
        pages.append(render_report_page(summarize(load_run(tmp_path / name)), inline_bytes=0))
    assert pages[0].folder and pages[1].folder and pages[0].folder != pages[1].folder
    first_has_its_folder, go_on = threading.Event(), threading.Event()
    real_write = write_module.atomic_write_text

    def paused_page_write(path: Path, text: str, *args: Any, **kwargs: Any) -> None:
        if text == pages[0].html:  # the first writer: its folder is written, its page not yet
            first_has_its_folder.set()
            go_on.wait(timeout=60)
        real_write(path, text, *args, **kwargs)

    monkeypatch.setattr(write_module, "atomic_write_text", paused_page_write)
    errors: list[BaseException] = []

    def write(page: Any) -> None:
        try:
            write_report_page(page, (out if page is pages[0] else second_out) / "report.html")
        except BaseException as exc:  # pragma: no cover - reported by the assertion below
            errors.append(exc)

    first = threading.Thread(target=write, args=(pages[0],))
    first.start()
    assert first_has_its_folder.wait(timeout=60)
    second = threading.Thread(target=write, args=(pages[1],))
    second.start()
    second.join(timeout=2)  # it waits for the first (before: it finished here)
    go_on.set()
    first.join(timeout=60)
    second.join(timeout=60)
    assert not errors and not first.is_alive() and not second.is_alive()
    html = (out / "report.html").read_text(encoding="utf-8")
    [named] = [p.folder for p in pages if p.folder is not None and p.folder in html]
    assert _data_folders(out) == [named]
    assert html == pages[1].html  # the second writer went second


# In Chromium: 130 cases, 2 models, 2 samples, in parts of 50 cases (3 parts).
OUTCOMES = {
    (model, f"case-{i}"): ("pf" if i % 7 == 0 else "up" if i % 11 == 0 else "pp")
    if model == "a"
    else ("fm" if i % 13 == 0 else "pp")
    for i in range(130)
    for model in ("a", "b")
}


def _write(run: Path, folder: Path, inline: bool) -> str:
    summary = summarize(load_run(run))
    report = render_report_page(summary, inline_bytes=None if inline else 0, part_bytes=1)
    folder.mkdir()
    write_report_page(report, folder / "report.html")
    return (folder / "report.html").as_uri()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def urls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("lazy")
    run = make_run(root / "run", OUTCOMES)
    return {"side": _write(run, root / "side", False), "inline": _write(run, root / "inline", True)}


def _ids(w: Any) -> list[str]:
    return [r.get_attribute("data-case") for r in w.page.locator("tr.row").all()]


def _settle(w: Any) -> None:
    w.page.wait_for_function(
        "/^cases /.test(document.getElementById('pageinfo').textContent)", timeout=20_000
    )


def _views(w: Any) -> list[tuple[str, list[str]]]:
    """The table (page info and ids) under each of a set of searches, filters and orders."""
    pg = w.page
    out = []
    steps = [
        ("#q", "case-12"),
        ("#q", ""),
        ("#sort", "id"),
        ("#fstatus", "failing"),
        ("#fmodel", "1"),
        ("#fstatus", "missing"),
        ("#fstatus", "all"),
        ("#fmodel", "all"),
        ("#sort", "worst"),
    ]
    for selector, value in steps:
        if selector == "#q":
            pg.fill(selector, value)
        else:
            pg.select_option(selector, value)
        _settle(w)
        out.append((pg.locator("#pageinfo").inner_text(), _ids(w)))
    return out


pytestmark_browser = skip_without_browser()


@pytestmark_browser
def test_the_table_reads_only_the_parts_it_shows(browser: Any, urls: dict[str, str]) -> None:
    """Opening the page reads the first part only; the next page reads the second; opening a
    case reads its detail part; the worst cases come first as in the one-file page."""
    with page(urls["side"], browser=browser) as w:
        _settle(w)
        assert [re.sub(r"report-data-\w+/", "", f) for f in w.side_files] == ["cases-0000.js"]
        first = _ids(w)
        w.page.click("#next")
        _settle(w)
        assert [re.sub(r"report-data-\w+/", "", f) for f in w.side_files] == [
            "cases-0000.js",
            "cases-0001.js",
        ]
        second = _ids(w)
        assert w.page.locator("#pageinfo").inner_text() == "cases 51–100 of 130 (page 2 of 3)"
        w.page.locator(f'tr.row[data-case="{second[3]}"]').click()
        view = w.page.locator('.model-block[data-model="a"] .sample-view')
        prompt = view.locator("details", has_text="prompt").text_content()
        assert f"Plan this goal: {second[3]}" in (prompt or "")
        assert w.side_files[-1].endswith("detail-0001.js")
        assert w.console_errors == [] and w.outside_requests == []
    with page(urls["inline"], browser=browser) as w:
        _settle(w)
        assert _ids(w) == first and w.side_files == []
        w.page.click("#next")
        assert _ids(w) == second


@pytestmark_browser
def test_search_sort_and_filters_match_the_one_file_page(
    browser: Any, urls: dict[str, str]
) -> None:
    """Every search, order and filter gives the same table from the side files as from the
    data in the page (the side files all read for the first filter)."""
    views = {}
    for kind in ("side", "inline"):
        with page(urls[kind], browser=browser) as w:
            _settle(w)
            views[kind] = _views(w)
            assert w.console_errors == [] and w.outside_requests == []
            if kind == "side":
                assert len(set(w.side_files)) == 3  # every part of the case list, once
    assert views["side"] == views["inline"]
    assert sorted(views["side"][0][1]) == sorted(
        ["case-12"] + [f"case-{i}" for i in range(120, 130)]
    )
    assert views["side"][2][1][:3] == ["case-0", "case-1", "case-2"]


@pytestmark_browser
def test_a_link_to_a_case_in_a_later_part_opens_it(browser: Any, urls: dict[str, str]) -> None:
    """#case=case-129&model=b&sample=1 opens that case (in the last part) at that sample."""
    with page(urls["side"] + "#case=case-129&model=b&sample=1", browser=browser) as w:
        pg = w.page
        pg.wait_for_selector("tr.row.open", timeout=20_000)
        assert pg.locator("tr.row.open").get_attribute("data-case") == "case-129"
        view = pg.locator('.model-block[data-model="b"] .sample-view')
        assert view.get_attribute("data-sample") == "1"
        box = pg.locator('.model-block[data-model="b"]').bounding_box()
        assert box is not None and 0 <= box["y"] < 900
        assert w.console_errors == [] and w.outside_requests == []


@pytestmark_browser
def test_a_page_without_its_folder_says_what_to_do(browser: Any, tmp_path: Path) -> None:
    """report.html copied without its folder: an alert names the missing file and the folder
    to keep beside the page (no script error)."""
    url = _write(make_run(tmp_path / "run", OUTCOMES), tmp_path / "alone", False)
    for folder in (tmp_path / "alone").glob("report-data-*"):
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()
    with page(url, browser=browser) as w:
        alert = w.page.locator("#data-error")
        alert.wait_for(state="visible", timeout=20_000)
        text = alert.inner_text()
        assert alert.get_attribute("role") == "alert"
        assert re.search(r"Could not read report-data-\w+/cases-0000\.js", text)
        assert "keep the two together" in text
        assert all("ERR_FILE_NOT_FOUND" in e or "Failed to load" in e for e in w.console_errors)
