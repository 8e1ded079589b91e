"""What ``planeval run`` prints on stdout: the pass-rate table, readable at 80, 100 and 160
columns with every figure whole, rates never rounded to 100% or 0%, and the failing cases."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from harness._cli._run_table import print_failing, print_table
from harness._cli.main import app
from harness.run import ResultRow, RunManifest, RunResult, failing_cases
from harness.testing import make_project, sound_plan, write_response

PLAN = json.dumps(sound_plan())
CYCLE = json.dumps({"tasks": [{"id": "x", "description": "loops", "depends_on": ["x"]}]})


def table_rows(out: str) -> list[list[str]]:
    """The body rows of the full (wide) table, as whitespace-separated cells."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("──")) + 1
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def _project(tmp_path: Path, passes: int, fails: int) -> Path:
    """One dataset model, one case, ``passes + fails`` samples (provenance: handwritten)."""
    path = make_project(tmp_path, extra={"samples": passes + fails})
    for sample in range(passes + fails):
        text = PLAN if sample < passes else CYCLE
        write_response(tmp_path, "demo", "planner", "c1", text, sample=sample)
    return path


def test_one_failure_in_300_is_not_100_percent(tmp_path: Path) -> None:
    """299 passes of 300 read 99.7% in the table, never 100%."""
    path = _project(tmp_path, 299, 1)
    result = CliRunner().invoke(app, ["run", str(path)], env={"COLUMNS": "160"})
    assert result.exit_code == 1
    (row,) = table_rows(result.stdout)
    assert row[:3] == ["demo", "planner", "99.7%"]


def _result(suite: str, models: list[str], cases: int, samples: int = 1) -> RunResult:
    """A synthetic run (provenance: handwritten in code): every 7th case fails a check, every
    5th answer of the second model has no plan, case 3 is missing."""
    rows = []
    for m, model in enumerate(models):
        for c in range(cases):
            for k in range(samples):
                status = "pass" if c % 7 else "fail"
                if m == 1 and c % 5 == 0:
                    status = "unparseable"
                if c == 3:
                    status = "missing"
                violation = {
                    "check": "acyclic",
                    "severity": "error",
                    "task": "t1",
                    "path": "/tasks/0/depends_on/0",
                    "message": "cycle t1 -> t2 -> t1",
                }
                rows.append(
                    ResultRow(
                        suite=suite,
                        case=f"case-{c:04d}",
                        model=model,
                        sample=k,
                        status=status,  # type: ignore[arg-type]
                        violations=[violation] if status == "fail" else [],
                        detail="no JSON in the answer" if status == "unparseable" else None,
                    )
                )
    manifest = RunManifest(
        run_id=f"run-{suite}",
        suite=suite,
        suite_path=f"evals/{suite}.yaml",
        prompt_hash="",
        models=[{"id": m} for m in models],
        samples=samples,
        record_mode="none",
        harness_version="",
        git_commit=None,
        started_at="",
        finished_at="",
        counts={},
        cases=cases,
    )
    return RunResult(Path("reports/runs") / manifest.run_id, manifest, tuple(rows), None)  # type: ignore[arg-type]


RESULTS = [
    _result("worfbench-toolbench", ["careful-planner", "sloppy-planner"], 300),
    _result("refunds", ["careful-planner", "gpt-4o-2024-08-06"], 4000, samples=5),
]


def _render(width: int, results: list[RunResult]) -> str:
    console = Console(width=width, file=io.StringIO())
    print_table(console, results)
    print_failing(console, results)
    return console.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("width", [80, 100, 160])
def test_every_figure_is_whole_at_any_width(width: int) -> None:
    """At 80, 100 and 160 columns: no line is wider, nothing is cut with an ellipsis, and
    each model's pass rate, interval, parse rate and counts appear in full."""
    text = _render(width, RESULTS)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text.split("failing cases")[0]
    for figures in (
        ["85.6%", "81.1–89.2%", "100.0%", "256", "43"],  # careful, 300 cases
        ["68.6%", "63.0–73.6%", "79.9%", "205", "34", "60"],  # sloppy: 60 unparseable
        # refunds: 20,000 rows, 5 identical samples of each of 4,000 cases: the interval is
        # clustered by case (plain Wilson over 20,000 samples read 85.2–86.2%)
        ["85.7%", "84.5–86.8%", "17,135", "2,860"],
    ):
        lines = [line for line in text.splitlines() if all(f in line for f in figures)]
        assert lines, (figures, text)


def test_wide_terminals_show_every_status_column() -> None:
    """At 160 columns missing, stale and error have their own columns; at 80 they are summed
    into one column that says so."""
    wide, narrow = _render(160, RESULTS), _render(80, RESULTS)
    assert re.search(r"missing\s+stale\s+error", wide)
    assert "not counted: missing + stale + error" in narrow


