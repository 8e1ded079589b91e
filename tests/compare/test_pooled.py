"""compare: the pooled figures papers report (TaskBench's corpus F1, WorfBench's averages)
with a paired bootstrap over cases."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from harness.compare._pooled import compare_pooled
from harness.metrics import ToolCatalogue, taskbench_corpus, taskbench_sample
from harness.report import load_run
from tests.cli_helpers import run_cli
from tests.metrics.project import metric_run
from tests.report._synthetic import make_run

TOOLS = ToolCatalogue(("search", "summarize", "email", "translate"))


def _record(tools: list[str]) -> dict[str, Any]:
    return {
        "task_nodes": [{"task": t, "arguments": [{"name": "q", "value": t}]} for t in tools],
        "task_links": [{"source": a, "target": b} for a, b in pairwise(tools)],
    }


def taskbench_run(run_dir: Path, answers: dict[str, list[list[str]]]) -> Path:
    """A synthetic run of model ``m``: each case's gold is search -> summarize -> email, each
    sample's answer the tools given (handwritten)."""
    make_run(run_dir, {("m", case): "p" * len(tools) for case, tools in answers.items()})
    gold = _record(["search", "summarize", "email"])
    path = run_dir / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for r in rows:
        sample = taskbench_sample(
            _record(answers[r["case"]][r["sample"]]), gold, dependency="temporal", catalogue=TOOLS
        )
        r["metrics"] = sample.as_metrics()
        r["metric_status"] = "scored"
        r["metric_detail"] = {"taskbench": sample.to_dict(), "catalogue_size": 4}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run_dir


GOOD = ["search", "summarize", "email"]
SHORT = ["search"]


