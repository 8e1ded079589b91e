"""``compare_runs`` field by field on runs worked out by hand: the verdict sentences, the JSON
of a test, the headline, which models are paired, the flips, the per-check failure rates and
the figures, all on the shared items only (issue 14: each was a surviving mutant of
``harness/compare/_compare.py``)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.compare import Flip, IncomparableRunsError, compare_runs
from harness.report import LoadedRun, load_run, summarize
from harness.stats import paired_test
from tests.report._synthetic import make_run

Outcomes = dict[tuple[str, str], str]


def _runs(tmp_path: Path, base: Outcomes, cand: Outcomes, **kw: Any) -> tuple[LoadedRun, LoadedRun]:
    return (
        load_run(make_run(tmp_path / "base", base)),
        load_run(make_run(tmp_path / "cand", cand, **kw)),
    )


def _single(pattern: str, model: str = "m") -> dict[tuple[str, str], str]:
    return {(model, f"c{i:02d}"): x for i, x in enumerate(pattern)}


class TestVerdictText:
    def test_better(self, tmp_path: Path) -> None:
        """8 fail->pass of 10, none back: p = 2 / 2^8 = 0.0078125."""
        c = compare_runs(*_runs(tmp_path, _single("f" * 8 + "pp"), _single("p" * 10)))
        assert c.overall.verdict_text == "better (+80.0 points, p=0.00781, n=10)"
        assert c.per_model == {"m": c.overall} and c.overall.adjusted is False

    def test_worse(self, tmp_path: Path) -> None:
        c = compare_runs(*_runs(tmp_path, _single("p" * 10), _single("f" * 8 + "pp")))
        assert c.overall.verdict_text == "worse (-80.0 points, p=0.00781, n=10)"

    def test_six_cases_is_the_floor_of_the_detectable_size(self, tmp_path: Path) -> None:
        """10 cases, 2 flips: 2.8 · sqrt(2)/10 = 0.40 is below 6/10, so ~60 points."""
        c = compare_runs(*_runs(tmp_path, _single("ffpppppppp"), _single("pppppppppp")))
        assert c.overall.smallest_detectable == pytest.approx(0.6)
        assert c.overall.verdict_text == (
            "no significant difference (n=10, smallest detectable difference ~60 points)"
        )

    def test_many_cases_use_the_standard_error(self, tmp_path: Path) -> None:
        """100 cases, 15 flips each way: 2.8 · sqrt(30)/100 = 0.153 is above 6/100."""
        base = _single("p" * 15 + "f" * 15 + "p" * 70)
        cand = _single("f" * 15 + "p" * 15 + "p" * 70)
        c = compare_runs(*_runs(tmp_path, base, cand))
        assert c.overall.smallest_detectable == pytest.approx(2.8 * math.sqrt(30) / 100)
        assert c.overall.verdict_text == (
            "no significant difference (n=100, smallest detectable difference ~15 points)"
        )

    @pytest.mark.parametrize(("pattern", "expected"), [("p", 1.0), ("pf", 1.0), ("pfp", 1.0)])
    def test_few_cases_can_detect_at_most_everything(
        self, tmp_path: Path, pattern: str, expected: float
    ) -> None:
        """One to three cases: six cases' worth is more than the whole range, so 100 points;
        nothing changed, so the interval is the point 0, and the text says why beside the
        detectable difference."""
        c = compare_runs(*_runs(tmp_path, _single(pattern), _single(pattern)))
        assert c.overall.smallest_detectable == expected
        assert c.overall.to_dict()["smallest_detectable_difference"] == expected
        assert c.overall.verdict_text.endswith(
            "smallest detectable difference ~100 points; the interval has zero width: no case "
            "changed outcome, so the exact interval is the single point 0)"
        )

    def test_nothing_shared_has_no_detectable_size(self, tmp_path: Path) -> None:
        c = compare_runs(*_runs(tmp_path, {("m", "a"): "p"}, {("m", "b"): "p"}))
        assert math.isnan(c.overall.smallest_detectable)
        assert c.overall.verdict == "no significant difference"
        assert c.overall.to_dict()["smallest_detectable_difference"] is None

    def test_holm_adjusted_sentence(self, tmp_path: Path) -> None:
        """x: 7 fail->pass of 30, p = 2/2^7 = 0.015625, doubled by Holm; y unchanged."""
        base = {(m, f"c{i:02d}"): "p" if i < 10 else "f" for m in ("x", "y") for i in range(30)}
        cand = {("x", f"c{i:02d}"): "p" if i < 17 else "f" for i in range(30)}
        cand |= {("y", f"c{i:02d}"): "p" if i < 10 else "f" for i in range(30)}
        c = compare_runs(*_runs(tmp_path, base, cand))
        x = c.per_model["x"]
        assert (x.p_value, x.p_adjusted, x.adjusted) == (0.015625, 0.03125, True)
        assert x.verdict_text == "better (+23.3 points, p=0.0312, Holm-adjusted, n=30)"
        assert c.per_model["y"].result.alpha == 0.05 and x.result.alpha == 0.025
        assert c.overall.adjusted is False and "Holm" not in c.overall.verdict_text


class TestTestAsJson:
    def test_every_field(self, tmp_path: Path) -> None:
        """The JSON of a test rounds to six decimals and says which p the verdict used."""
        c = compare_runs(*_runs(tmp_path, _single("f" * 8 + "pp"), _single("p" * 10)))
        o = c.overall
        assert o.to_dict() == {
            "method": "mcnemar-exact",
            "n": 10,
            "base_rate": 0.2,
            "cand_rate": 1.0,
            "difference": 0.8,
            "interval": [round(o.low, 6), 0.8],
            "confidence": 0.95,
            "p_value": 0.007812,
            "p_adjusted": 0.007812,
            "holm_adjusted": False,
            "smallest_detectable_difference": 0.79196,  # 2.8 · sqrt(8) / 10
            "pass_to_fail": 0,
            "fail_to_pass": 8,
            "verdict": "better",
            "verdict_text": "better (+80.0 points, p=0.00781, n=10)",
        }
        assert o.low == pytest.approx((2 * 0.025 ** (1 / 8) - 1) * 8 / 10, abs=1e-12)

    def test_nothing_compared_is_null_not_nan(self, tmp_path: Path) -> None:
        c = compare_runs(*_runs(tmp_path, {("m", "a"): "p"}, {("m", "b"): "f"}))
        d = c.overall.to_dict()
        got = (d["n"], d["base_rate"], d["difference"], d["interval"])
        assert got == (0, None, None, [None, None])
        json.dumps(d, allow_nan=False)


class TestHeadline:
    def test_cases_only_in_base(self, tmp_path: Path) -> None:
        base = _single("ppp") | {("m", "old"): "f"}
        c = compare_runs(*_runs(tmp_path, base, _single("ppp")))
        assert c.coverage == {"compared": 3, "base_only": 1, "cand_only": 0}
        assert c.headline == (
            "3 case(s) compared; left out: 1 case(s) only in base, 0 only in the candidate"
        )

    def test_cases_only_in_the_candidate(self, tmp_path: Path) -> None:
        cand = _single("ppp") | {("m", "new"): "f"}
        c = compare_runs(*_runs(tmp_path, _single("ppp"), cand))
        assert c.coverage == {"compared": 3, "base_only": 0, "cand_only": 1}
        assert c.headline == (
            "3 case(s) compared; left out: 0 case(s) only in base, 1 only in the candidate"
        )

    def test_nothing_left_out(self, tmp_path: Path) -> None:
        c = compare_runs(*_runs(tmp_path, _single("pf"), _single("fp")))
        assert c.headline == "2 case(s) compared; no case left out"

    def test_a_case_compared_for_another_model_is_not_left_out(self, tmp_path: Path) -> None:
        """Case b is counted for model x on both sides but for y only in base: it is still a
        compared case, so no case is left out (the item y/b is listed)."""
        base = {("x", "a"): "p", ("x", "b"): "p", ("y", "a"): "p", ("y", "b"): "p"}
        cand = {("x", "a"): "p", ("x", "b"): "p", ("y", "a"): "p", ("y", "b"): "m"}
        c = compare_runs(*_runs(tmp_path, base, cand))
        assert c.only_in_base == [("y", "b")]
        assert c.coverage == {"compared": 2, "base_only": 0, "cand_only": 0}


def _two_models(tmp_path: Path) -> tuple[LoadedRun, LoadedRun]:
    base = _single("pppp", "x") | _single("ffff", "y")
    cand = _single("ffpp", "x") | _single("pppp", "y")
    return _runs(tmp_path, base, cand)


class TestPairing:
    def test_base_model_alone_names_both_sides(self, tmp_path: Path) -> None:
        c = compare_runs(*_two_models(tmp_path), base_model="y")
        assert c.pairs == [("y", "y")] and list(c.per_model) == ["y"]
        assert c.overall.difference == 1.0
        assert c.unpaired_models == {"base": ["x"], "cand": ["x"]}

    def test_cand_model_alone_names_both_sides(self, tmp_path: Path) -> None:
        c = compare_runs(*_two_models(tmp_path), cand_model="x")
        assert c.pairs == [("x", "x")] and list(c.per_model) == ["x"]
        assert c.overall.difference == -0.5
        assert c.unpaired_models == {"base": ["y"], "cand": ["y"]}

    def test_two_named_models_are_keyed_base_arrow_cand(self, tmp_path: Path) -> None:
        """x in base against y in the candidate: every field says ``x -> y``."""
        c = compare_runs(*_two_models(tmp_path), base_model="x", cand_model="y")
        assert c.pairs == [("x", "y")] and list(c.per_model) == ["x -> y"]
        assert c.unpaired_models == {"base": ["y"], "cand": ["x"]}
        assert set(c.items["model"]) == {"x -> y"}
        assert set(c.check_deltas["model"]) == {"x -> y"}
        assert list(c.figures["base"].index) == ["x -> y"] == list(c.figures["cand"].index)
        assert c.to_fail == [] and c.overall.difference == 0.0

    def test_one_model_each_with_other_names_pair_up(self, tmp_path: Path) -> None:
        c = compare_runs(*_runs(tmp_path, _single("pf", "a"), _single("pp", "b")))
        assert c.pairs == [("a", "b")]
        assert c.to_pass == [Flip("a -> b", "c01", "0/1", "1/1")]
        assert c.unpaired_models == {"base": [], "cand": []}

    def test_shared_models_are_paired_by_name(self, tmp_path: Path) -> None:
        c = compare_runs(*_two_models(tmp_path))
        assert c.pairs == [("x", "x"), ("y", "y")] and list(c.per_model) == ["x", "y"]

    def test_two_models_against_one_other_is_refused(self, tmp_path: Path) -> None:
        b, c = _runs(tmp_path, _single("p", "a") | _single("p", "b"), _single("p", "c"))
        with pytest.raises(IncomparableRunsError) as err:
            compare_runs(b, c)
        assert err.value.what == "the runs have no model in common"
        assert err.value.hint == "choose the pair with --base-model and --cand-model"
        assert err.value.source == f"{b.run_dir} vs {c.run_dir}"

    @pytest.mark.parametrize(
        ("base_model", "cand_model", "side", "which"),
        [("z", "x", "base", "base"), ("x", "z", "cand", "candidate")],
    )
    def test_a_model_missing_from_one_run(
        self, tmp_path: Path, base_model: str, cand_model: str, side: str, which: str
    ) -> None:
        b, c = _two_models(tmp_path)
        with pytest.raises(IncomparableRunsError) as err:
            compare_runs(b, c, base_model=base_model, cand_model=cand_model)
        assert err.value.what == f"model 'z' is not in the {which} run (it has x, y)"
        assert err.value.source == str(tmp_path / side)

    def test_different_suites(self, tmp_path: Path) -> None:
        b, c = _runs(tmp_path, _single("p"), _single("p"), suite="other")
        with pytest.raises(IncomparableRunsError) as err:
            compare_runs(b, c)
        assert err.value.what == "the runs are of different suites ('synthetic' vs 'other')"
        assert err.value.hint == "compare two runs of the same suite"
        assert err.value.source == f"{b.run_dir} vs {c.run_dir}"


class TestFlips:
    def test_flips_show_passed_of_counted(self, tmp_path: Path) -> None:
        """A flip is an item that passed every sample on one side and not on the other;
        an item partly passing on both sides is not a flip."""
        base = {("m", "a"): "pp", ("m", "b"): "pf", ("m", "c"): "ff", ("m", "d"): "pf"}
        cand = {("m", "a"): "pf", ("m", "b"): "pp", ("m", "c"): "fp", ("m", "d"): "fp"}
        c = compare_runs(*_runs(tmp_path, base, cand))
        assert c.to_fail == [Flip("m", "a", "2/2", "1/2")]
        assert c.to_pass == [Flip("m", "b", "1/2", "2/2")]

    def test_missing_samples_are_not_counted(self, tmp_path: Path) -> None:
        c = compare_runs(*_runs(tmp_path, {("m", "a"): "pm"}, {("m", "a"): "fpm"}))
        assert c.to_fail == [Flip("m", "a", "1/1", "1/2")]
        assert c.items.to_dict("records") == [
            {"case": "a", "model": "m", "counted_b": 1, "passed_b": 1, "counted_c": 2,
             "passed_c": 1}
        ]  # fmt: skip
        assert list(c.items.index) == [0]


class TestCheckDeltas:
    def test_failure_rates_on_shared_items_of_paired_models(self, tmp_path: Path) -> None:
        """Shared items m/a and m/b. Base: a = pass, pass, warn; b unparseable (no checks).
        Candidate: a = fail, pass; b = warn. A warning counts as a failure of its check, a
        skipped check is not counted, and the old case and the unpaired model x are left out."""
        base = {("m", "a"): "ppw", ("m", "b"): "u", ("m", "old"): "ff", ("x", "a"): "ff"}
        cand = {("m", "a"): "fp", ("m", "b"): "w", ("m", "new"): "ff"}
        c = compare_runs(*_runs(tmp_path, base, cand))
        got = c.check_deltas.set_index("check")
        assert list(c.check_deltas.columns) == [
            "check",
            "model",
            "base_rate",
            "cand_rate",
            "delta",
            "base_n",
            "cand_n",
        ]
        assert list(got.index) == ["schema", "acyclic", "deps_resolve", "isolated_task"]
        assert set(got["model"]) == {"m"}
        assert got["base_n"].tolist() == [3, 3, 3, 3]
        assert got["cand_n"].tolist() == [3, 3, 3, 3]
        assert got["base_rate"].tolist() == pytest.approx([0, 0, 0, 1 / 3])
        assert got["cand_rate"].tolist() == pytest.approx([0, 1 / 3, 0, 1 / 3])
        assert got["delta"].tolist() == pytest.approx([0, 1 / 3, 0, 0])

    def test_a_side_without_checks_has_no_rate(self, tmp_path: Path) -> None:
        """Every base sample of the shared case unparseable: no check ran there, so the base
        rate is unknown (not 0) and so is the change."""
        c = compare_runs(*_runs(tmp_path, {("m", "a"): "uu"}, {("m", "a"): "pf"}))
        acyclic = c.check_deltas.set_index("check").loc["acyclic"]
        assert (acyclic["base_n"], acyclic["cand_n"], acyclic["cand_rate"]) == (0, 2, 0.5)
        assert math.isnan(acyclic["base_rate"]) and math.isnan(acyclic["delta"])
        c = compare_runs(*_runs(tmp_path / "2", {("m", "a"): "pf"}, {("m", "a"): "uu"}))
        acyclic = c.check_deltas.set_index("check").loc["acyclic"]
        assert (acyclic["base_n"], acyclic["cand_n"], acyclic["base_rate"]) == (2, 0, 0.5)
        assert math.isnan(acyclic["cand_rate"]) and math.isnan(acyclic["delta"])


class TestFigures:
    def test_figures_count_the_shared_items_only(self, tmp_path: Path) -> None:
        """Usage and cost of each side come from its samples of the compared items."""
        b, c = _runs(
            tmp_path,
            {("a", "x"): "pp", ("a", "old"): "ppp"},
            {("b", "x"): "pf", ("b", "new"): "p"},
        )
        for run, model in ((b, "a"), (c, "b")):
            manifest = json.loads((run.run_dir / "run.json").read_text())
            manifest["prices"] = {model: {"input": 1.0, "output": 2.0}}
            (run.run_dir / "run.json").write_text(json.dumps(manifest))
        result = compare_runs(load_run(b.run_dir), load_run(c.run_dir))
        for side in ("base", "cand"):
            row = result.figures[side].loc["a -> b"]
            assert (row["usage_calls"], row["tokens_in"], row["tokens_out"]) == (2, 20, 10)
            assert row["cost_usd"] == pytest.approx((20 * 1.0 + 10 * 2.0) / 1e6)


class TestSeed:
    def test_the_seed_reaches_the_sign_flip_test(self, tmp_path: Path) -> None:
        """Several samples per case and more than EXACT_CASES (20) cases: the overall test is
        ``paired_test`` over the per-case sums with the seed asked for, and another seed gives
        another p-value (up to 20 cases the test is exact and no seed changes it)."""
        base = {("m", f"c{i:02d}"): "pff" if i % 2 else "ppf" for i in range(24)}
        cand = {("m", f"c{i:02d}"): "ppf" if i % 3 else "fff" for i in range(24)}
        b, c = _runs(tmp_path, base, cand)
        yb = [2 - i % 2 for i in range(24)]
        yc = [2 if i % 3 else 0 for i in range(24)]
        ps = set()
        for seed in (0, 1, 2, 3):
            got = compare_runs(b, c, seed=seed).overall.result
            assert got == paired_test(yb, [3] * 24, yc, [3] * 24, seed=seed)
            ps.add(got.p_value)
        assert len(ps) > 1
        assert compare_runs(b, c).overall.result == compare_runs(b, c, seed=0).overall.result

    def test_per_model_tests_use_the_seed(self, tmp_path: Path) -> None:
        yb = np.array([2 - i % 2 for i in range(12)])
        yc = np.array([2 + i % 2 if i % 4 else 1 for i in range(12)])  # p about 0.12
        base = {(m, f"c{i:02d}"): "p" * y + "f" * (3 - y) for m in "xy" for i, y in enumerate(yb)}
        cand = {(m, f"c{i:02d}"): "p" * y + "f" * (3 - y) for m in "xy" for i, y in enumerate(yc)}
        b, c = _runs(tmp_path, base, cand)
        for seed in (0, 5):
            x = compare_runs(b, c, seed=seed).per_model["x"].result
            one = paired_test(yb, [3] * 12, yc, [3] * 12, seed=seed)
            assert x.p_value == one.p_value
            # both models have the same data: Holm doubles the one p-value
            per_model = compare_runs(b, c, seed=seed).per_model
            assert per_model["x"].p_adjusted == per_model["y"].p_adjusted
            assert per_model["x"].p_adjusted == min(1.0, 2 * one.p_value)

    def test_model_names_do_not_change_the_overall_test(self, tmp_path: Path) -> None:
        """The overall test takes the cases in the order of their ids: renaming model y (whose
        case c0 model x lacks) so that it sorts first gives the same p-value and interval."""
        outcomes = {("x", f"c{i}"): "ppf" if i % 2 else "pff" for i in range(1, 9)}
        outcomes |= {("y", f"c{i}"): "pff" if i % 3 else "ppp" for i in range(9)}
        better = {key: "ppp" if key[1] in ("c0", "c2", "c5") else v for key, v in outcomes.items()}
        renamed = {("a" if m == "y" else m, c): v for (m, c), v in outcomes.items()}
        renamed_better = {("a" if m == "y" else m, c): v for (m, c), v in better.items()}
        one = compare_runs(*_runs(tmp_path / "1", outcomes, better)).overall.result
        two = compare_runs(*_runs(tmp_path / "2", renamed, renamed_better)).overall.result
        assert one.method == "sign-flip" and one.cases == 9
        assert one == two


def test_p_exactly_at_the_level_is_not_significant(tmp_path: Path) -> None:
    """A sign-flip p-value of exactly 100/2000 = 0.05 (21 cases, random flips; data and seed
    found by search) is not below the level: no significant difference, and zero stays inside
    the interval. (Up to 20 cases the test is exact: p is a multiple of 2**-n, never 0.05.)"""
    yb = [0, 1, 0, 3, 2, 1, 0, 3, 1, 1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1]
    yc = [3, 0, 1, 3, 2, 0, 3, 2, 2, 0, 1, 2, 0, 3, 1, 1, 1, 3, 1, 0, 3]

    def runs(passed: list[int]) -> Outcomes:
        return {("m", f"c{i:02d}"): "p" * y + "f" * (3 - y) for i, y in enumerate(passed)}

    o = compare_runs(*_runs(tmp_path, runs(yb), runs(yc)), seed=0).overall
    assert (o.method, o.p_value, o.p_adjusted) == ("sign-flip", 0.05, 0.05)
    assert o.verdict == "no significant difference"
    assert o.low < 0.0 < o.high


def test_the_summaries_of_both_runs_are_kept(tmp_path: Path) -> None:
    """Writers that show more than the comparison read each run's summary from it."""
    b, c = _runs(tmp_path, _single("pf"), _single("pp") | {("m", "new"): "p"})
    result = compare_runs(b, c)
    assert result.base_summary is not None and result.cand_summary is not None
    assert result.base_summary.models.equals(summarize(b).models)
    assert result.cand_summary.models.equals(summarize(c).models)


def test_a_row_without_checks_adds_nothing_to_the_check_rates(tmp_path: Path) -> None:
    """A row whose ``checks`` field is absent (an older or hand-written results.jsonl) is
    read as no checks, not as an error."""
    b, c = _runs(tmp_path, {("m", "a"): "pu"}, {("m", "a"): "pp"})
    path = b.run_dir / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    del rows[1]["checks"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = compare_runs(load_run(b.run_dir), c)
    acyclic = result.check_deltas.set_index("check").loc["acyclic"]
    assert (acyclic["base_n"], acyclic["cand_n"], acyclic["base_rate"]) == (1, 2, 0.0)
