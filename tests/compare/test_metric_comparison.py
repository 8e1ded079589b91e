"""``compare``'s metric section on runs whose metric values are written by hand: which metrics
and cases are compared, each case's mean over its samples, the Holm levels of the intervals,
lower-is-better metrics, and the exact text, markdown, HTML and JSON a user reads (issue 14:
each was a surviving mutant of ``harness/compare/_metrics.py``)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from scipy import stats
from typer.testing import CliRunner

from harness._cli.main import app
from harness.compare import compare_runs, render_compare_html
from harness.report import load_run
from tests.report._synthetic import make_run

runner = CliRunner()

Values = dict[tuple[str, str], list[dict[str, float]]]
"""(model, case) -> one metrics dict per sample."""


def scored_run(run_dir: Path, values: Values) -> Path:
    """A synthetic run (every sample passes) whose rows carry the given metric values."""
    make_run(run_dir, {key: "p" * len(samples) for key, samples in values.items()})
    path = run_dir / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for r in rows:
        r["metrics"] = values[(r["model"], r["case"])][r["sample"]]
        r["metric_status"] = "scored"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run_dir


def compare(base: Path, cand: Path, fmt: str, *extra: str) -> str:
    result = runner.invoke(app, ["compare", str(base), str(cand), "--format", fmt, *extra])
    assert result.exit_code == 0, result.output
    return result.stdout


def _no_constant(name: str) -> None:
    raise AssertionError(f"{name} is not JSON: the output must say null")


def metrics_json(base: Path, cand: Path, *extra: str) -> list[dict[str, Any]]:
    """The ``metrics`` of ``compare --format json``, read as strict JSON (NaN refused)."""
    text = compare(base, cand, "json", *extra)
    return json.loads(text, parse_constant=_no_constant)["metrics"]  # type: ignore[no-any-return]


F1_BASE = [0.5, 0.5, 0.5, 0.5]
F1_CAND = [0.6, 0.8, 0.7, 0.7]  # differences 0.1, 0.3, 0.2, 0.2


def _holm(ps: list[float]) -> list[float]:
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


@pytest.fixture
def two_metrics(tmp_path: Path) -> tuple[Path, Path]:
    """Four cases. worfbench.f1 rises by 0.2 on average; taskbench.edit_distance (lower is
    better) stays at 0.4 everywhere. The base also has a model z of its own, written first,
    whose metrics must not reach m's."""
    base: Values = {("z", f"c{i}"): [{"worfbench.f1": 0.0}] for i in range(4)}
    base |= {
        ("m", f"c{i}"): [{"worfbench.f1": f, "taskbench.edit_distance": 0.4}]
        for i, f in enumerate(F1_BASE)
    }
    cand: Values = {
        ("m", f"c{i}"): [{"worfbench.f1": f, "taskbench.edit_distance": 0.4}]
        for i, f in enumerate(F1_CAND)
    }
    return scored_run(tmp_path / "base", base), scored_run(tmp_path / "cand", cand)


