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


def _taskbench_gold(first: str) -> dict:
    """A resource-domain TaskBench gold (handwritten, the shape of the multimedia records)."""
    return {
        "task_nodes": [
            {"task": first, "arguments": ["example.jpg"]},
            {"task": "Image Captioning", "arguments": ["<node-0>"]},
        ],
        "task_links": [{"source": first, "target": "Image Captioning"}],
        "type": "chain",
    }


class TestImportedPredictions:
    def _run(self, tmp_path: Path):
        """Three gold cases; the dataset model answered two, one with an empty-object
        argument ([{}]), which used to raise inside scoring and lose the whole run."""
        from harness.run import run_suite
        from harness.suite import load_suite
        from harness.testing import make_project, write_response

        golds = {f"g{i}": _taskbench_gold(f"Image Tool {i}") for i in range(3)}
        cases = [{"id": k, "goal": f"Goal {k}", "reference": v} for k, v in golds.items()]
        suite = make_project(
            tmp_path,
            suite="tb",
            prompt="{goal}\n",
            cases=cases,
            extra={"plan_format": "auto", "metrics": {"taskbench_dependency": "resource"}},
        )
        answer = json.loads(json.dumps(golds["g0"]))
        answer["task_nodes"][1]["arguments"] = [{}]
        write_response(tmp_path, "tb", "planner", "g0", json.dumps(answer), template="{goal}\n")
        write_response(
            tmp_path, "tb", "planner", "g1", json.dumps(golds["g1"]), template="{goal}\n"
        )
        return run_suite(load_suite(suite), out=tmp_path / "run")

    def test_a_gold_id_without_a_prediction_does_not_exit_3(self, tmp_path: Path) -> None:
        """TaskBench's evaluate.py leaves out gold ids without a prediction: the row stays
        missing (not counted in the pass rate) and the run exits on the others (0)."""
        result = self._run(tmp_path)
        by_case = {r.case: r for r in result.rows}
        assert by_case["g2"].status == "missing"
        assert result.exit_code == 0

    def test_it_counts_as_an_empty_plan_under_zero_only(self, tmp_path: Path) -> None:
        from harness.report import load_run
        from harness.report._metrics import metric_report

        result = self._run(tmp_path)
        missing = next(r for r in result.rows if r.case == "g2")
        assert missing.metric_status == "unparseable"
        assert missing.metrics is not None and missing.metrics["taskbench.node_f1"] == 0.0
        assert "a gold id without a prediction" in missing.metric_detail["detail"]
        report = metric_report(load_run(tmp_path / "run").rows)
        assert report is not None
        exclude = report.taskbench["planner"]["exclude"]["overall_overall"]
        zero = report.taskbench["planner"]["zero"]["overall_overall"]
        assert (exclude["node_supports"], zero["node_supports"]) == (2, 3)
        assert (exclude["all_samples"], zero["all_samples"]) == (2, 3)

    def test_the_empty_object_argument_is_scored(self, tmp_path: Path) -> None:
        """[{}] repeats the previous argument (the answer's own 'example.jpg'), as the
        official script does: the row is scored, its link (read from '<node-k>' arguments)
        lost."""
        row = next(r for r in self._run(tmp_path).rows if r.case == "g0")
        assert row.metric_status == "scored"
        assert row.metrics["taskbench.node_f1"] == 1.0
        assert row.metrics["taskbench.link_f1"] == 0.0
        assert row.metric_detail["taskbench"]["arg_values"][1] == [
            "Image Captioning-image-example.jpg",
            "Image Tool 0-image-example.jpg",
        ]
        assert any("an empty object" in n for n in row.metric_detail["notes"])

    def test_a_missing_recording_without_a_reference_still_exits_3(self, tmp_path: Path) -> None:
        from harness.run import run_suite
        from harness.suite import load_suite
        from harness.testing import make_project

        suite = make_project(tmp_path)
        assert run_suite(load_suite(suite), out=tmp_path / "run").exit_code == 3


def test_evaluate_one_without_metrics_grades_the_same(tmp_path: Path) -> None:
    """``metrics=False`` (what ``pytest --planeval`` asks): the same status, checks and
    violations for every case, and no metric columns."""
    from harness.run import evaluate_one
    from harness.suite import load_suite

    metric_run(tmp_path, weaker=True)
    suite = load_suite(tmp_path / "evals" / "boxes.yaml")
    model = suite.models[0]
    for case in suite.cases:
        scored = evaluate_one(suite, case, model, 0)
        plain = evaluate_one(suite, case, model, 0, metrics=False)
        assert (plain.status, plain.checks, plain.violations) == (
            scored.status,
            scored.checks,
            scored.violations,
        )
        assert scored.metric_status in ("scored", "unparseable")
        assert (plain.metrics, plain.metric_status, plain.metric_detail) == (None, None, None)


def test_evaluate_one_without_the_plan_grades_the_same(tmp_path: Path) -> None:
    """``keep_plan=False`` (what ``pytest --planeval`` asks): every other field of the row is
    the same, and the parsed plan is not turned into the row's ``plan`` dict."""
    import dataclasses

    from harness.run import evaluate_one
    from harness.suite import load_suite

    metric_run(tmp_path, weaker=True)
    suite = load_suite(tmp_path / "evals" / "boxes.yaml")
    model = suite.models[0]
    statuses = set()
    for case in suite.cases:
        kept = evaluate_one(suite, case, model, 0)
        plain = evaluate_one(suite, case, model, 0, keep_plan=False)
        assert plain.plan is None
        assert plain == dataclasses.replace(kept, plan=None)
        statuses.add(kept.status)
        assert (kept.plan is not None) == (kept.status in ("pass", "fail"))
    assert statuses >= {"pass", "unparseable"}
