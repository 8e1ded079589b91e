"""The metrics section of reports: both conventions beside the parse rate."""

from __future__ import annotations

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
