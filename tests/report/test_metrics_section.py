"""The metrics section of reports: both conventions beside the parse rate."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from harness.report import load_run, write_report
from harness.report._metrics import metric_report
from tests.metrics.project import metric_run


class TestMetricsSection:
    def test_both_conventions_beside_the_parse_rate(self, tmp_path: Path) -> None:
        """19 of 20 answers parse: zero averages 20 rows (the prose one as 0), exclude 19."""
        run = load_run(metric_run(tmp_path, weaker=False))
        report = metric_report(run.rows)
        assert report is not None
        assert report.parse == {"planner": (19, 20)}
        figures = {(f.metric, f.convention): f for f in report.figures}
        assert figures[("worfbench.f1_chain", "zero")].mean == 0.95
        assert figures[("worfbench.f1_chain", "zero")].rows == 20
        assert figures[("worfbench.f1_chain", "exclude")].mean == 1.0
        low, high = (
            figures[("worfbench.f1_chain", "zero")].low,
            figures[("worfbench.f1_chain", "zero")].high,
        )
        assert low < 0.95 < high

    def test_markdown_and_html_show_the_section(self, tmp_path: Path) -> None:
        """summary.md and report.html both carry the table with the parse rate."""
        files = write_report(metric_run(tmp_path, weaker=False))
        md = files.summary_md.read_text(encoding="utf-8")
        assert "### Metrics against the reference plans" in md
        assert "| planner | worfbench.f1_chain | 19/20 | 0.950 [" in md
        assert "Metrics against the reference plans</h2>" in files.report_html.read_text("utf-8")

    def test_run_without_references_has_no_section(self, tmp_path: Path) -> None:
        """No reference anywhere: no metrics section."""
        from harness.run import run_suite
        from harness.suite import load_suite
        from harness.testing import make_project

        run = run_suite(load_suite(make_project(tmp_path)), out=tmp_path / "run")
        assert metric_report([r.to_dict() for r in run.rows]) is None


def _taskbench_row(case: str, status: str, pred: list[str], gold: list[str], kind: str) -> dict:
    from harness.metrics import ToolCatalogue, taskbench_sample

    def record(tools: list[str]) -> dict:
        return {
            "task_nodes": [{"task": t, "arguments": [{"name": "q", "value": t}]} for t in tools],
            "task_links": [{"source": a, "target": b} for a, b in pairwise(tools)],
            "type": kind,
        }

    catalogue = ToolCatalogue(("search", "summarize", "email"))
    sample = taskbench_sample(
        record(pred), record(gold), dependency="temporal", catalogue=catalogue
    )
    return {
        "model": "planner",
        "case": case,
        "metric_status": status,
        "metrics": sample.as_metrics(),
        "metric_detail": {"taskbench": sample.to_dict(), "catalogue_size": 3},
    }


ROWS = [
    _taskbench_row("s1", "scored", ["search"], ["search"], "single"),
    _taskbench_row("c1", "scored", ["search", "email"], ["search", "summarize"], "chain"),
    _taskbench_row("c2", "unparseable", [], ["search", "email"], "chain"),
    {"model": "planner", "case": "d1", "metric_status": "error", "metrics": None},
]


class TestTaskbenchSplits:
    def test_summary_has_a_row_per_split_with_the_name_only_argument_f1(self) -> None:
        """One row per split and convention; the single split's link F1 is 0.0000 as the
        pinned scikit-learn gives (it used to show –); argument name F1 beside name+value."""
        from harness.report._metrics import render_metrics_md

        md = "\n".join(render_metrics_md(metric_report(ROWS)))
        assert "| argument name F1 | argument name+value F1 |" in md
        single = next(x for x in md.splitlines() if "| exclude | single_overall |" in x)
        cells = [c.strip() for c in single.strip("|").split("|")]
        assert cells[3:6] == ["1", "1", "1.0000"]  # samples, supports, node micro F1
        assert cells[7] == "0.0000"  # link F1: no link on either side
        assert "–" not in md.split("TaskBench corpus")[1]

    def test_exclude_counts_unreadable_answers_in_all_samples_only(self) -> None:
        """As the script counts a prediction it drops: samples 2, supports 1 (chain)."""
        report = metric_report(ROWS)
        assert report is not None
        chain = report.taskbench["planner"]["exclude"]["chain_overall"]
        assert (chain["all_samples"], chain["node_supports"]) == (2, 1)
        zero = report.taskbench["planner"]["zero"]["chain_overall"]
        assert (zero["all_samples"], zero["node_supports"]) == (2, 2)
        assert "overall_15" not in report.taskbench["planner"]["zero"]

    def test_a_row_whose_scoring_failed_is_named(self) -> None:
        from harness.report._metrics import render_metrics_md

        report = metric_report(ROWS)
        assert report is not None and report.errors == {"planner": ["d1"]}
        md = "\n".join(render_metrics_md(report))
        assert "Scoring failed for 1 row(s) of planner (metric_status error" in md
        assert ": d1." in md
