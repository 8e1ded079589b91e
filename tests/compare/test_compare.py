"""``compare``: flips, McNemar against scipy, the sign-flip test with several samples, honest
verdicts that agree with their intervals, shared cases only, Holm, different suites refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.compare import IncomparableRunsError, compare_runs
from harness.report import load_run, summarize
from tests.report._synthetic import make_run

runner = CliRunner()


def _runs(tmp_path: Path, base: dict, cand: dict, **kw):  # type: ignore[no-untyped-def]
    return (
        load_run(make_run(tmp_path / "base", base)),
        load_run(make_run(tmp_path / "cand", cand, **kw)),
    )


def _single(pattern: str) -> dict[tuple[str, str], str]:
    return {("m", f"c{i:02d}"): x for i, x in enumerate(pattern)}


def test_mcnemar_on_paired_cases_matches_scipy(tmp_path: Path) -> None:
    """2 pass->fail and 10 fail->pass of 20 cases: p equals binomtest(2, 12, 0.5)."""
    base = _single("pp" + "f" * 10 + "p" * 4 + "f" * 4)
    cand = _single("ff" + "p" * 10 + "p" * 4 + "f" * 4)
    c = compare_runs(*_runs(tmp_path, base, cand))
    o = c.overall
    assert o.method == "mcnemar-exact"
    assert (o.pass_to_fail, o.fail_to_pass, o.n) == (2, 10, 20)
    assert o.p_value == pytest.approx(binomtest(2, 12, 0.5).pvalue)
    assert o.verdict == "better"
    assert [f.case for f in c.to_fail] == ["c00", "c01"]
    assert len(c.to_pass) == 10


def test_worse(tmp_path: Path) -> None:
    """Eight cases flip to fail and none back: worse."""
    c = compare_runs(*_runs(tmp_path, _single("p" * 10), _single("f" * 8 + "pp")))
    assert c.overall.verdict == "worse"
    assert c.overall.difference == pytest.approx(-0.8)


def test_small_difference_is_not_called(tmp_path: Path) -> None:
    """Two flips out of ten: no significant difference, with n and a detectable size."""
    c = compare_runs(*_runs(tmp_path, _single("ffpppppppp"), _single("pppppppppp")))
    assert c.overall.verdict == "no significant difference"
    text = c.overall.verdict_text
    assert "n=10" in text and "smallest detectable difference ~" in text


def test_several_samples_use_a_seeded_sign_flip_test(tmp_path: Path) -> None:
    """With 3 samples per case the test is a sign-flip permutation test, reproducible."""
    base = {("m", f"c{i:02d}"): "pff" for i in range(30)}
    cand = {("m", f"c{i:02d}"): "ppf" if i % 3 else "ppp" for i in range(30)}
    b, c = _runs(tmp_path, base, cand)
    one, two = compare_runs(b, c, seed=3), compare_runs(b, c, seed=3)
    assert one.overall.method == "sign-flip"
    assert (one.overall.low, one.overall.high) == (two.overall.low, two.overall.high)
    assert one.overall.difference == pytest.approx((20 * 2 / 3 + 10) / 30 - 1 / 3)
    assert one.overall.verdict == "better"


def test_cases_in_one_run_only_are_listed_not_compared(tmp_path: Path) -> None:
    """A case dropped from the candidate and one added are listed apart."""
    base = {("m", "a"): "p", ("m", "old"): "f"}
    cand = {("m", "a"): "p", ("m", "new"): "p"}
    c = compare_runs(*_runs(tmp_path, base, cand))
    assert c.only_in_base == [("m", "old")] and c.only_in_cand == [("m", "new")]
    assert c.overall.n == 1


def test_missing_rows_are_not_flips(tmp_path: Path) -> None:
    """A case whose candidate recording is missing is not a pass->fail flip."""
    c = compare_runs(
        *_runs(tmp_path, {("m", "a"): "p", ("m", "b"): "p"}, {("m", "a"): "m", ("m", "b"): "p"})
    )
    assert c.to_fail == [] and c.only_in_base == [("m", "a")]


def test_different_suites_are_refused(tmp_path: Path) -> None:
    """Runs of two suites cannot be compared."""
    b, c = _runs(tmp_path, _single("p"), _single("p"), suite="other")
    with pytest.raises(IncomparableRunsError, match="different suites"):
        compare_runs(b, c)


def test_two_models_of_one_run(tmp_path: Path) -> None:
    """--base-model / --cand-model compare two models of the same run case by case."""
    run = make_run(
        tmp_path / "r",
        {**{("x", f"c{i}"): "p" for i in range(8)}, **{("y", f"c{i}"): "f" for i in range(8)}},
    )
    loaded = load_run(run)
    c = compare_runs(loaded, loaded, base_model="x", cand_model="y")
    assert c.overall.verdict == "worse" and c.overall.n == 8


class TestCli:
    def test_text_ends_with_the_verdict(self, tmp_path: Path) -> None:
        """The last line of text output is the overall verdict."""
        make_run(tmp_path / "b", _single("p" * 10))
        make_run(tmp_path / "c", _single("f" * 8 + "pp"))
        result = runner.invoke(app, ["compare", str(tmp_path / "b"), str(tmp_path / "c")])
        assert result.exit_code == 0
        last = result.stdout.strip().splitlines()[-1]
        assert last.startswith("overall:") and "worse" in last

    def test_json_and_markdown(self, tmp_path: Path) -> None:
        """JSON carries the verdict and flips; markdown has the table."""
        make_run(tmp_path / "b", _single("pf"))
        make_run(tmp_path / "c", _single("pp"))
        args = ["compare", str(tmp_path / "b"), str(tmp_path / "c")]
        data = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
        assert data["overall"]["verdict"] == "no significant difference"
        assert data["flips"]["fail_to_pass"] == [
            {"model": "m", "case": "c01", "base": "0/1", "cand": "1/1"}
        ]
        md = runner.invoke(app, [*args, "--format", "markdown"]).stdout
        assert "| **overall** |" in md

    def test_different_suites_exit_2(self, tmp_path: Path) -> None:
        """One clear line and exit 2."""
        make_run(tmp_path / "b", _single("p"))
        make_run(tmp_path / "c", _single("p"), suite="other")
        result = runner.invoke(app, ["compare", str(tmp_path / "b"), str(tmp_path / "c")])
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1 and "different suites" in result.stderr


def test_no_shared_case_is_n_0(tmp_path: Path) -> None:
    """Disjoint cases: nothing is compared, and the verdict says so."""
    c = compare_runs(*_runs(tmp_path, {("m", "a"): "p"}, {("m", "b"): "f"}))
    assert c.overall.n == 0
    assert c.overall.verdict_text == "no significant difference (n=0: nothing to compare)"


def test_no_model_in_common_is_refused(tmp_path: Path) -> None:
    """Two models each side with no id in common: pick a pair explicitly."""
    b, c = _runs(
        tmp_path,
        {("a", "x"): "p", ("b", "x"): "p"},
        {("c", "x"): "p", ("d", "x"): "p"},
    )
    with pytest.raises(IncomparableRunsError, match="--base-model"):
        compare_runs(b, c)


def test_verdict_agrees_with_its_interval(tmp_path: Path) -> None:
    """The issue's case: 40 cases, 5 fail->pass, none back. p=0.0625: no significant
    difference, and the printed interval reaches below zero (-0.595 points, rounded outward
    to -0.6: rounding toward zero printed -0.5)."""
    base = _single("f" * 5 + "p" * 35)
    c = compare_runs(*_runs(tmp_path, base, _single("p" * 40)))
    o = c.overall
    assert o.verdict == "no significant difference" and o.low < 0 < o.high
    out = runner.invoke(app, ["compare", str(tmp_path / "base"), str(tmp_path / "cand")]).stdout
    last = out.strip().splitlines()[-1]
    assert "95% CI -0.6 pts to +12.5 pts" in last and "no significant difference" in last


def test_everything_is_on_shared_cases(tmp_path: Path) -> None:
    """A candidate that drops four failing cases and adds two: its rate, the verdict and the
    check deltas use only the 6 shared cases; the headline counts what was left out."""
    base = {("m", f"c{i}"): "p" for i in range(6)} | {("m", f"old{i}"): "f" for i in range(4)}
    cand = {("m", f"c{i}"): "p" for i in range(6)} | {("m", f"new{i}"): "p" for i in range(2)}
    c = compare_runs(*_runs(tmp_path, base, cand))
    assert c.coverage == {"compared": 6, "base_only": 4, "cand_only": 2}
    assert c.headline == (
        "6 case(s) compared; left out: 4 case(s) only in base, 2 only in the candidate"
    )
    assert (c.overall.base_rate, c.overall.cand_rate) == (1.0, 1.0)
    acyclic = c.check_deltas.set_index("check").loc["acyclic"]
    assert (acyclic["base_rate"], acyclic["delta"], acyclic["base_n"]) == (0.0, 0.0, 6)
    out = runner.invoke(app, ["compare", str(tmp_path / "base"), str(tmp_path / "cand")])
    assert "6 case(s) compared; left out: 4 case(s) only in base" in out.stdout
    assert "acyclic" not in out.stdout  # no check changed on the shared cases


def test_compare_and_report_show_the_same_rate(tmp_path: Path) -> None:
    """Uneven samples per case (a missing sample): both use the pooled rate."""
    base = {("m", "a"): "pf", ("m", "b"): "pmm", ("m", "c"): "fff"}
    b, c = _runs(tmp_path, base, base)
    report_rate = summarize(b).models.loc["m", "rate"]
    assert report_rate == pytest.approx(2 / 6)
    assert compare_runs(b, c).overall.base_rate == pytest.approx(report_rate)


def test_several_models_are_holm_corrected(tmp_path: Path) -> None:
    """Two model pairs: per-model p-values are Holm-adjusted and the intervals are at the
    level Holm tested each at (97.5% for the smaller p)."""
    base = {(m, f"c{i:02d}"): "p" if i < 10 else "f" for m in ("x", "y") for i in range(30)}
    cand = {("x", f"c{i:02d}"): "p" if i < 17 else "f" for i in range(30)}
    cand |= {("y", f"c{i:02d}"): "p" if i < 10 else "f" for i in range(30)}
    c = compare_runs(*_runs(tmp_path, base, cand))
    x, y = c.per_model["x"], c.per_model["y"]
    assert x.p_adjusted == pytest.approx(2 * x.p_value) and x.confidence == 0.975
    assert x.verdict == "better" and x.low > 0 and "Holm-adjusted" in x.verdict_text
    assert y.verdict == "no significant difference" and y.confidence == 0.95


def test_two_models_of_one_run_print_no_only_in_lines(tmp_path: Path) -> None:
    """The README's one-run compare (the run against itself, one model against the other)
    prints no "models only in ..." lines: both models are in both "runs" (it printed
    "models only in base, not compared: y" and the converse); two runs still name the
    models they did not compare."""
    run = make_run(
        tmp_path / "r", {("x", "c1"): "p", ("x", "c2"): "p", ("y", "c1"): "f", ("y", "c2"): "p"}
    )
    one = runner.invoke(
        app, ["compare", str(run), str(run), "--base-model", "x", "--cand-model", "y"]
    )
    assert one.exit_code == 0, one.output
    assert "only in" not in one.stdout and "not compared" not in one.stdout
    other = make_run(
        tmp_path / "s", {("x", "c1"): "p", ("x", "c2"): "f", ("y", "c1"): "p", ("y", "c2"): "p"}
    )
    two = runner.invoke(app, ["compare", str(run), str(other), "--base-model", "x"])
    assert "models of base not compared: y" in two.stdout
    assert "models of the candidate not compared: y" in two.stdout
