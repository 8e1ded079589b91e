"""compare: paired metric differences with Holm-corrected verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli
from tests.metrics.project import metric_run


class TestCompareMetrics:
    def test_weaker_candidate_is_worse_on_chain_recall(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """Half the cases lose a task: recall_chain 0.95 -> ~0.78, a Holm-corrected 'worse'
        whose interval excludes 0; the JSON lists every metric."""
        base = metric_run(tmp_path / "a", weaker=False)
        cand = metric_run(tmp_path / "b", weaker=True)
        result = run_cli(capsys, "compare", str(base), str(cand), "--format", "json")
        assert result.code == 0, result.err
        metrics = {m["metric"]: m for m in json.loads(result.out)["metrics"]}
        recall = metrics["worfbench.recall_chain"]
        assert recall["verdict"] == "worse"
        assert recall["interval"][1] < 0
        assert recall["p_adjusted"] >= recall["p_value"]
        assert len(metrics) == 6

    def test_same_runs_show_no_difference(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A run against itself: every metric 'no significant difference' in the text output."""
        run = metric_run(tmp_path, weaker=False)
        result = run_cli(capsys, "compare", str(run), str(run))
        assert "Metrics against the reference plans (unparseable answers: zero)" in result.out
        assert result.out.count("no significant difference") >= 6

    def test_exclude_convention(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """--unparseable exclude compares the 19 parsed cases."""
        base = metric_run(tmp_path / "a", weaker=False)
        cand = metric_run(tmp_path / "b", weaker=True)
        out = run_cli(
            capsys, "compare", str(base), str(cand), "--format", "json", "--unparseable", "exclude"
        ).out
        assert {m["cases"] for m in json.loads(out)["metrics"]} == {19}