class TestWhatIsCompared:
    def test_json_rows(self, two_metrics: tuple[Path, Path]) -> None:
        """One row per metric both runs have, sorted by name; the f1 test is scipy's paired
        t-test, its interval at the Holm level of the smaller of two p-values (alpha/2); the
        unchanged metric has p = 1 and a point interval at zero."""
        rows = metrics_json(*two_metrics)
        assert [r["metric"] for r in rows] == ["taskbench.edit_distance", "worfbench.f1"]
        p = float(stats.ttest_rel(F1_CAND, F1_BASE).pvalue)
        sem = float(stats.sem([c - b for b, c in zip(F1_BASE, F1_CAND, strict=True)]))
        low, high = stats.t.interval(1 - 0.05 / 2, 3, loc=0.2, scale=sem)
        same, f1 = rows
        assert same == {
            "model": "m",
            "metric": "taskbench.edit_distance",
            "convention": "zero",
            "cases": 4,
            "base": pytest.approx(0.4),
            "cand": pytest.approx(0.4),
            "difference": 0.0,
            "interval": [0.0, 0.0],
            "p_value": 1.0,
            "p_adjusted": 1.0,
            "verdict": "no significant difference",
        }
        assert f1 == {
            "model": "m",
            "metric": "worfbench.f1",
            "convention": "zero",
            "cases": 4,
            "base": 0.5,
            "cand": pytest.approx(0.7),
            "difference": pytest.approx(0.2),
            "interval": [pytest.approx(low), pytest.approx(high)],
            "p_value": pytest.approx(p),
            "p_adjusted": pytest.approx(2 * p),
            "verdict": "better",
        }

    def test_a_case_counts_once_whatever_its_samples(self, tmp_path: Path) -> None:
        """Case c0 has two candidate samples (0.2 and 1.0): it enters as their mean, 0.6."""
        base = scored_run(tmp_path / "b", {("m", f"c{i}"): [{"worfbench.f1": 0.5}] for i in (0, 1)})
        cand = scored_run(
            tmp_path / "c",
            {
                ("m", "c0"): [{"worfbench.f1": 0.2}, {"worfbench.f1": 1.0}],
                ("m", "c1"): [{"worfbench.f1": 0.7}],
            },
        )
        (row,) = metrics_json(base, cand)
        assert (row["cases"], row["cand"]) == (2, pytest.approx(0.65))
        assert row["difference"] == pytest.approx(0.15)

    def test_only_metrics_and_cases_on_both_sides(self, tmp_path: Path) -> None:
        """a.only_base is not in the candidate; b.disjoint is scored on c0 in base and c1 in
        the candidate, so no case has it on both sides: neither is compared."""
        base = scored_run(
            tmp_path / "b",
            {
                ("m", "c0"): [{"worfbench.f1": 0.5, "a.only_base": 1.0, "b.disjoint": 0.5}],
                ("m", "c1"): [{"worfbench.f1": 0.5}],
            },
        )
        cand = scored_run(
            tmp_path / "c",
            {
                ("m", "c0"): [{"worfbench.f1": 0.5}],
                ("m", "c1"): [{"worfbench.f1": 0.5, "b.disjoint": 0.5}],
            },
        )
        assert [r["metric"] for r in metrics_json(base, cand)] == ["worfbench.f1"]

    @pytest.mark.parametrize("side", ["base", "cand"])
    def test_unparseable_answers_count_as_zero_unless_excluded(
        self, tmp_path: Path, side: str
    ) -> None:
        """Case c2's answer is unparseable on one side, scored 0 under the zero convention:
        three cases by default, two with --unparseable exclude."""
        values: Values = {("m", f"c{i}"): [{"worfbench.f1": 0.5}] for i in range(3)}
        base = scored_run(tmp_path / "b", values)
        cand = scored_run(tmp_path / "c", values)
        path = (base if side == "base" else cand) / "results.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        rows[2]["metric_status"], rows[2]["metrics"] = "unparseable", {"worfbench.f1": 0.0}
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        (zero,) = metrics_json(base, cand)
        assert (zero["cases"], zero["convention"]) == (3, "zero")
        assert zero[side] == pytest.approx(1 / 3)
        (excluded,) = metrics_json(base, cand, "--unparseable", "exclude")
        assert (excluded["cases"], excluded["convention"]) == (2, "exclude")
        assert excluded[side] == 0.5

    def test_a_nan_value_shows_as_null(self, tmp_path: Path) -> None:
        """A hand-written NaN metric value makes its side's mean unknown: null in the JSON."""
        values: Values = {("m", f"c{i}"): [{"worfbench.f1": 0.5}] for i in range(3)}
        base = scored_run(tmp_path / "b", {**values, ("m", "c0"): [{"worfbench.f1": math.nan}]})
        (row,) = metrics_json(base, scored_run(tmp_path / "c", values))
        assert (row["base"], row["cand"], row["difference"]) == (None, 0.5, None)
        assert (row["p_value"], row["p_adjusted"]) == (None, None)
        assert row["interval"] == [None, None]  # was [-1, 1]: the clipping of a NaN interval
        assert row["verdict"] == "no significant difference"

    def test_models_with_other_names_are_keyed_base_arrow_cand(self, tmp_path: Path) -> None:
        base = scored_run(tmp_path / "b", {("a", f"c{i}"): [{"worfbench.f1": 0.5}] for i in (0, 1)})
        cand = scored_run(tmp_path / "c", {("b", f"c{i}"): [{"worfbench.f1": 0.5}] for i in (0, 1)})
        (row,) = metrics_json(base, cand)
        assert row["model"] == "a -> b"

    def test_no_metrics_no_section(self, tmp_path: Path) -> None:
        """Runs without metric values: the page is the comparison page alone, nothing added."""
        base = make_run(tmp_path / "b", {("m", "c0"): "p"})
        cand = make_run(tmp_path / "c", {("m", "c0"): "f"})
        assert metrics_json(base, cand) == []
        assert "Metrics against" not in compare(base, cand, "text")
        assert "Metrics against" not in compare(base, cand, "markdown")
        page = render_compare_html(compare_runs(load_run(base), load_run(cand)))
        assert compare(base, cand, "html") == page

    def test_holm_over_every_metric_and_model(self, tmp_path: Path) -> None:
        """Three tests (two metrics of x, one of y): the smallest p is tested at alpha/3 and
        its interval is a 1 - alpha/3 interval; each adjusted p follows Holm."""
        diffs = {
            "x": ([0.1, 0.3, 0.2, 0.2], [0.1, 0.12, 0.08, 0.1]),
            "y": ([0.0, 0.2, 0.1, 0.3], []),
        }
        base: Values = {}
        cand: Values = {}
        for model, (f1, rec) in diffs.items():
            for i in range(4):
                base[(model, f"c{i}")] = [{"worfbench.f1": 0.5, **({"w.rec": 0.2} if rec else {})}]
                cand[(model, f"c{i}")] = [
                    {"worfbench.f1": 0.5 + f1[i], **({"w.rec": 0.2 + rec[i]} if rec else {})}
                ]
        rows = metrics_json(scored_run(tmp_path / "b", base), scored_run(tmp_path / "c", cand))
        assert [(r["model"], r["metric"]) for r in rows] == [
            ("x", "w.rec"),
            ("x", "worfbench.f1"),
            ("y", "worfbench.f1"),
        ]
        tests = [diffs["x"][1], diffs["x"][0], diffs["y"][0]]
        ps = [float(stats.ttest_1samp(d, 0.0).pvalue) for d in tests]
        assert [r["p_value"] for r in rows] == pytest.approx(ps)
        assert [r["p_adjusted"] for r in rows] == pytest.approx(_holm(ps))
        first = min(range(3), key=lambda i: ps[i])
        d = tests[first]
        low, high = stats.t.interval(1 - 0.05 / 3, 3, loc=sum(d) / 4, scale=stats.sem(d))
        assert rows[first]["interval"] == [pytest.approx(low), pytest.approx(high)]


