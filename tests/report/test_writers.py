"""The four report files: summary.md, report.html, junit.xml, results.csv."""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET
from html import escape
from pathlib import Path

import pytest

from harness.report import (
    MAX_CHARS,
    load_run,
    render_html,
    render_summary_md,
    summarize,
    write_report,
)
from tests.report._synthetic import make_run


def _outcomes(models: int, cases: int, letters: str) -> dict[tuple[str, str], str]:
    return {
        (f"model-{m}", f"case-{c:04d}"): letters[(m + c) % len(letters) :]
        + letters[: (m + c) % len(letters)]
        for m in range(models)
        for c in range(cases)
    }


def test_writes_four_files(tmp_path: Path) -> None:
    """report writes summary.md, report.html, junit.xml and results.csv into the run folder."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pf", ("a", "c2"): "mu", ("b", "c1"): "pe"})
    files = write_report(run)
    for p in (files.summary_md, files.report_html, files.junit_xml, files.results_csv):
        assert p.parent == run and p.stat().st_size > 0
    assert not list(run.glob(".*.tmp"))


def test_summary_shows_rates_and_what_was_not_counted(tmp_path: Path) -> None:
    """The markdown has the per-model rate with its interval and the missing rows."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pfp", ("a", "c2"): "mpp"})
    text = write_report(run).summary_md.read_text()
    assert "| `a` | **80.0%** | 37.5–96.4% | 4 / 5 |" in text  # rounded outward
    assert "1 missing" in text and "**missing**" in text
    assert "Flaky cases (1)" in text


def test_summary_stays_under_the_comment_limit(tmp_path: Path) -> None:
    """Many models, flaky cases and missing rows: lists are cut (with a count) to fit."""
    long = "x" * 200
    outcomes = {(f"{long}-{m}", f"{long}-{c}"): "pfm" for m in range(30) for c in range(20)}
    summary = summarize(load_run(make_run(tmp_path / "r", outcomes)))
    assert len(render_summary_md(summary)) < MAX_CHARS
    small = render_summary_md(summary, max_chars=6000)
    assert len(small) < 6000
    assert "more flaky cases" in small


def test_junit_has_one_testcase_per_row_with_violations(tmp_path: Path) -> None:
    """Failures carry the violations; missing / stale / error are errors, not failures."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pfs", ("b", "c1"): "ue"})
    root = ET.parse(write_report(run).junit_xml).getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == 5
    failures = root.findall(".//failure")
    assert len(failures) == 2
    assert any("acyclic" in (f.text or "") for f in failures)
    assert {e.get("type") for e in root.findall(".//error")} == {"stale", "error"}
    assert cases[1].get("name") == "c1[a-s1]"


def test_csv_has_one_line_per_row(tmp_path: Path) -> None:
    """results.csv: one line per result, with failed checks named."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pf", ("a", "c2"): "m"})
    with write_report(run).results_csv.open() as f:
        rows = list(csv.DictReader(f))
    assert [r["status"] for r in rows] == ["pass", "fail", "missing"]
    assert rows[1]["failed_checks"] == "acyclic"


def test_html_is_self_contained(tmp_path: Path) -> None:
    """No external resource: no src/href attributes, no @import, no url(http...)."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pf", ("b", "c1"): "um"}, torn=True)
    html = write_report(run).report_html.read_text()
    assert not re.search(r"\b(src|href)\s*=", html)
    assert "@import" not in html and "url(http" not in html
    assert 'id="pass-chart"' in html and "is torn" in html
    index = re.search(r'<script type="application/json" id="case-index">(.*?)</script>', html)
    assert index is not None
    assert json.loads(index.group(1))["models"] == ["a", "b"]
    cases = re.search(r"<script>planevalReport\.cases\(0,(.*?)\);\n</script>", html, re.S)
    assert cases is not None and json.loads(cases.group(1))[0]["s"] == ["pf", "um"]


def test_html_escapes_names(tmp_path: Path) -> None:
    """Case and model ids cannot inject markup."""
    run = make_run(tmp_path / "r", {("<b>m</b>", "</script><i>c"): "p"})
    html = write_report(run).report_html.read_text()
    assert "</script><i>" not in html and "<b>m</b>" not in html


def test_html_size_is_bounded_by_the_detail_budget(tmp_path: Path) -> None:
    """Beyond the detail budget samples' detail is left out, and the page says so."""
    run = make_run(tmp_path / "r", _outcomes(2, 50, "pf"))
    summary = summarize(load_run(run))
    small = render_html(summary, budget=100)  # less than one plan
    full = render_html(summary)
    assert len(small) < len(full)
    assert "detail was left out to keep this file small" in small
    assert "detail was left out to keep this file small" not in full


def test_tags_are_shown(tmp_path: Path) -> None:
    """summary.md and report.html both show the pass rate per tag."""
    run = make_run(tmp_path / "r", {("a", "c1"): "pf", ("b", "c1"): "pp"})
    files = write_report(run)
    text = files.summary_md.read_text()
    assert "| `t1` | 75.0% | 3 / 4 | `a` 50.0% |" in text
    assert "Pass rate per tag" in files.report_html.read_text()


