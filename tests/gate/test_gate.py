"""``planeval gate`` and ``planeval baseline``: every exit code, the deciding rule on the last
line, and bad input (thresholds, baselines) as one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.gate import load_baseline
from harness.report import load_run
from tests.report._synthetic import make_run

runner = CliRunner()


def _single(pattern: str, model: str = "m", samples: int = 1) -> dict[tuple[str, str], str]:
    """One case per letter, each letter repeated for every sample."""
    return {(model, f"c{i:02d}"): x * samples for i, x in enumerate(pattern)}


def gate(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["gate", *args])


def last_line(result) -> str:  # type: ignore[no-untyped-def]
    return result.stdout.strip().splitlines()[-1]


@pytest.fixture
def baseline(tmp_path: Path) -> Path:
    """A baseline from a run passing 8 of 10 cases (c08, c09 fail)."""
    run = make_run(tmp_path / "base", _single("ppppppppff"))
    out = tmp_path / "baseline.json"
    result = runner.invoke(app, ["baseline", str(run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


class TestExitCodes:
    def test_0_when_every_rule_holds(self, tmp_path: Path, baseline: Path) -> None:
        """Exit 0 and a last line that says so."""
        run = make_run(tmp_path / "r", _single("pppppppppf"))
        r = gate(
            str(run),
            "--min-pass-rate",
            "0.8",
            "--max-drop",
            "0.05",
            "--no-new-failures",
            "--baseline",
            str(baseline),
        )
        assert r.exit_code == 0, r.output
        assert last_line(r).startswith("gate: PASS (exit 0)")

    def test_1_min_pass_rate_with_margin(self, tmp_path: Path) -> None:
        """70% against a minimum of 80%: exit 1, short by 10.0 points."""
        run = make_run(tmp_path / "r", _single("pppppppfff"))
        r = gate(str(run), "--min-pass-rate", "0.8")
        assert r.exit_code == 1
        assert "decided by min-pass-rate" in last_line(r) and "short by 10.0 points" in last_line(r)

    def test_1_max_drop(self, tmp_path: Path) -> None:
        """100% -> 70% on 20 cases: a drop of 30 points over the allowed 5, by 25, and beyond
        chance (6 cases pass -> fail, none the other way: exact McNemar one-sided p = 1/64)."""
        base = make_run(tmp_path / "base", _single("p" * 20))
        out = tmp_path / "baseline.json"
        assert runner.invoke(app, ["baseline", str(base), "--out", str(out)]).exit_code == 0
        run = make_run(tmp_path / "r", _single("p" * 14 + "f" * 6))
        r = gate(str(run), "--max-drop", "0.05", "--baseline", str(out))
        assert r.exit_code == 1
        assert "decided by max-drop" in last_line(r)
        assert "drop of 30.0 points" in last_line(r) and "by 25.0 points" in last_line(r)
        assert "exact McNemar: one-sided p=0.016 < 0.05" in last_line(r)

    def test_0_a_drop_that_chance_explains(self, tmp_path: Path, baseline: Path) -> None:
        """80% -> 60% on 10 cases x 1 sample is over 5 points, but two runs of one planner
        differ this much (one-sided p = 0.25): exit 0, and the line says why."""
        run = make_run(tmp_path / "r", _single("ppppppffff"))
        r = gate(str(run), "--max-drop", "0.05", "--baseline", str(baseline))
        assert r.exit_code == 0, r.output
        assert "largest drop 20.0 points" in r.stdout and "is over 5.0 points" in r.stdout
        assert "but within chance (exact McNemar: one-sided p=0.25 >= 0.05)" in r.stdout

    def test_1_new_failure(self, tmp_path: Path) -> None:
        """c00 passed 5 of 5 in the baseline and 0 of 5 now: evidence (p = 1/252), exit 1;
        c08 failing before and now is not new."""
        base = make_run(tmp_path / "base", _single("ppppppppff", samples=5))
        out = tmp_path / "baseline.json"
        assert runner.invoke(app, ["baseline", str(base), "--out", str(out)]).exit_code == 0
        run = make_run(tmp_path / "r", _single("fpppppppff", samples=5))
        r = gate(str(run), "--no-new-failures", "--baseline", str(out))
        assert r.exit_code == 1
        assert "decided by no-new-failures" in last_line(r)
        assert "m / c00: 5/5 -> 0/5 (p=0.004)" in last_line(r)

    def test_0_one_failed_sample_is_not_evidence(self, tmp_path: Path) -> None:
        """5 of 5 then 4 of 5 is what two runs of one planner often give: exit 0, said so."""
        base = make_run(tmp_path / "base", _single("pppp", samples=5))
        out = tmp_path / "baseline.json"
        assert runner.invoke(app, ["baseline", str(base), "--out", str(out)]).exit_code == 0
        run = make_run(tmp_path / "r", {**_single("ppp", samples=5), ("m", "c00"): "ppppf"})
        r = gate(str(run), "--no-new-failures", "--baseline", str(out))
        assert r.exit_code == 0, r.output
        assert "1 case(s) passing every baseline sample fail some sample now" in r.stdout

    def test_0_one_sample_cannot_show_evidence(self, tmp_path: Path, baseline: Path) -> None:
        """With one sample per case no case can be a new failure; the rule says so."""
        run = make_run(tmp_path / "r", _single("fppppppppp"))
        r = gate(str(run), "--no-new-failures", "--baseline", str(baseline))
        assert r.exit_code == 0
        assert "no case can show a new failure with 1 baseline sample(s)" in r.stdout

    def test_3_missing_or_stale(self, tmp_path: Path) -> None:
        """A missing and a stale recording: exit 3, even though the pass rate is fine."""
        run = make_run(tmp_path / "r", _single("ppppppppms"))
        r = gate(str(run), "--min-pass-rate", "0.5")
        assert r.exit_code == 3
        assert "decided by recordings" in last_line(r) and "1 missing and 1 stale" in last_line(r)

    def test_4_infra_errors_over_tolerance(self, tmp_path: Path) -> None:
        """Two error rows against a tolerance of 1: exit 4, over by 1; tolerance 2 passes."""
        run = make_run(tmp_path / "r", _single("ppppppppee"))
        r = gate(str(run), "--max-infra-errors", "1")
        assert r.exit_code == 4
        assert "over the tolerance of 1 (by 1)" in last_line(r)
        assert gate(str(run), "--max-infra-errors", "2").exit_code == 0

    @pytest.mark.parametrize("option", ["--min-pass-rate", "--max-drop"])
    @pytest.mark.parametrize("value", ["1.5", "-0.1"])
    def test_2_threshold_outside_0_1(self, tmp_path: Path, option: str, value: str) -> None:
        """A threshold outside [0, 1]: one line, exit 2."""
        run = make_run(tmp_path / "r", _single("p"))
        r = gate(str(run), option, value)
        assert r.exit_code == 2
        assert r.stderr.count("\n") == 1 and "between 0 and 1" in r.stderr

    def test_2_no_baseline(self, tmp_path: Path) -> None:
        """--max-drop with no baseline file: one line naming the fix, exit 2."""
        run = make_run(tmp_path / "r", _single("p"))
        r = gate(str(run), "--max-drop", "0.1", "--baseline", str(tmp_path / "none.json"))
        assert r.exit_code == 2 and "planeval baseline RUN" in r.stderr

    def test_2_empty_run(self, tmp_path: Path) -> None:
        """An empty run cannot be judged: exit 2, no traceback."""
        run = make_run(tmp_path / "r", _single("p"))
        (run / "results.jsonl").write_text("")
        r = gate(str(run), "--min-pass-rate", "0.5")
        assert r.exit_code == 2 and "Traceback" not in r.output


class TestBaselineFile:
    def test_older_format_is_refused(self, tmp_path: Path, baseline: Path) -> None:
        """A baseline of format version 0 is refused with the command that makes a new one."""
        data = json.loads(baseline.read_text())
        data["format_version"] = 0
        baseline.write_text(json.dumps(data))
        run = make_run(tmp_path / "r", _single("p"))
        r = gate(str(run), "--max-drop", "0.1", "--baseline", str(baseline))
        assert r.exit_code == 2
        assert "older" in r.stderr and "planeval baseline RUN" in r.stderr

    def test_schema_violation_is_refused(self, tmp_path: Path, baseline: Path) -> None:
        """A case entry that is not [passed, counted] is named by its JSON pointer."""
        data = json.loads(baseline.read_text())
        data["models"]["m"]["cases"]["c00"] = "pass"
        baseline.write_text(json.dumps(data))
        with pytest.raises(Exception, match="/models/m/cases/c00"):
            load_baseline(baseline)

    def test_written_file_matches_its_schema(self, baseline: Path) -> None:
        """planeval baseline writes a document valid against baseline.schema.json."""
        schema_path = Path(__file__).resolve().parents[2] / "harness/schemas/baseline.schema.json"
        schema = json.loads(schema_path.read_text())
        data = json.loads(baseline.read_text())
        jsonschema.Draft202012Validator(schema).validate(data)
        assert data["models"]["m"]["cases"]["c08"] == [0, 1]
        assert data["models"]["m"]["pass_rate"] == 0.8

    def test_baseline_of_another_suite_is_refused(self, tmp_path: Path, baseline: Path) -> None:
        """Gating a run against another suite's baseline makes no sense: exit 2."""
        run = make_run(tmp_path / "r", _single("p"), suite="other")
        r = gate(str(run), "--no-new-failures", "--baseline", str(baseline))
        assert r.exit_code == 2 and "suite" in r.stderr

    def test_default_path_beside_the_runs(self, tmp_path: Path) -> None:
        """A run under <root>/reports/runs/ defaults to <root>/reports/baselines/<suite>.json."""
        run = make_run(tmp_path / "reports" / "runs" / "r1", _single("pp"))
        assert runner.invoke(app, ["baseline", str(run)]).exit_code == 0
        assert (tmp_path / "reports" / "baselines" / "synthetic.json").is_file()
        assert gate(str(run), "--no-new-failures").exit_code == 0

    def test_json_output(self, tmp_path: Path) -> None:
        """--format json gives the rules and the deciding one, with the same exit code."""
        run = make_run(tmp_path / "r", _single("pf"))
        r = gate(str(run), "--min-pass-rate", "0.9", "--format", "json")
        data = json.loads(r.stdout)
        assert r.exit_code == 1 and data["decided_by"] == "min-pass-rate"
        assert load_run(run).suite == "synthetic"


class TestRecordingsRule:
    def test_max_missing_tolerates_gaps(self, tmp_path: Path) -> None:
        """--max-missing 2 lets two missing / stale rows through; one more is exit 3."""
        run = make_run(tmp_path / "r", _single("pppppppmsm"))
        assert gate(str(run), "--max-missing", "3").exit_code == 0
        r = gate(str(run), "--max-missing", "2")
        assert r.exit_code == 3 and "over by 1" in last_line(r)

    def test_hint_depends_on_the_provider(self, tmp_path: Path) -> None:
        """Dataset models cannot be re-recorded; others get the re-record command `run`
        prints (it suggested `--live`, re-recording everything, where `run` suggested
        `--record-mode new_episodes`)."""
        run = make_run(tmp_path / "r", _single("pm"))
        assert "dataset models cannot be re-recorded" in last_line(gate(str(run)))
        data = json.loads((run / "run.json").read_text())
        data["models"][0]["provider"] = "openai"
        (run / "run.json").write_text(json.dumps(data))
        assert (
            "re-record with: `planeval run evals/synthetic.yaml --record-mode new_episodes "
            "--model m`" in last_line(gate(str(run)))
        )
