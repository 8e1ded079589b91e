"""gate --min-metric / --max-metric."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import run_cli
from tests.metrics.project import metric_run


class TestMetricRules:
    def test_min_metric_fails_below_and_passes_above(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """f1_chain mean 0.95 (zero convention): 0.97 fails with exit 1, 0.85 passes."""
        run = str(metric_run(tmp_path, weaker=False))
        failed = run_cli(capsys, "gate", run, "--min-metric", "worfbench.f1_chain=0.97")
        assert failed.code == 1
        assert "decided by min-metric worfbench.f1_chain" in failed.out
        passed = run_cli(capsys, "gate", run, "--min-metric", "worfbench.f1_chain=0.85")
        assert passed.code == 0, passed.out

    def test_exclude_convention_leaves_the_unparseable_answer_out(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """Under exclude the mean is 1.0, so 0.97 holds."""
        run = str(metric_run(tmp_path, weaker=False))
        result = run_cli(
            capsys,
            "gate",
            run,
            "--min-metric",
            "worfbench.f1_chain=0.97",
            "--unparseable",
            "exclude",
        )
        assert result.code == 0

    @pytest.mark.parametrize(
        ("arg", "message"),
        [
            ("worfbench.f1_chian=0.5", "you mean worfbench.f1_chain"),
            ("worfbench.f1_chain", "takes NAME=VALUE"),
            ("worfbench.f1_chain=1.5", "must lie in [0, 1]"),
        ],
    )
    def test_bad_bound_is_exit_2(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, arg: str, message: str
    ) -> None:
        """A misspelled metric, a missing value or a bound outside [0, 1]: one line, exit 2."""
        run = str(metric_run(tmp_path, weaker=False))
        result = run_cli(capsys, "gate", run, "--min-metric", arg)
        assert result.code == 2
        assert message in result.err
