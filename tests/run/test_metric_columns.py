"""Metric columns of results.jsonl rows: scored against each case's reference."""

from __future__ import annotations

import json
from pathlib import Path

from tests.metrics.project import metric_run


class TestMetricColumns:
    def test_rows_carry_metrics_against_their_reference(self, tmp_path: Path) -> None:
        """The gold answer scores 1, a renamed last task less, prose is unparseable with the
        zero-convention values; every row validates against the published schema."""
        from jsonschema import Draft202012Validator

        from harness.schemas import load_schema

        run = metric_run(tmp_path, weaker=True)
        rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
        by_case = {r["case"]: r for r in rows}
        assert by_case["c1"]["metric_status"] == "scored"
        assert by_case["c1"]["metrics"]["worfbench.f1_chain"] == 1.0
        assert by_case["c0"]["metrics"]["worfbench.recall_chain"] == 2 / 3
        assert by_case["c19"]["metric_status"] == "unparseable"
        assert by_case["c19"]["metrics"]["worfbench.f1_graph"] == 0.0
        validator = Draft202012Validator(load_schema("results-row"))
        for row in rows:
            validator.validate(row)

    def test_case_without_reference_has_no_metric_columns(self, tmp_path: Path) -> None:
        """Old suites keep working: no reference, null metric columns."""
        from harness.run import run_suite
        from harness.suite import load_suite
        from harness.testing import make_project, sound_plan, write_response

        path = make_project(tmp_path)
        write_response(tmp_path, "demo", "planner", "c1", json.dumps(sound_plan()))
        row = run_suite(load_suite(path), out=tmp_path / "run").rows[0]
        assert row.status == "pass"
        assert (row.metrics, row.metric_status, row.metric_detail) == (None, None, None)


class TestScoringFailure:
    def test_a_row_whose_scoring_raises_is_an_error_row_and_the_run_keeps_the_rest(
        self, tmp_path: Path, monkeypatch
    ) -> None:
        """A failure injected into scoring for one case: that row says so (naming the case),
        the nineteen others are scored, results.jsonl holds all twenty rows."""
        import harness.metrics

        real = harness.metrics.score_plan

        def failing(answer, reference, **options):
            if "Open box 7" in answer:
                raise RuntimeError("injected failure")
            return real(answer, reference, **options)

        monkeypatch.setattr(harness.metrics, "score_plan", failing)
        run = metric_run(tmp_path, weaker=False)
        rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
        assert len(rows) == 20
        by_case = {r["case"]: r for r in rows}
        broken = by_case["c7"]
        assert broken["metric_status"] == "error" and broken["metrics"] is None
        assert broken["metric_detail"]["detail"].startswith(
            "case c7: scoring failed (RuntimeError: injected failure)"
        )
        assert broken["status"] == "pass"  # the structural checks still ran
        assert sum(r["metric_status"] == "scored" for r in rows) == 18  # c19 is prose
