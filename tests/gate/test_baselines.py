"""One baseline per suite: ``reports/baselines/<suite>.json``, written for each run of a
folder of runs, found by the gate for each suite, never replaced by surprise."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness._cli.main import app
from tests.report._synthetic import make_run

runner = CliRunner()


def _cases(pattern: str, samples: int = 5) -> dict[tuple[str, str], str]:
    return {("m", f"c{i:02d}"): x * samples for i, x in enumerate(pattern)}


def _two_suites(folder: Path, one: str = "pppp", two: str = "pppf") -> Path:
    """A folder of two runs, as `planeval run A B --out folder` writes it."""
    make_run(folder / "alpha", _cases(one), suite="alpha")
    make_run(folder / "beta", _cases(two), suite="beta")
    return folder


def test_one_baseline_per_suite_in_the_project(tmp_path: Path) -> None:
    """A folder of two suites' runs under reports/runs/ gives reports/baselines/alpha.json and
    beta.json; the gate on that folder finds each suite's own baseline."""
    runs = _two_suites(tmp_path / "reports" / "runs" / "both")
    result = runner.invoke(app, ["baseline", str(runs)])
    assert result.exit_code == 0, result.output
    baselines = tmp_path / "reports" / "baselines"
    assert sorted(p.name for p in baselines.iterdir()) == ["alpha.json", "beta.json"]
    assert json.loads((baselines / "beta.json").read_text())["suite"] == "beta"
    gate = runner.invoke(app, ["gate", str(runs), "--no-new-failures", "--max-drop", "0"])
    assert gate.exit_code == 0, gate.output
    assert gate.stdout.strip().splitlines()[-1] == "gate: PASS (exit 0): 2 of 2 runs pass"


def test_gate_names_the_suite_that_regressed(tmp_path: Path) -> None:
    """beta drops from 8 of 8 cases to 1 of 8 (exact sign-flip p = 4/256): exit 1, decided by
    beta; alpha passes."""
    base = _two_suites(tmp_path / "base", two="pppppppp")
    assert runner.invoke(app, ["baseline", str(base), "--out", str(tmp_path / "bl")]).exit_code == 0
    now = _two_suites(tmp_path / "now", two="pfffffff")
    gate = runner.invoke(
        app, ["gate", str(now), "--max-drop", "0.05", "--baseline", str(tmp_path / "bl")]
    )
    assert gate.exit_code == 1
    last = gate.stdout.strip().splitlines()[-1]
    assert last == "gate: FAIL (exit 1): 1 of 2 runs pass; decided by beta"
    assert "alpha: gate: PASS (exit 0)" in gate.stdout


def test_replacing_a_baseline_says_what_it_replaces(tmp_path: Path) -> None:
    """A second baseline of the same suite replaces the first and says which run and rates."""
    out = tmp_path / "bl"
    first = make_run(tmp_path / "r1", _cases("ppff"), suite="alpha")
    second = make_run(tmp_path / "r2", _cases("pppp"), suite="alpha")
    assert runner.invoke(app, ["baseline", str(first), "--out", str(out)]).exit_code == 0
    result = runner.invoke(app, ["baseline", str(second), "--out", str(out)])
    assert result.exit_code == 0
    assert (
        "replaces the baseline of run r1" in result.stdout and "m 50.0% -> 100.0%" in result.stdout
    )
    assert json.loads((out / "alpha.json").read_text())["run_id"] == "r2"


def test_another_suites_baseline_is_never_replaced(tmp_path: Path) -> None:
    """--out naming alpha's baseline for a run of beta: exit 2, alpha's file untouched."""
    target = tmp_path / "alpha.json"
    alpha = make_run(tmp_path / "a", _cases("pp"), suite="alpha")
    assert runner.invoke(app, ["baseline", str(alpha), "--out", str(target)]).exit_code == 0
    before = target.read_bytes()
    beta = make_run(tmp_path / "b", _cases("pp"), suite="beta")
    result = runner.invoke(app, ["baseline", str(beta), "--out", str(target)])
    assert result.exit_code == 2
    assert "refusing to replace the baseline of suite 'alpha'" in result.stderr
    assert target.read_bytes() == before


def test_two_runs_of_one_suite_are_refused(tmp_path: Path) -> None:
    """A suite has one baseline: two runs of it in one command is exit 2, nothing written."""
    one = make_run(tmp_path / "r1", _cases("pp"), suite="alpha")
    two = make_run(tmp_path / "r2", _cases("pp"), suite="alpha")
    result = runner.invoke(app, ["baseline", str(one), str(two), "--out", str(tmp_path / "bl")])
    assert result.exit_code == 2 and "two runs of suite 'alpha'" in result.stderr
    assert not (tmp_path / "bl").exists()


def test_gate_without_the_suites_baseline_is_unusable(tmp_path: Path) -> None:
    """No reports/baselines/<suite>.json: exit 2 with the command that writes it."""
    run = make_run(tmp_path / "reports" / "runs" / "r1", _cases("pp"), suite="alpha")
    result = runner.invoke(app, ["gate", str(run), "--no-new-failures"])
    assert result.exit_code == 2
    assert "baselines/alpha.json" in result.stderr and "planeval baseline RUN" in result.stderr