class TestVerdicts:
    def _one(self, tmp_path: Path, metric: str, base: list[float], cand: list[float]) -> str:
        b = scored_run(tmp_path / "b", {("m", f"c{i}"): [{metric: v}] for i, v in enumerate(base)})
        c = scored_run(tmp_path / "c", {("m", f"c{i}"): [{metric: v}] for i, v in enumerate(cand)})
        (row,) = metrics_json(b, c)
        return str(row["verdict"])

    def test_a_higher_score_is_better(self, tmp_path: Path) -> None:
        assert self._one(tmp_path, "worfbench.f1", F1_BASE, F1_CAND) == "better"

    def test_a_lower_score_is_worse(self, tmp_path: Path) -> None:
        assert self._one(tmp_path, "worfbench.f1", F1_CAND, F1_BASE) == "worse"

    def test_a_lower_edit_distance_is_better(self, tmp_path: Path) -> None:
        assert self._one(tmp_path, "taskbench.edit_distance", F1_CAND, F1_BASE) == "better"

    def test_a_higher_edit_distance_is_worse(self, tmp_path: Path) -> None:
        assert self._one(tmp_path, "taskbench.edit_distance", F1_BASE, F1_CAND) == "worse"

    def test_a_change_that_could_be_chance_is_not_called(self, tmp_path: Path) -> None:
        """Differences 0.3, -0.1, 0.1, -0.2: p is far above 0.05."""
        cand = [0.8, 0.4, 0.6, 0.3]
        assert self._one(tmp_path, "worfbench.f1", F1_BASE, cand) == "no significant difference"