def test_long_names_fold_but_figures_stay_whole() -> None:
    """A 70-character model name folds over lines; its pass rate stays on one line."""
    text = _render(80, [_result("suite", ["m" * 70], 14)])
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "84.6%" in text and "57.7–95.7%" in text


def test_failing_cases_are_listed_with_their_first_violation() -> None:
    """After the table: the first 10 failing (case, model), worst first, each with its first
    violation, then how many more and how to see them all."""
    text = _render(160, RESULTS)
    tail = text.split("failing cases")[1].splitlines()
    listed = [line for line in tail if line.startswith("  ") and " / " in line]
    assert len(listed) == 10
    assert (
        "worfbench-toolbench / careful-planner / case-0000: fails; acyclic [t1]: cycle" in tail[1]
    )
    assert "…and 1,956 more; all of them: planeval report" in " ".join(tail)


def test_an_answer_without_a_plan_is_described_as_such() -> None:
    """An unparseable sample's first violation says why no plan was read."""
    (only,) = failing_cases(r for r in RESULTS[0].rows if r.case == "case-0005")
    assert (only.model, only.failed, only.counted) == ("sloppy-planner", 1, 1)
    assert only.first_violation == "unparseable: no JSON in the answer"


def test_the_table_prints_the_reports_clustered_interval() -> None:
    """30 cases x 5 samples, case c passing c % 6 of its samples: the run table's interval is
    the one report prints (clustered by case), not plain Wilson over the 150 samples (the
    issue: ``run`` said 48.0-63.7% where ``report`` said 45.8-65.7% on one run)."""
    from harness.report._format import interval
    from harness.stats import ClusterSums, cluster_wilson, wilson_interval

    passed = [c % 6 for c in range(30)]
    rows = [
        ResultRow(
            suite="s",
            case=f"c{c:02d}",
            model="m",
            sample=k,
            status="pass" if k < passed[c] else "fail",  # type: ignore[arg-type]
            violations=[],
        )
        for c in range(30)
        for k in range(5)
    ]
    result = _result("s", ["m"], 0, samples=5)
    result = RunResult(result.run_dir, result.manifest, tuple(rows), None)
    text = _render(160, [result])
    low, high = cluster_wilson(ClusterSums.of_cases(passed, [5] * 30))
    clustered = interval(float(low[0]), float(high[0]))
    plain = interval(*wilson_interval(sum(passed), 150))
    assert clustered != plain
    assert clustered in text and plain not in text


def test_summary_rows_print_what_whole_rows_print(tmp_path: Path) -> None:
    """``planeval run`` keeps no row in memory, only its tally; the table, the failing cases
    and the exit code are the same as from whole rows, and results.jsonl still has every
    plan."""
    from harness.run import run_suite
    from harness.suite import load_suite

    path = make_project(tmp_path, extra={"samples": 4})
    for sample in range(4):
        text = (PLAN, CYCLE, "no plan here", PLAN)[sample]
        write_response(tmp_path, "demo", "planner", "c1", text, sample=sample)
    suite = load_suite(path)
    whole = run_suite(suite, out=tmp_path / "runA")
    slim = run_suite(suite, out=tmp_path / "runB", keep_rows=False)
    assert slim.rows == ()
    assert slim.summary().worst_failing() == failing_cases(whole.rows)
    assert slim.exit_code == whole.exit_code == 1
    for result in (whole, slim):
        out = io.StringIO()
        print_table(Console(file=out, width=160), [result])
        print_failing(Console(file=out, width=160), [result])
        result_text = out.getvalue().replace(str(result.run_dir), "RUN")
        if result is whole:
            expected = result_text
    assert result_text == expected
    written = (tmp_path / "runB" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert sum(json.loads(line)["plan"] is not None for line in written) == 3


def test_prompts_file_is_the_whole_document(tmp_path: Path) -> None:
    """prompts.json, written one prompt at a time, is the document json.dumps gives."""
    from harness.run import PROMPTS_FILE, run_suite
    from harness.suite import load_suite

    cases = [{"id": f"c{i}", "goal": f'Goal "{i}" ünïcode\nline'} for i in range(3)]
    suite = load_suite(make_project(tmp_path, cases=cases))
    run = run_suite(suite, out=tmp_path / "run")
    expected = {case.id: suite.render_prompt(case) for case in suite.cases}
    text = (run.run_dir / PROMPTS_FILE).read_text(encoding="utf-8")
    assert text == json.dumps(expected, indent=0, ensure_ascii=False) + "\n"