def test_summary_never_rounds_a_failure_away(tmp_path: Path) -> None:
    """1,999 passes of 2,000 read 99.95% in summary.md, not 100.0%."""
    run = make_run(tmp_path / "r", {("a", "c1"): "p" * 1999 + "f"})
    text = write_report(run).summary_md.read_text()
    assert "| `a` | **99.95%** |" in text
    assert "(**99.95%**, 95% CI" in text


def test_the_overall_line_and_json_totals_use_the_clustered_interval(tmp_path: Path) -> None:
    """One model, 30 cases x 5 samples, case c passing c % 6 of 5: summary.md's "Overall"
    line, the per-model row and ``report --format json``'s totals give one interval, the one
    clustered by case (the Overall line used plain Wilson over the 150 samples)."""
    from typer.testing import CliRunner

    from harness._cli.main import app
    from harness.report import load_run, summarize
    from harness.report._format import interval
    from harness.stats import wilson_interval

    outcomes = {("m", f"c{c:02d}"): "p" * (c % 6) + "f" * (5 - c % 6) for c in range(30)}
    run = make_run(tmp_path / "r", outcomes)
    s = summarize(load_run(run))
    model = s.models.iloc[0]
    clustered = interval(model["low"], model["high"])
    assert (s.total["low"], s.total["high"]) == (model["low"], model["high"])
    text = write_report(run).summary_md.read_text()
    overall = next(line for line in text.splitlines() if line.startswith("**Overall:**"))
    assert f"95% CI {clustered}" in overall
    assert interval(*wilson_interval(int(model["passed"]), 150)) not in overall
    out = CliRunner().invoke(app, ["report", str(run), "--format", "json"])
    totals = json.loads(out.stdout)["totals"]
    assert (totals["low"], totals["high"]) == pytest.approx((model["low"], model["high"]))


def test_a_check_that_only_warned_is_labelled_and_listed_after_failing_ones(
    tmp_path: Path,
) -> None:
    """isolated_task warned on 3 of 4 samples (a warning never fails a plan), acyclic failed
    on 1: acyclic comes first; isolated_task follows, labelled "(warning only)" (it was
    listed first, by its higher rate, with no label)."""
    run = make_run(tmp_path / "r", {("a", "c1"): "ww", ("a", "c2"): "wf"})
    text = write_report(run).summary_md.read_text()
    section = text.split("### Checks that fail most")[1].split("###")[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `acyclic` | `a` | 25.0% |")
    assert rows[1].startswith("| `isolated_task` | `a` | 75.0% (warning only) |")


def test_check_failure_rate_intervals_are_clustered_by_case(tmp_path: Path) -> None:
    """30 cases x 5 samples, case c failing acyclic on 5 - c % 6 samples: the check's
    failure-rate interval is the clustered one (summary.md's "Checks that fail most" printed
    plain Wilson over the 150 samples, 42.0–58.0%)."""
    from harness.report import load_run, summarize
    from harness.report._format import interval
    from harness.stats import ClusterSums, cluster_wilson

    outcomes = {("m", f"c{c:02d}"): "p" * (c % 6) + "f" * (5 - c % 6) for c in range(30)}
    run = make_run(tmp_path / "r", outcomes)
    r = summarize(load_run(run)).checks.loc[("acyclic", "m")]
    failed = [5 - c % 6 for c in range(30)]
    low, high = cluster_wilson(ClusterSums.of_cases(failed, [5] * 30))
    assert (r["low"], r["high"]) == pytest.approx((float(low[0]), float(high[0])))
    text = write_report(run).summary_md.read_text()
    section = text.split("### Checks that fail most")[1].split("###")[0]
    assert interval(r["low"], r["high"]) in section and "42.0–58.0%" not in section


@pytest.mark.parametrize("detail", [{"why": "an object"}, ["a", 1], 7])
def test_a_detail_that_is_not_text_is_shown_as_json(tmp_path: Path, detail: object) -> None:
    """The results-row schema says a detail is text or null; a row another tool wrote with an
    object, a list or a number there is shown as its JSON text (it stopped report.html with a
    traceback: an unhashable detail)."""
    run = make_run(tmp_path / "r", {("a", "c1"): "ff", ("a", "c2"): "pp"})
    path = run / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["detail"] = detail
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    files = write_report(run)
    shown = json.dumps(json.dumps(detail))[1:-1]  # as the page's JSON data holds the text
    assert shown in files.report_html.read_text(encoding="utf-8")


@pytest.mark.parametrize("tag", [["x", "y"], {"team": "search"}])
def test_a_tag_that_is_not_text_is_shown_as_json(tmp_path: Path, tag: object) -> None:
    """The results-row schema says tags are text; a row another tool wrote with a list or an
    object among its tags is counted under that tag's JSON text, beside its text tags (it
    stopped the report with a traceback: an unhashable tag)."""
    run = make_run(tmp_path / "r", {("a", "c1"): "ff", ("a", "c2"): "pp", ("b", "c1"): "pf"})
    path = run / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for r in rows:
        r["tags"] = ["plain", tag] if r["case"] == "c1" else ["plain"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    files = write_report(run)
    text = json.dumps(tag)
    tags = files.summary.tags
    assert tags.loc[(text, "a"), ["passed", "counted"]].tolist() == [0, 2]
    assert tags.loc[("plain", "a"), ["passed", "counted"]].tolist() == [2, 4]
    assert f"`{text}`" in files.summary_md.read_text(encoding="utf-8")
    assert escape(text) in files.report_html.read_text(encoding="utf-8")
