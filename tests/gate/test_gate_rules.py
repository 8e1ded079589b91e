"""``run_gate`` rule by rule, through the library: thresholds met exactly, tolerances, several
models, the messages and details a reader of the gate's output acts on, and which rule decides.

Fixtures are synthetic runs (tests/report/_synthetic.py, provenance: handwritten in code) and
baselines built from them in memory. Every boundary here was a surviving mutant of
``harness/gate/_gate.py`` (issue 14)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from harness.gate import (
    Baseline,
    GateConfigError,
    GateResult,
    IncompleteRunError,
    RuleResult,
    baseline_from_run,
    run_gate,
    validate_options,
)
from harness.report import LoadedRun, load_run
from tests.report._synthetic import make_run


def _single(pattern: str, model: str = "m", samples: int = 1) -> dict[tuple[str, str], str]:
    """One case per letter (c00, c01, ...), each letter repeated for every sample."""
    return {(model, f"c{i:02d}"): x * samples for i, x in enumerate(pattern)}


def _run(tmp_path: Path, name: str, outcomes: dict[tuple[str, str], str], **kw: Any) -> LoadedRun:
    return load_run(make_run(tmp_path / name, outcomes, **kw))


def _baseline(run: LoadedRun) -> Baseline:
    return Baseline(path="baseline.json", data=baseline_from_run(run))


RULES = {
    "recordings": (0, 3),
    "max-infra-errors": (1, 4),
    "min-pass-rate": (2, 1),
    "max-drop": (2, 1),
    "no-new-failures": (2, 1),
}


def _rule(result: GateResult, name: str) -> RuleResult:
    """The rule ``name`` at its place, checked to be a verdict with its exit code."""
    place, code = RULES[name]
    rule = result.rules[place]
    assert (rule.rule, rule.exit_code, type(rule.ok)) == (name, code, bool)
    return rule


class TestOptions:
    @pytest.mark.parametrize("value", [0.0, 1.0])
    def test_thresholds_at_0_and_1_are_accepted(self, value: float) -> None:
        """0 and 1 are fractions: a gate may ask for 100% or allow any drop."""
        validate_options(value, value, 0, 0)

    @pytest.mark.parametrize("option", ["--min-pass-rate", "--max-drop"])
    @pytest.mark.parametrize("value", [math.nan, -0.01, 1.01])
    def test_nan_and_out_of_range_are_refused(self, option: str, value: float) -> None:
        """The message names the option and the value; the hint shows a valid one."""
        args = (value, None) if option == "--min-pass-rate" else (None, value)
        with pytest.raises(GateConfigError) as raised:
            validate_options(*args, 0, 0)
        assert str(raised.value).startswith(
            f"{option} must be a fraction between 0 and 1, got {value:g}"
        )
        assert raised.value.hint == f"e.g. {option} 0.8 for 80%"

    def test_negative_tolerances_are_refused_zero_is_not(self) -> None:
        with pytest.raises(GateConfigError, match="--max-infra-errors must be 0 or more, got -1"):
            validate_options(None, None, -1, 0)
        with pytest.raises(GateConfigError, match="--max-missing must be 0 or more, got -1"):
            validate_options(None, None, 0, -1)
        validate_options(None, None, 0, 0)

    @pytest.mark.parametrize(
        ("option", "message"),
        [
            ({"min_pass_rate": 1.5}, "--min-pass-rate must be a fraction"),
            ({"max_drop": -0.1}, "--max-drop must be a fraction"),
            ({"max_infra_errors": -1}, "--max-infra-errors must be 0 or more"),
            ({"max_missing": -1}, "--max-missing must be 0 or more"),
        ],
    )
    def test_run_gate_checks_its_options(self, tmp_path: Path, option: dict, message: str) -> None:
        """A library caller gets the same refusal as the command line."""
        with pytest.raises(GateConfigError, match=message):
            run_gate(_run(tmp_path, "r", _single("pp")), **option)

    def test_an_incomplete_run_is_refused_with_the_gate_named(self, tmp_path: Path) -> None:
        """Two samples of three cases, one row lost: the gate refuses and says how to go on."""
        run_dir = make_run(tmp_path / "r", _single("ppp", samples=2))
        rows = (run_dir / "results.jsonl").read_text().splitlines(keepends=True)
        (run_dir / "results.jsonl").write_text("".join(rows[:5]))
        with pytest.raises(IncompleteRunError) as raised:
            run_gate(load_run(run_dir), min_pass_rate=0.5)
        assert (raised.value.hint or "").endswith("then gate the new run")

    def test_a_baseline_alone_switches_no_rule_on(self, tmp_path: Path) -> None:
        """--baseline without --max-drop / --no-new-failures judges only the data rules, even
        against a baseline of another suite."""
        other = _baseline(_run(tmp_path, "o", _single("pppp"), suite="other"))
        run = _run(tmp_path, "r", _single("ffff"))
        result = run_gate(run, baseline=other)
        assert [r.rule for r in result.rules] == ["recordings", "max-infra-errors"]
        assert result.exit_code == 0 and result.decided_by is None

    @pytest.mark.parametrize(
        "rule", [{"max_drop": 0.1}, {"no_new_failures": True}], ids=["max-drop", "new-failures"]
    )
    def test_each_baseline_rule_needs_a_baseline(self, tmp_path: Path, rule: dict) -> None:
        run = _run(tmp_path, "r", _single("pp"))
        with pytest.raises(GateConfigError) as raised:
            run_gate(run, **rule)
        assert str(raised.value).startswith("--max-drop and --no-new-failures need a baseline")
        assert raised.value.hint == (
            "write one with `planeval baseline RUN` or pass --baseline PATH"
        )

    @pytest.mark.parametrize(
        "rule", [{"max_drop": 0.1}, {"no_new_failures": True}], ids=["max-drop", "new-failures"]
    )
    def test_each_baseline_rule_refuses_another_suite(self, tmp_path: Path, rule: dict) -> None:
        other = _baseline(_run(tmp_path, "o", _single("pp"), suite="other"))
        run = _run(tmp_path, "r", _single("pp"))
        with pytest.raises(GateConfigError, match="of suite 'other', the run of 'synthetic'") as e:
            run_gate(run, baseline=other, **rule)
        assert e.value.source == "baseline.json"
        assert e.value.hint == "pass the baseline of this suite with --baseline"


class TestPrecedence:
    def test_rules_are_listed_in_precedence_order(self, tmp_path: Path) -> None:
        base = _baseline(_run(tmp_path, "b", _single("pp")))
        run = _run(tmp_path, "r", _single("pp"))
        result = run_gate(run, min_pass_rate=0.5, max_drop=0.1, no_new_failures=True, baseline=base)
        assert [r.rule for r in result.rules] == [
            "recordings",
            "max-infra-errors",
            "min-pass-rate",
            "max-drop",
            "no-new-failures",
        ]
        assert [r.exit_code for r in result.rules] == [3, 4, 1, 1, 1]
        assert all(r.ok for r in result.rules) and result.exit_code == 0

    def test_missing_recordings_decide_before_errors_and_quality(self, tmp_path: Path) -> None:
        run = _run(tmp_path, "r", _single("fffmeee"))
        result = run_gate(run, min_pass_rate=0.9)
        assert [r.ok for r in result.rules] == [False, False, False]
        assert result.decided_by is result.rules[0] and result.exit_code == 3

    def test_errors_decide_before_quality(self, tmp_path: Path) -> None:
        run = _run(tmp_path, "r", _single("fffe"))
        result = run_gate(run, min_pass_rate=0.9)
        assert result.exit_code == 4 and result.decided_by is not None
        assert result.decided_by.rule == "max-infra-errors"

    def test_rule_as_json(self, tmp_path: Path) -> None:
        rule = run_gate(_run(tmp_path, "r", _single("pe"))).rules[1]
        assert rule.to_dict() == {
            "rule": "max-infra-errors",
            "ok": False,
            "exit_code": 4,
            "message": "1 infrastructure error row(s), over the tolerance of 0 (by 1)",
            "details": ["m / c01 / sample 0: error: synthetic detail"],
            "more": 0,
        }


class TestRecordings:
    def test_none_tolerated_and_none_found(self, tmp_path: Path) -> None:
        rule = _rule(run_gate(_run(tmp_path, "r", _single("pp"))), "recordings")
        assert rule.ok and rule.message == "no missing or stale recordings (none tolerated)"

    def test_exactly_the_tolerance_passes(self, tmp_path: Path) -> None:
        rule = _rule(run_gate(_run(tmp_path, "r", _single("pmsp")), max_missing=2), "recordings")
        assert rule.ok and rule.message == "2 missing or stale recordings (tolerance 2)"
        assert rule.details == []

    def test_one_over_the_tolerance_fails_with_counts_and_rows(self, tmp_path: Path) -> None:
        rule = _rule(run_gate(_run(tmp_path, "r", _single("pmsm")), max_missing=2), "recordings")
        assert not rule.ok and rule.exit_code == 3
        assert rule.message.startswith(
            "2 missing and 1 stale recordings (tolerance 2, over by 1); "
        )
        assert rule.details == [
            "m / c01 / sample 0: missing",
            "m / c02 / sample 0: stale",
            "m / c03 / sample 0: missing",
        ]

    def test_with_no_tolerance_the_message_has_no_over_by(self, tmp_path: Path) -> None:
        rule = _rule(run_gate(_run(tmp_path, "r", _single("ps"))), "recordings")
        assert rule.message.startswith("0 missing and 1 stale recordings (none tolerated); ")

    def test_details_stop_at_20_rows(self, tmp_path: Path) -> None:
        rule = _rule(run_gate(_run(tmp_path, "r", _single("m" * 21))), "recordings")
        assert rule.message.startswith("21 missing and 0 stale")
        assert len(rule.details) == 20 and rule.details[-1] == "m / c19 / sample 0: missing"
        assert rule.more == 1

    def test_the_printed_count_of_more_is_every_item_not_listed(self, tmp_path: Path) -> None:
        """100 missing rows: 10 printed, "…and 90 more" (it said "…and 10 more": the 20
        details kept minus the 10 printed)."""
        from typer.testing import CliRunner

        from harness._cli.main import app

        run = make_run(tmp_path / "r", _single("m" * 100))
        out = CliRunner().invoke(app, ["gate", str(run)]).stdout
        assert "       …and 90 more" in out


class TestInfraErrors:
    def test_exactly_the_tolerance_passes_without_details(self, tmp_path: Path) -> None:
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("pee")), max_infra_errors=2), "max-infra-errors"
        )
        assert rule.ok and rule.details == []
        assert rule.message == "2 infrastructure error row(s), within the tolerance of 2"

    def test_an_error_without_detail_is_named_error(self, tmp_path: Path) -> None:
        run_dir = make_run(tmp_path / "r", _single("pe"))
        rows = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
        rows[1]["detail"] = None
        (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        rule = _rule(run_gate(load_run(run_dir)), "max-infra-errors")
        assert rule.details == ["m / c01 / sample 0: error"]

    def test_details_stop_at_20_rows(self, tmp_path: Path) -> None:
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("e" * 21)), max_infra_errors=20),
            "max-infra-errors",
        )
        assert not rule.ok and rule.message.endswith("over the tolerance of 20 (by 1)")
        assert len(rule.details) == 20


class TestMinPassRate:
    def test_exactly_at_the_minimum_passes(self, tmp_path: Path) -> None:
        """8 of 10 against --min-pass-rate 0.8 holds, with a margin of 0.0 points."""
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("ppppppppff")), min_pass_rate=0.8), "min-pass-rate"
        )
        assert rule.ok
        assert rule.message == "lowest pass rate 80.0% (m) >= 80.0% (margin 0.0 points)"

    def test_one_case_under_the_minimum_fails(self, tmp_path: Path) -> None:
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("pppppppfff")), min_pass_rate=0.8), "min-pass-rate"
        )
        assert not rule.ok and rule.exit_code == 1
        assert rule.message == "1 model(s) below 80.0%; worst m at 70.0%, short by 10.0 points"

    def test_the_worst_model_is_named_and_details_go_worst_first(self, tmp_path: Path) -> None:
        """Three models: a 90%, b 50%, c 70% against 80%: b decides, b then c in the details,
        a (above the minimum) not among them."""
        outcomes = {
            **_single("pppppppppf", "a"),
            **_single("pppppfffff", "b"),
            **_single("pppppppfff", "c"),
        }
        rule = _rule(run_gate(_run(tmp_path, "r", outcomes), min_pass_rate=0.8), "min-pass-rate")
        assert not rule.ok
        assert rule.message == "2 model(s) below 80.0%; worst b at 50.0%, short by 30.0 points"
        assert [d.split(":")[0] for d in rule.details] == ["b", "c"]
        # the clustered interval (one sample per case: Wilson's 23.66-76.34%), rounded outward
        assert rule.details[0] == (
            "b: 50.0% (95% CI 23.6–76.4%, clustered by case), short by 30.0 points"
        )

    def test_passing_message_names_the_lowest_model(self, tmp_path: Path) -> None:
        outcomes = {**_single("pppp", "a"), **_single("pppf", "b")}
        rule = _rule(run_gate(_run(tmp_path, "r", outcomes), min_pass_rate=0.5), "min-pass-rate")
        assert rule.ok
        assert rule.message == "lowest pass rate 75.0% (b) >= 50.0% (margin 25.0 points)"

    def test_a_run_of_errors_only_fails(self, tmp_path: Path) -> None:
        """Nothing counted is nothing to judge: exit 1 even when the errors are tolerated."""
        result = run_gate(
            _run(tmp_path, "r", _single("eee")), min_pass_rate=0.0, max_infra_errors=3
        )
        assert result.exit_code == 1
        assert result.decided_by is _rule(result, "min-pass-rate")
        assert result.decided_by.message == "no model has a counted result to judge"

    def test_a_model_with_one_counted_result_is_judged(self, tmp_path: Path) -> None:
        """One counted row (the others errored) is a rate to judge: 1 of 1 holds."""
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("pee")), min_pass_rate=0.9, max_infra_errors=2),
            "min-pass-rate",
        )
        assert rule.ok
        assert rule.message == "lowest pass rate 100.0% (m) >= 90.0% (margin 10.0 points)"

    def test_a_model_with_errors_only_is_left_out(self, tmp_path: Path) -> None:
        """A model that counted nothing neither passes nor fails the minimum."""
        outcomes = {**_single("ppp", "a"), **_single("eee", "b")}
        rule = _rule(
            run_gate(_run(tmp_path, "r", outcomes), min_pass_rate=0.9, max_infra_errors=3),
            "min-pass-rate",
        )
        assert rule.ok and "(a)" in rule.message


class TestMaxDrop:
    def test_a_drop_exactly_at_the_limit_passes(self, tmp_path: Path) -> None:
        """80% -> 60% against --max-drop 0.2: held, margin 0.0 (in floating point
        0.8 - 0.6 is a hair over 0.2)."""
        base = _baseline(_run(tmp_path, "b", _single("ppppppppff")))
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("ppppppffff")), max_drop=0.2, baseline=base),
            "max-drop",
        )
        assert rule.ok, rule.message
        assert rule.message == (
            "largest drop 20.0 points (m: 80.0% -> 60.0% on 10 shared cases) within 20.0 points "
            "(margin 0.0 points)"
        )

    def test_a_drop_over_the_limit_and_beyond_chance_fails(self, tmp_path: Path) -> None:
        """20 cases, 6 pass -> fail and none the other way: exact McNemar one-sided p = 1/64,
        under the rule's 5% (it is the only baseline rule on)."""
        base = _baseline(_run(tmp_path, "b", _single("p" * 20)))
        rule = _rule(
            run_gate(
                _run(tmp_path, "r", _single("p" * 14 + "f" * 6)), max_drop=0.05, baseline=base
            ),
            "max-drop",
        )
        assert not rule.ok
        assert rule.message == (
            "m: 100.0% -> 70.0% on 20 shared cases: a drop of 30.0 points, over the allowed "
            "5.0 points by 25.0 points, and beyond chance (exact McNemar: one-sided p=0.016 "
            "< 0.05)"
        )
        assert len(rule.details) == 1
        assert rule.details[0].startswith(
            "m: 100.0% -> 70.0% on 20 shared cases (drop 30.0 points, at least "
        )
        assert rule.details[0].endswith("with 95% confidence; exact McNemar: one-sided p=0.016)")

    def test_a_drop_over_the_limit_that_chance_explains_holds(self, tmp_path: Path) -> None:
        """One case of ten falls (100% -> 90%): over a limit of 5 points, but one-sided
        p = 0.5; the rule holds and says the drop is within chance (the old point-estimate
        rule failed here)."""
        base = _baseline(_run(tmp_path, "b", _single("pppppppppp")))
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("pppppppppf")), max_drop=0.05, baseline=base),
            "max-drop",
        )
        assert rule.ok
        assert rule.message == (
            "largest drop 10.0 points (m: 100.0% -> 90.0% on 10 shared cases) is over 5.0 "
            "points but within chance (exact McNemar: one-sided p=0.5 >= 0.05): two runs of one "
            "planner differ this much; more cases or --samples would tell"
        )

    def test_with_new_failures_on_the_rule_gets_half_the_level(self, tmp_path: Path) -> None:
        """The gate's 5% is split between the two baseline rules: one-sided p = 1/32 fails
        --max-drop alone (< 0.05) and holds beside --no-new-failures (>= 0.025)."""
        base = _baseline(_run(tmp_path, "b", _single("p" * 20)))
        run = _run(tmp_path, "r", _single("p" * 15 + "f" * 5))
        alone = _rule(run_gate(run, max_drop=0.05, baseline=base), "max-drop")
        assert not alone.ok and "one-sided p=0.031 < 0.05" in alone.message
        both = run_gate(run, max_drop=0.05, no_new_failures=True, baseline=base)
        assert both.rules[2].rule == "max-drop" and both.rules[2].ok
        assert "one-sided p=0.031 >= 0.025" in both.rules[2].message

    def test_a_rise_and_no_change_are_said_so(self, tmp_path: Path) -> None:
        base = _baseline(_run(tmp_path, "b", _single("ppff")))
        rise = run_gate(_run(tmp_path, "r", _single("pppf")), max_drop=0.0, baseline=base)
        assert _rule(rise, "max-drop").message.startswith(
            "largest rise 25.0 points (m: 50.0% -> 75.0%"
        )
        assert _rule(rise, "max-drop").message.endswith("within 0.0 points (margin 25.0 points)")
        same = run_gate(_run(tmp_path, "s", _single("ppff")), max_drop=0.0, baseline=base)
        assert _rule(same, "max-drop").ok
        assert _rule(same, "max-drop").message.startswith(
            "largest change 0.0 points (m: 50.0% -> 50.0%"
        )

    def test_the_largest_drop_decides_over_several_models(self, tmp_path: Path) -> None:
        """a drops 30 points, b 60, each beyond chance after Holm's correction over the two
        models: b is named first, both are in the details."""
        full = "p" * 20
        base = _baseline(_run(tmp_path, "b", {**_single(full, "a"), **_single(full, "b")}))
        run = _run(
            tmp_path,
            "r",
            {**_single("p" * 14 + "f" * 6, "a"), **_single("p" * 8 + "f" * 12, "b")},
        )
        rule = _rule(run_gate(run, max_drop=0.1, baseline=base), "max-drop")
        assert rule.message.startswith("b: 100.0% -> 40.0% on 20 shared cases: a drop of 60.0")
        assert "Holm-adjusted" in rule.message
        assert [d.split(":")[0] for d in rule.details] == ["b", "a"]

    def test_a_model_missing_from_the_baseline_does_not_stop_the_check(
        self, tmp_path: Path
    ) -> None:
        """A new model "a" (not in the baseline) comes before "b", which dropped: b fails."""
        base = _baseline(_run(tmp_path, "b", _single("pppppppp", "b")))
        run = _run(tmp_path, "r", {**_single("pppppppp", "a"), **_single("ffffffff", "b")})
        rule = _rule(run_gate(run, max_drop=0.1, baseline=base), "max-drop")
        assert not rule.ok and rule.message.startswith("b: 100.0% -> 0.0% on 8 shared cases")

    def test_only_shared_counted_cases_are_compared(self, tmp_path: Path) -> None:
        """The baseline passed c00-c03 and failed c04-c07; the run has only c00-c03 ... plus a
        new failing case c08 and an error on c00. Shared and counted: c01-c03, 3 of 3 before
        and after, so no drop."""
        base = _baseline(_run(tmp_path, "b", _single("ppppffff")))
        run = _run(
            tmp_path,
            "r",
            {
                ("m", "c00"): "e",
                ("m", "c01"): "p",
                ("m", "c02"): "p",
                ("m", "c03"): "p",
                ("m", "c08"): "f",
            },
        )
        rule = _rule(run_gate(run, max_drop=0.0, max_infra_errors=1, baseline=base), "max-drop")
        assert rule.ok
        assert "(m: 100.0% -> 100.0% on 3 shared cases)" in rule.message

    def test_the_floating_point_allowance_is_a_trillionth(self, tmp_path: Path) -> None:
        """A drop of 50 points (10 of 20 cases fall: beyond chance) holds against a limit a
        trillionth under 0.5, and fails against one a hundred-billionth under it."""
        base = _baseline(_run(tmp_path, "b", _single("p" * 20)))
        run = _run(tmp_path, "r", _single("p" * 10 + "f" * 10))
        assert _rule(run_gate(run, max_drop=0.5 - 1e-12, baseline=base), "max-drop").ok
        assert not _rule(run_gate(run, max_drop=0.5 - 1e-11, baseline=base), "max-drop").ok

    def test_same_model_but_no_shared_case_fails(self, tmp_path: Path) -> None:
        """The baseline's cases were renamed: nothing to compare, which is a failure."""
        base = _baseline(_run(tmp_path, "b", {("m", "old-a"): "p", ("m", "old-b"): "p"}))
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("pp")), max_drop=0.5, baseline=base), "max-drop"
        )
        assert not rule.ok
        assert rule.message == "no model and case shared with the baseline: nothing to compare"

    def test_nothing_shared_fails(self, tmp_path: Path) -> None:
        base = _baseline(_run(tmp_path, "b", _single("pp", "other-model")))
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("pp")), max_drop=0.5, baseline=base), "max-drop"
        )
        assert not rule.ok
        assert rule.message == "no model and case shared with the baseline: nothing to compare"