class TestOutput:
    def test_text(self, two_metrics: tuple[Path, Path]) -> None:
        rows = metrics_json(*two_metrics)
        f1 = rows[1]
        out = compare(*two_metrics, "text")
        section = out[out.index("\nMetrics against") + 1 :]
        low, high = f1["interval"]
        assert section == (
            "Metrics against the reference plans (unparseable answers: zero)\n"
            "\n"
            "  m taskbench.edit_distance: 0.400 -> 0.400 over 4 cases, +0.000 [+0.000, +0.000], "
            "Holm p 1: no significant difference\n"
            f"  m worfbench.f1: 0.500 -> 0.700 over 4 cases, +0.200 [{low:+.3f}, {high:+.3f}], "
            f"Holm p {f1['p_adjusted']:.3g}: better\n"
            "\n"
            "Intervals: paired t over cases, at each test's Holm level (they exclude 0 exactly "
            "when the verdict is better or worse).\n"
        )
        assert out.endswith("\n\n" + section)

    def test_markdown(self, two_metrics: tuple[Path, Path]) -> None:
        f1 = metrics_json(*two_metrics)[1]
        out = compare(*two_metrics, "markdown")
        section = out[out.index("### Metrics against") :]
        low, high = f1["interval"]
        assert section == (
            "### Metrics against the reference plans (unparseable answers: zero)\n"
            "\n"
            "| model | metric | cases | base | candidate | difference [interval] | Holm p | "
            "verdict |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- |\n"
            "| m | taskbench.edit_distance | 4 | 0.400 | 0.400 | +0.000 [+0.000, +0.000] | 1 | "
            "no significant difference |\n"
            f"| m | worfbench.f1 | 4 | 0.500 | 0.700 | +0.200 [{low:+.3f}, {high:+.3f}] | "
            f"{f1['p_adjusted']:.3g} | better |\n"
            "\n"
            "Intervals: paired t over cases, at each test's Holm level (they exclude 0 exactly "
            "when the verdict is better or worse).\n"
        )

    def test_html(self, two_metrics: tuple[Path, Path]) -> None:
        f1 = metrics_json(*two_metrics)[1]
        out = compare(*two_metrics, "html")
        low, high = f1["interval"]
        heads = "".join(
            f"<th>{h}</th>"
            for h in (
                "model",
                "metric",
                "cases",
                "base",
                "candidate",
                "difference [interval]",
                "Holm p",
                "verdict",
            )
        )
        cells = [
            ("m", "taskbench.edit_distance", "4", "0.400", "0.400", "+0.000 [+0.000, +0.000]",
             "1", "no significant difference"),
            ("m", "worfbench.f1", "4", "0.500", "0.700", f"+0.200 [{low:+.3f}, {high:+.3f}]",
             f"{f1['p_adjusted']:.3g}", "better"),
        ]  # fmt: skip
        body = "".join("<tr>" + "".join(f"<td>{x}</td>" for x in row) + "</tr>" for row in cells)
        section = (
            "<h2>Metrics against the reference plans (unparseable answers: zero)</h2>\n"
            "<p>Paired t over cases, Holm-corrected; each interval at its test's Holm level "
            "(docs/reports.md).</p>\n"
            f"<table><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>\n"
        )
        assert out.count(section) == 1
        assert out.index(section) + len(section) == out.index("</body>")

    def test_one_metric(self, tmp_path: Path) -> None:
        """A single metric row: the section names its convention and has one line."""
        b = scored_run(tmp_path / "b", {("m", f"c{i}"): [{"worfbench.f1": 0.5}] for i in (0, 1)})
        c = scored_run(tmp_path / "c", {("m", f"c{i}"): [{"worfbench.f1": 0.5}] for i in (0, 1)})
        out = compare(b, c, "text")
        assert "Metrics against the reference plans (unparseable answers: zero)\n" in out
        assert "  m worfbench.f1: 0.500 -> 0.500 over 2 cases, +0.000 [+0.000, +0.000], " in out
        md = compare(b, c, "markdown")
        assert "### Metrics against the reference plans (unparseable answers: zero)\n" in md
        assert "<h2>Metrics against the reference plans (unparseable answers: zero)</h2>" in (
            compare(b, c, "html")
        )

    def test_html_escapes_names(self, tmp_path: Path) -> None:
        """A model id is user text: it is escaped in the page."""
        values: Values = {("<a&b>", f"c{i}"): [{"worfbench.f1": 0.5}] for i in (0, 1)}
        b, c = scored_run(tmp_path / "b", values), scored_run(tmp_path / "c", values)
        out = compare(b, c, "html")
        assert "<td>&lt;a&amp;b&gt;</td><td>worfbench.f1</td>" in out

    def test_exclude_convention_is_named(self, two_metrics: tuple[Path, Path]) -> None:
        out = compare(*two_metrics, "text", "--unparseable", "exclude")
        assert "Metrics against the reference plans (unparseable answers: exclude)\n" in out
        rows = metrics_json(*two_metrics, "--unparseable", "exclude")
        assert {r["convention"] for r in rows} == {"exclude"}