class TestPooled:
    def test_the_figures_are_the_pooled_ones_not_means_of_rows(self, tmp_path: Path) -> None:
        """Base: one case answered in full, three with a single tool: pooled node micro F1
        is (3+3)/(6+... ) as taskbench_corpus pools it, not the mean of the per-row F1."""
        answers = {"c0": [GOOD], "c1": [SHORT], "c2": [SHORT], "c3": [SHORT]}
        base = load_run(taskbench_run(tmp_path / "a", answers))
        cand = load_run(taskbench_run(tmp_path / "b", {c: [GOOD] for c in answers}))
        rows = {r.figure: r for r in compare_pooled(base, cand, [("m", "m")])}
        gold = _record(GOOD)
        samples = [
            taskbench_sample(_record(a[0]), gold, dependency="temporal", catalogue=TOOLS)
            for a in answers.values()
        ]
        corpus = taskbench_corpus(samples, 4)
        micro = rows["taskbench.node_micro_f1"]
        assert micro.base == pytest.approx(corpus["node_micro_f1_no_matching"], abs=1e-12)
        assert micro.base == pytest.approx(2 * 6 / (6 + 12))  # 6 hits, 6 predicted, 12 gold
        row_mean = sum(s.as_metrics()["taskbench.node_f1"] for s in samples) / 4
        assert micro.base != pytest.approx(row_mean)  # 0.625: the mean of rows differs
        assert micro.cand == 1.0 and micro.cases == 4
        assert rows["taskbench.node_macro_f1"].base == pytest.approx(
            corpus["node_macro_f1_no_matching"], abs=1e-12
        )
        assert rows["taskbench.edit_distance"].base == pytest.approx(
            corpus["edit_distance"], abs=1e-12
        )

    def test_a_clearly_better_candidate_is_better_and_chance_is_not_called(
        self, tmp_path: Path
    ) -> None:
        """30 cases from single tools to full plans: better, the interval above 0. One case
        changed of 30: no significant difference."""
        cases = [f"c{i}" for i in range(30)]
        base = load_run(taskbench_run(tmp_path / "a", {c: [SHORT] for c in cases}))
        cand = load_run(taskbench_run(tmp_path / "b", {c: [GOOD] for c in cases}))
        micro = next(
            r for r in compare_pooled(base, cand, [("m", "m")]) if r.figure.endswith("micro_f1")
        )
        assert micro.verdict == "better" and micro.low > 0
        one = {c: [GOOD if c == "c0" else SHORT] for c in cases}
        near = load_run(taskbench_run(tmp_path / "c", one))
        micro = next(
            r for r in compare_pooled(base, near, [("m", "m")]) if r.figure.endswith("micro_f1")
        )
        assert micro.verdict == "no significant difference"
        assert micro.low <= 0 <= micro.high

    def test_a_run_against_itself_has_p_one(self, tmp_path: Path) -> None:
        run = load_run(taskbench_run(tmp_path / "a", {"c0": [GOOD], "c1": [SHORT]}))
        for row in compare_pooled(run, run, [("m", "m")]):
            assert (row.p_value, row.difference) == (1.0, 0.0)

    def test_cli_says_it_compares_pooled_figures_with_a_bootstrap(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """WorfBench averages too; the text names the method, the JSON each test."""
        base = metric_run(tmp_path / "a", weaker=False)
        cand = metric_run(tmp_path / "b", weaker=True)
        text = run_cli(capsys, "compare", str(base), str(cand)).out
        assert "Pooled metric figures (unparseable answers: zero)" in text
        assert "paired bootstrap over cases (2,000 resamples, seed 0)" in text
        data = json.loads(run_cli(capsys, "compare", str(base), str(cand), "--format", "json").out)
        pooled = {p["figure"]: p for p in data["pooled_metrics"]}
        recall = pooled["worfbench.recall_chain"]
        assert recall["test"] == "paired bootstrap over cases"
        assert recall["base"] == pytest.approx(0.95)
        assert recall["verdict"] == "worse" and recall["interval"][1] < 0


class TestResamplingInBlocks:
    """The bootstrap's weights are drawn a block of resamples at a time: the same seeded
    draws as one (resamples x cases) draw, without holding it."""

    def test_a_comparison_is_the_same_whatever_the_block(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """30 cases, 2,000 resamples in one block, in blocks of 7 cases x resamples and of 2
        resamples (the smallest): the same figures, intervals and p-values."""
        from harness.compare import _pooled

        cases = [f"c{i}" for i in range(30)]
        base = load_run(
            taskbench_run(
                tmp_path / "a", {c: [SHORT if i % 3 else GOOD] for i, c in enumerate(cases)}
            )
        )
        cand = load_run(
            taskbench_run(
                tmp_path / "b", {c: [GOOD if i % 4 else SHORT] for i, c in enumerate(cases)}
            )
        )
        whole = compare_pooled(base, cand, [("m", "m")])
        for block in (7 * 30, 2 * 30):
            monkeypatch.setattr(_pooled, "WEIGHT_BLOCK", block)
            assert compare_pooled(base, cand, [("m", "m")]) == whole

    def test_sums_are_those_of_one_draw_and_memory_stays_small(self) -> None:
        """Integer counts over 5,000 cases: exactly the sums of one draw of all 2,000
        resamples (160 MB of weights as counts and floats); the blocks peak under 64 MiB."""
        import tracemalloc

        import numpy as np

        from harness.compare._pooled import _resampled_sums

        counts = np.random.default_rng(2).integers(0, 4, size=(5_000, 3)).astype(float)
        tracemalloc.start()
        try:
            (sums,) = _resampled_sums((counts,), 2000, 0)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 64 * 2**20
        assert np.array_equal(sums[0], counts.sum(axis=0))
        rng = np.random.default_rng(0)
        p = np.full(5_000, 1 / 5_000)
        for k in range(0, 2000, 250):  # the whole draw, a slice at a time to spare memory
            draws = rng.multinomial(5_000, p, size=250).astype(float)
            assert np.array_equal(sums[1 + k : 1 + k + 250], draws @ counts)
