"""summary.md names the failing cases with their first violation; given a baseline it lists
the most recent regressions first; ``run`` lists the same cases in the same order."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from harness._cli.main import app
from harness.report import load_run, summarize
from harness.report._markdown import render_summary_md
from harness.run import failing_cases
from tests.report._synthetic import make_run

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]

# Baseline and run, per case of model m (p pass, f fail): handwritten.
BASE = {
    ("m", "c00"): "ppppp",  # -> fffff: new, with the gate's evidence
    ("m", "c01"): "ppppp",  # -> ppppf: new, no evidence
    ("m", "c02"): "pffff",  # -> fffff: worse
    ("m", "c03"): "fffff",  # -> fffff: as before
    ("m", "c05"): "ppppp",  # -> ppppp: passing, not listed
}
NOW = {
    ("m", "c00"): "fffff",
    ("m", "c01"): "ppppf",
    ("m", "c02"): "fffff",
    ("m", "c03"): "fffff",
    ("m", "c04"): "ffppp",  # a case the baseline does not hold
    ("m", "c05"): "ppppp",
}


def _section(text: str) -> list[str]:
    part = text.split("### Failing cases")[1].split("\n### ")[0]
    return part.splitlines()


def _listed(text: str) -> list[str]:
    return [re.match(r"- `([^`]+)`", x).group(1) for x in _section(text) if x.startswith("- `")]


def _with_baseline(tmp_path: Path) -> tuple[Path, Path]:
    base = make_run(tmp_path / "base", BASE)
    assert runner.invoke(app, ["baseline", str(base), "--out", str(tmp_path / "bl")]).exit_code == 0
    return make_run(tmp_path / "now", NOW), tmp_path / "bl"


def test_failing_cases_are_listed_worst_first_with_their_first_violation(
    tmp_path: Path,
) -> None:
    """Without a baseline: worst first, each with its first violation, how to see them all,
    and how to put new regressions first."""
    run = make_run(tmp_path / "now", NOW)
    text = render_summary_md(summarize(load_run(run)))
    lines = _section(text)
    assert lines[0] == " (5 case x model)"
    assert _listed(text) == ["c00", "c02", "c03", "c04", "c01"]
    first = next(x for x in lines if x.startswith("- `c04`"))
    assert first == "- `c04` / `m`: 2 of 5 samples fail; `acyclic [use]: cycle use -> fetch -> use`"
    assert any("report.html" in x and "results.csv" in x for x in lines)
    assert any("--baseline reports/baselines/" in x for x in lines)


def test_with_a_baseline_new_regressions_come_first(tmp_path: Path) -> None:
    """`report --baseline`: cases that passed every baseline sample first (the gate's evidence
    first), then worse ones, then cases the baseline lacks, then those that failed as often."""
    run, baseline = _with_baseline(tmp_path)
    result = runner.invoke(app, ["report", str(run), "--baseline", str(baseline)])
    assert result.exit_code == 0, result.output
    text = (run / "summary.md").read_text(encoding="utf-8")
    assert _listed(text) == ["c00", "c01", "c02", "c04", "c03"]
    lines = {x.split("`")[1]: x for x in _section(text) if x.startswith("- `")}
    assert lines["c00"].endswith("**new: 5/5 passed in the baseline (gate evidence, p=0.004)**")
    assert lines["c01"].endswith("**new: 5/5 passed in the baseline**")
    assert lines["c02"].endswith("— worse: 1/5 passed in the baseline")
    assert lines["c04"].endswith("— not in the baseline")
    assert lines["c03"].endswith("— as before: 0/5 passed in the baseline")
    assert "2 new, 1 worse, 1 not in baseline, 1 as before" in text


def test_a_long_list_is_cut_and_says_how_many_more(tmp_path: Path) -> None:
    """40 failing cases: 25 are listed, then how many more and where they all are."""
    run = make_run(tmp_path / "now", {("m", f"c{i:02d}"): "ff" for i in range(40)})
    lines = _section(render_summary_md(summarize(load_run(run))))
    assert sum(x.startswith("- `") for x in lines) == 25
    assert any(x.startswith("…and 15 more failing cases. ") for x in lines)


def test_no_failure_says_so(tmp_path: Path) -> None:
    """A run without a failing case says so instead of an empty list."""
    run = make_run(tmp_path / "now", {("m", "c0"): "pp"})
    assert "No case failed." in _section(render_summary_md(summarize(load_run(run))))


class TestBaselineOption:
    def test_a_baseline_of_another_suite_is_refused(self, tmp_path: Path) -> None:
        """One line, exit 2, nothing pretended."""
        run, _ = _with_baseline(tmp_path)
        other = make_run(tmp_path / "other", BASE, suite="other")
        runner.invoke(app, ["baseline", str(other), "--out", str(tmp_path / "o.json")])
        result = runner.invoke(app, ["report", str(run), "--baseline", str(tmp_path / "o.json")])
        assert result.exit_code == 2
        assert "the baseline is of suite 'other', the run of 'synthetic'" in result.stderr
        assert "Traceback" not in result.output

    def test_a_folder_without_the_suites_baseline_is_refused(self, tmp_path: Path) -> None:
        """A folder of baselines lacking this suite's: exit 2 naming the file looked for."""
        run, _ = _with_baseline(tmp_path)
        (tmp_path / "empty").mkdir()
        result = runner.invoke(app, ["report", str(run), "--baseline", str(tmp_path / "empty")])
        assert result.exit_code == 2
        assert "synthetic.json" in result.stderr and "no baseline file" in result.stderr

    def test_a_folder_of_runs_uses_each_suites_baseline(self, tmp_path: Path) -> None:
        """`report DIR --baseline FOLDER`: a run whose suite has a baseline gets regressions
        first; one without gets a warning and the plain list."""
        make_run(tmp_path / "base", BASE)
        runner.invoke(app, ["baseline", str(tmp_path / "base"), "--out", str(tmp_path / "bl")])
        runs = tmp_path / "runs"
        make_run(runs / "synthetic", NOW)
        make_run(runs / "other", NOW, suite="other")
        result = runner.invoke(app, ["report", str(runs), "--baseline", str(tmp_path / "bl")])
        assert result.exit_code == 0, result.output
        assert "no baseline of suite 'other'" in result.stderr
        assert _listed((runs / "synthetic" / "summary.md").read_text())[:2] == ["c00", "c01"]
        assert _listed((runs / "other" / "summary.md").read_text())[:2] == ["c00", "c02"]


def test_run_and_summary_list_the_same_cases_in_the_same_order(tmp_path: Path) -> None:
    """The example refunds suite: the cases `run` prints after its table are the first ones
    of summary.md, in the same order, with the same first violation."""
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        ["run", str(ROOT / "evals" / "refunds.yaml"), "--out", str(out)],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 1, result.output
    printed = [
        x.strip()
        for x in result.stdout.split("failing cases")[1].splitlines()[1:]
        if x.startswith("  refunds / ")
    ]
    assert len(printed) == 10
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    summary = (out / "summary.md").read_text(encoding="utf-8")
    listed = [x for x in _section(summary) if x.startswith("- `")][:10]
    expected = [
        f"- `{f.case}` / `{f.model}`: {f.share()}; `{f.first_violation}`"
        for f in failing_cases(load_run(out).rows)[:10]
    ]
    assert [x[:150] for x in listed] == [x[:150] for x in expected]
    assert [x.split(": ", 1)[0] for x in printed] == [
        f"refunds / {f.model} / {f.case}" for f in failing_cases(load_run(out).rows)[:10]
    ]