class TestNewFailures:
    def test_new_failures_beyond_chance_fail(self, tmp_path: Path) -> None:
        """Two cases 5/5 -> 0/5 among five: both flagged, strongest first, exit 1."""
        base = _baseline(_run(tmp_path, "b", _single("ppppp", samples=5)))
        run = _run(tmp_path, "r", _single("pfpfp", samples=5))
        rule = _rule(run_gate(run, no_new_failures=True, baseline=base), "no-new-failures")
        assert not rule.ok
        assert rule.message.startswith(
            "2 new failure(s) (every baseline sample passed; exact one-sided Fisher p <= 0.05 "
            "each), "
            "more than chance explains (P(>= 2 by chance) = "
        )
        assert rule.message.endswith(
            "<= 0.05, a Poisson-binomial count, not compare's paired test of the overall rate, "
            "which a few broken cases barely move); first: m / c01: 5/5 -> 0/5 (p=0.004)"
        )
        assert rule.details == ["m / c01: 5/5 -> 0/5 (p=0.004)", "m / c03: 5/5 -> 0/5 (p=0.004)"]

    def test_a_case_failing_in_the_baseline_is_not_new(self, tmp_path: Path) -> None:
        base = _baseline(_run(tmp_path, "b", _single("pf", samples=5)))
        rule = _rule(
            run_gate(
                _run(tmp_path, "r", _single("pf", samples=5)), no_new_failures=True, baseline=base
            ),
            "no-new-failures",
        )
        assert rule.ok and rule.message.startswith("no new failure on evidence: 0 case(s)")

    def test_one_sample_cannot_show_evidence_and_the_rule_says_how_many(
        self, tmp_path: Path
    ) -> None:
        base = _baseline(_run(tmp_path, "b", _single("pp")))
        rule = _rule(
            run_gate(_run(tmp_path, "r", _single("ff")), no_new_failures=True, baseline=base),
            "no-new-failures",
        )
        assert rule.ok
        assert rule.message.startswith(
            "no case can show a new failure with 1 baseline sample(s) per case (even 0 passes "
            "now would give p > 0.05); 2 case(s) passing every baseline sample fail some now"
        )

    def test_an_uncounted_case_is_not_compared(self, tmp_path: Path) -> None:
        """c00 errored in every sample now: not a new failure, and not evidence either way."""
        base = _baseline(_run(tmp_path, "b", _single("pp", samples=5)))
        run = _run(tmp_path, "r", {("m", "c00"): "eeeee", ("m", "c01"): "ppppp"})
        rule = _rule(
            run_gate(run, no_new_failures=True, max_infra_errors=5, baseline=base),
            "no-new-failures",
        )
        assert rule.ok
        assert rule.message == (
            "no new failure on evidence: 0 case(s) passing every baseline sample fail some "
            "sample now, none at p <= 0.05"
        )

    def test_a_flagged_case_alone_can_be_chance(self, tmp_path: Path) -> None:
        """One case 5/5 -> 1/5 (p = 0.024) among many flaky cases: chance explains it."""
        outcomes = _single("p" * 12, samples=5)
        base_outcomes = dict(outcomes)
        for i in range(1, 12):  # flaky cases: a failure in the baseline and now
            base_outcomes[("m", f"c{i:02d}")] = "ppppf"
            outcomes[("m", f"c{i:02d}")] = "pffff"
        outcomes[("m", "c00")] = "pffff"
        base = _baseline(_run(tmp_path, "b", base_outcomes))
        rule = _rule(
            run_gate(_run(tmp_path, "r", outcomes), no_new_failures=True, baseline=base),
            "no-new-failures",
        )
        assert rule.ok, rule.message
        assert rule.message.startswith("1 case(s) at p <= 0.05, as many as chance gives (P(>= 1 by")
        assert "> 0.05; " in rule.message and rule.message.endswith(" expected)")

    def test_a_case_new_since_the_baseline_is_not_compared(self, tmp_path: Path) -> None:
        """c02 is not in the baseline: it fails every sample, yet it is no new failure."""
        base = _baseline(_run(tmp_path, "b", _single("pp", samples=5)))
        run = _run(tmp_path, "r", _single("ppf", samples=5))
        rule = _rule(run_gate(run, no_new_failures=True, baseline=base), "no-new-failures")
        assert rule.ok and rule.message.startswith("no new failure on evidence: 0 case(s)")

    def test_the_sample_count_said_is_that_of_the_compared_cases(self, tmp_path: Path) -> None:
        """c00 (3 baseline samples) errored in every sample now and is not compared; c01 had
        2 counted baseline samples (one error), too few for evidence: the rule says 2."""
        base = _baseline(_run(tmp_path, "b", {("m", "c00"): "ppp", ("m", "c01"): "ppe"}))
        run = _run(tmp_path, "r", {("m", "c00"): "eee", ("m", "c01"): "ppp"})
        rule = _rule(
            run_gate(run, no_new_failures=True, max_infra_errors=3, baseline=base),
            "no-new-failures",
        )
        assert rule.ok
        assert rule.message.startswith(
            "no case can show a new failure with 2 baseline sample(s) per case"
        )

    def test_no_shared_case_fails_as_max_drop_does(self, tmp_path: Path) -> None:
        """A baseline whose cases were all renamed (or of another suite) gates nothing: the
        rule fails with the same message as --max-drop instead of passing vacuously."""
        base = _baseline(_run(tmp_path, "b", {("m", "old"): "ppppp"}))
        run = _run(tmp_path, "r", _single("f", samples=5))
        result = run_gate(run, no_new_failures=True, max_drop=0.5, baseline=base)
        assert result.exit_code == 1
        rules = {r.rule: r for r in result.rules}
        for name in ("no-new-failures", "max-drop"):
            rule = rules[name]
            assert (rule.ok, rule.exit_code) == (False, 1)
            assert rule.message == "no model and case shared with the baseline: nothing to compare"

    def test_shared_cases_that_all_errored_now_are_not_called_unshared(
        self, tmp_path: Path
    ) -> None:
        """Shared cases whose samples are all infrastructure errors now: nothing is compared,
        so neither baseline rule passes, and the message says the items are shared but not
        counted instead of blaming the baseline (it said "no model and case shared")."""
        base = _baseline(_run(tmp_path, "b", _single("ppppp", samples=5)))
        run = _run(tmp_path, "r", {("m", "c00"): "eeeee"})
        result = run_gate(
            run, no_new_failures=True, max_drop=0.05, max_infra_errors=5, baseline=base
        )
        for rule in result.rules[2:]:
            assert not rule.ok
            assert rule.message == (
                "1 model x case item(s) are in the baseline and the run, but none was counted "
                "in the run (all missing, stale or error): nothing to compare"
            )
