"""The pooled metric figures of two runs compared, as papers report them: TaskBench's corpus
figures (node micro / macro F1, link F1, argument name and name+value F1 over the pooled
counts, edit distance) and WorfBench's averages (each metric summed over the answers and
divided by their number), candidate minus base over the cases both runs scored.

A pooled figure is not a mean of per-case values, so no t-test applies: the interval and the
p-value come from a paired bootstrap over cases (each resample draws cases with replacement
and recomputes both runs' figures on the same draw), Holm-corrected over every figure and
model pair. Each interval is taken at its test's Holm level, so it excludes 0 when the verdict
is better or worse (up to the resampling's granularity).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from harness.report._metrics import LOWER_IS_BETTER
from harness.report._scan import metric_rows
from harness.stats import holm, holm_levels

if TYPE_CHECKING:
    from harness.metrics import Convention, TaskbenchSample
    from harness.report import LoadedRun

__all__ = [
    "POOLED_FIGURES",
    "PooledComparison",
    "compare_pooled",
    "render_pooled",
    "render_pooled_html",
]

ALPHA = 0.05
RESAMPLES = 2000
SEED = 0
POOLED_FIGURES = (
    "taskbench.node_micro_f1",
    "taskbench.node_macro_f1",
    "taskbench.link_f1",
    "taskbench.argument_name_f1",
    "taskbench.argument_value_f1",
    "taskbench.edit_distance",
)
"""The TaskBench corpus figures compared (``evaluate.py``'s ``node_micro_f1_no_matching``,
``node_macro_f1_no_matching``, ``link_binary_f1``, the two argument F1 and
``edit_distance``); WorfBench metrics are compared under their own names."""
_HOW = (
    "Pooled figures, as the papers report them (TaskBench's corpus F1 over pooled counts and "
    "edit distance, WorfBench's averages over answers), on the cases both runs scored; "
    f"interval and p from a paired bootstrap over cases ({RESAMPLES:,} resamples, seed "
    f"{SEED}), Holm-corrected, each interval at its test's Holm level."
)


@dataclass(frozen=True, slots=True)
class PooledComparison:
    """One pooled figure of one model pair."""

    model: str
    """The model id, or ``base -> cand`` when the ids differ."""
    figure: str
    convention: Convention
    cases: int
    base: float
    cand: float
    low: float
    """Lower end of the bootstrap interval of ``cand - base`` (at the Holm level)."""
    high: float
    p_value: float
    """Two-sided bootstrap p-value: twice the smaller share of resampled differences on
    either side of 0 (with the usual +1 correction), at most 1."""
    p_adjusted: float

    @property
    def difference(self) -> float:
        return self.cand - self.base

    @property
    def verdict(self) -> str:
        """``better``, ``worse`` or ``no significant difference`` (for the candidate)."""
        if self.p_adjusted >= ALPHA or math.isnan(self.difference):
            return "no significant difference"
        up = self.difference > 0
        return "better" if up != (self.figure in LOWER_IS_BETTER) else "worse"

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        return {
            "model": self.model,
            "figure": self.figure,
            "convention": self.convention,
            "cases": self.cases,
            "base": num(self.base),
            "cand": num(self.cand),
            "difference": num(self.difference),
            "interval": [num(self.low), num(self.high)],
            "p_value": num(self.p_value),
            "p_adjusted": num(self.p_adjusted),
            "test": "paired bootstrap over cases",
            "verdict": self.verdict,
        }


# -- per-case contributions -----------------------------------------------------------------
def _taskbench_cases(
    run: LoadedRun, model: str, convention: Convention
) -> tuple[dict[str, list[TaskbenchSample]], int]:
    """case -> the TaskBench samples of its rows (``zero``: unparseable answers as empty
    plans; ``exclude``: scored rows only), and the catalogue size."""
    from harness.metrics import TaskbenchSample

    keep = ("scored", "unparseable") if convention == "zero" else ("scored",)
    out: dict[str, list[TaskbenchSample]] = defaultdict(list)
    size = 0
    for row in metric_rows(run):  # scored or unparseable, in file order
        if str(row.get("model")) != model or row.get("metric_status") not in keep:
            continue
        detail = row.get("metric_detail") or {}
        if isinstance(detail.get("taskbench"), dict):
            out[str(row["case"])].append(TaskbenchSample.from_dict(detail["taskbench"]))
            if isinstance(detail.get("catalogue_size"), int):
                size = max(size, detail["catalogue_size"])
    return out, size


def _worfbench_cases(
    run: LoadedRun, model: str, convention: Convention
) -> dict[str, dict[str, tuple[float, int]]]:
    """metric -> case -> (sum, answers) of the WorfBench values."""
    from harness.report._metrics import metric_values

    out: dict[str, dict[str, tuple[float, int]]] = defaultdict(dict)
    for (m, metric), pairs in metric_values(metric_rows(run), convention).items():
        if m != model or not metric.startswith("worfbench."):
            continue
        sums: dict[str, list[float]] = defaultdict(list)
        for case, value in pairs:
            sums[case].append(value)
        out[metric] = {c: (math.fsum(v), len(v)) for c, v in sums.items()}
    return out


def _count_matrix(
    cases: list[str], samples: dict[str, list[TaskbenchSample]], tools: list[str]
) -> npt.NDArray[np.float64]:
    """Per case, the counts every TaskBench figure is a function of: per tool tp, fp, fn;
    then tp, fp, fn of links, argument names, argument values; the summed edit ratios and the
    number of answers."""
    index = {t: i for i, t in enumerate(tools)}
    width = 3 * len(tools) + 11
    out = np.zeros((len(cases), width))
    n = len(tools)
    for row, case in enumerate(cases):
        for s in samples[case]:
            for t in s.gold_nodes & s.pred_nodes:
                out[row, index[t]] += 1
            for t in s.pred_nodes - s.gold_nodes:
                out[row, n + index[t]] += 1
            for t in s.gold_nodes - s.pred_nodes:
                out[row, 2 * n + index[t]] += 1
            for k, (gold, pred) in enumerate(
                (
                    (s.gold_links, s.pred_links),
                    (s.gold_arg_names, s.pred_arg_names),
                    (s.gold_arg_values, s.pred_arg_values),
                )
            ):
                hits = len(gold & pred)
                out[row, 3 * n + 3 * k : 3 * n + 3 * k + 3] += (
                    hits,
                    len(pred) - hits,
                    len(gold) - hits,
                )
            out[row, 3 * n + 9] += s.ed_ratio
            out[row, 3 * n + 10] += 1
    return out


def _f1(tp: npt.NDArray[np.float64], fp: Any, fn: Any) -> npt.NDArray[np.float64]:
    """scikit-learn's F1 with its zero-division rule (0 where nothing is counted)."""
    denominator = 2 * tp + fp + fn
    return np.where(tp > 0, 2 * tp / np.where(denominator > 0, denominator, 1), 0.0)


def _taskbench_figures(
    totals: npt.NDArray[np.float64], tools: int, labels: int
) -> dict[str, npt.NDArray[np.float64]]:
    """Each figure from summed counts (``totals``: resamples x columns)."""
    n = tools
    tp, fp, fn = totals[:, :n], totals[:, n : 2 * n], totals[:, 2 * n : 3 * n]
    micro = _f1(tp.sum(axis=1), fp.sum(axis=1), fn.sum(axis=1))
    macro = _f1(tp, fp, fn).sum(axis=1) / labels if labels else np.zeros(len(totals))
    rest = [_f1(*(totals[:, 3 * n + 3 * k + j] for j in range(3))) for k in range(3)]
    answers = totals[:, 3 * n + 10]
    ed = 1.0 - totals[:, 3 * n + 9] / np.where(answers > 0, answers, 1)
    return dict(zip(POOLED_FIGURES, (micro, macro, *rest, ed), strict=True))


def _side_figures(
    sums: npt.NDArray[np.float64], counts: npt.NDArray[np.float64], catalogue_size: int
) -> dict[str, npt.NDArray[np.float64]]:
    """One run's figures for every resample (``sums``: the resampled sums of ``counts``, from
    ``_resampled_sums``); macro F1 averages over the catalogue, or over the tools the run's
    shared cases name when that is more (as ``taskbench_corpus`` does)."""
    tools = (counts.shape[1] - 11) // 3
    seen = int(
        np.count_nonzero(counts[:, : 3 * tools].reshape(len(counts), 3, tools).sum(axis=(0, 1)))
    )
    return _taskbench_figures(sums, tools, max(catalogue_size, seen))


# -- the comparison -------------------------------------------------------------------------
WEIGHT_BLOCK = 1 << 21
"""Resampling weights held at once (16 MiB as floats): 2,000 resamples of 100,000 cases drawn
at once would be 1.6 GB of counts and as much again as floats."""


def _resampled_sums(
    matrices: Sequence[npt.NDArray[np.float64]], resamples: int, seed: int
) -> list[npt.NDArray[np.float64]]:
    """``weights @ m`` for each per-case matrix ``m`` (cases x columns), where ``weights``
    says how many times each case is drawn in each resample (row 0: every case once, then
    ``resamples`` multinomial draws). The draws are made a block of resamples at a time (the
    same seeded draws in the same order as one draw of them all), so memory stays at
    ``WEIGHT_BLOCK`` whatever the number of cases."""
    cases = len(matrices[0])
    rng = np.random.default_rng(seed)
    rows = max(2, WEIGHT_BLOCK // max(cases, 1))
    p = np.full(cases, 1.0 / cases)
    parts: list[list[npt.NDArray[np.float64]]] = [[] for _ in matrices]
    size = min(rows - 1, resamples)  # the first block starts with the row of ones
    block = np.vstack([np.ones((1, cases)), rng.multinomial(cases, p, size=size)])
    drawn = size
    while True:
        for part, m in zip(parts, matrices, strict=True):
            part.append(block @ m)
        if drawn >= resamples:
            break
        size = min(rows, resamples - drawn)
        block = rng.multinomial(cases, p, size=size).astype(np.float64)
        drawn += size
    return [np.concatenate(part) for part in parts]


def compare_pooled(
    base: LoadedRun,
    cand: LoadedRun,
    pairs: Sequence[tuple[str, str]],
    *,
    convention: Convention = "zero",
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[PooledComparison]:
    """Every pooled figure both runs have, per model pair, on the cases both scored (empty
    without metrics)."""
    # (key, figure, point and resampled values of base and cand)
    tests: list[tuple[str, str, int, npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
    for bm, cm in pairs:
        key = bm if bm == cm else f"{bm} -> {cm}"
        b_samples, b_size = _taskbench_cases(base, bm, convention)
        c_samples, c_size = _taskbench_cases(cand, cm, convention)
        shared = sorted(set(b_samples) & set(c_samples))
        if shared:
            names = sorted(
                {
                    t
                    for samples in (b_samples, c_samples)
                    for case in shared
                    for s in samples[case]
                    for t in s.gold_nodes | s.pred_nodes
                }
            )
            b_counts = _count_matrix(shared, b_samples, names)
            c_counts = _count_matrix(shared, c_samples, names)
            b_sums, c_sums = _resampled_sums((b_counts, c_counts), resamples, seed)
            b_fig = _side_figures(b_sums, b_counts, b_size)
            c_fig = _side_figures(c_sums, c_counts, c_size)
            tests += [(key, f, len(shared), b_fig[f], c_fig[f]) for f in POOLED_FIGURES]
        b_worf, c_worf = (
            _worfbench_cases(base, bm, convention),
            _worfbench_cases(cand, cm, convention),
        )
        for metric in sorted(set(b_worf) & set(c_worf)):
            shared = sorted(set(b_worf[metric]) & set(c_worf[metric]))
            if not shared:
                continue
            sides = [
                np.array([[side[c][0], side[c][1]] for c in shared])
                for side in (b_worf[metric], c_worf[metric])
            ]
            values = [sums[:, 0] / sums[:, 1] for sums in _resampled_sums(sides, resamples, seed)]
            tests.append((key, metric, len(shared), values[0], values[1]))
    if not tests:
        return []
    raw = [_p_value(c[1:] - b[1:]) for *_, b, c in tests]
    levels, adjusted = holm_levels(raw, ALPHA), holm(raw)
    out = []
    for (key, figure, cases, b, c), p, level, p_adj in zip(
        tests, raw, levels, adjusted, strict=True
    ):
        low, high = np.quantile(c[1:] - b[1:], [level / 2, 1 - level / 2])
        out.append(
            PooledComparison(
                key,
                figure,
                convention,
                cases,
                float(b[0]),
                float(c[0]),
                float(low),
                float(high),
                p,
                p_adj,
            )
        )
    return out


def _p_value(differences: npt.NDArray[np.float64]) -> float:
    """Two-sided: twice the smaller share of resampled differences at or beyond 0 on either
    side, with the +1 correction; 1 when every resample gives no difference."""
    if not np.any(differences):
        return 1.0
    count = len(differences)
    below = (np.count_nonzero(differences <= 0) + 1) / (count + 1)
    above = (np.count_nonzero(differences >= 0) + 1) / (count + 1)
    return min(1.0, 2 * min(below, above))


# -- rendering ------------------------------------------------------------------------------
def _cells(r: PooledComparison) -> tuple[str, ...]:
    return (
        r.model,
        r.figure,
        str(r.cases),
        f"{r.base:.4f}",
        f"{r.cand:.4f}",
        f"{r.difference:+.4f} [{r.low:+.4f}, {r.high:+.4f}]",
        f"{r.p_adjusted:.3g}",
        r.verdict,
    )


def render_pooled(rows: list[PooledComparison], markdown: bool = False) -> str:
    """The pooled section of ``compare`` as text or markdown ('' without metrics)."""
    if not rows:
        return ""
    title = f"Pooled metric figures (unparseable answers: {rows[0].convention})"
    lines = [f"### {title}" if markdown else title, ""]
    if markdown:
        lines += [
            "| model | figure | cases | base | candidate | difference [interval] | Holm p | "
            "verdict |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
    for r in rows:
        cells = _cells(r)
        if markdown:
            lines.append("| " + " | ".join(cells) + " |")
        else:
            lines.append(
                f"  {cells[0]} {cells[1]}: {cells[3]} -> {cells[4]} over {cells[2]} cases, "
                f"{cells[5]}, Holm p {cells[6]}: {cells[7]}"
            )
    return "\n".join([*lines, "", _HOW]) + "\n"


def render_pooled_html(rows: list[PooledComparison]) -> str:
    """The pooled section of ``compare --format html`` ('' without metrics)."""
    if not rows:
        return ""
    heads = ("model", "figure", "cases", "base", "candidate", "difference [interval]",
             "Holm p", "verdict")  # fmt: skip
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(x)}</td>" for x in _cells(r)) + "</tr>" for r in rows
    )
    head = "".join(f"<th>{h}</th>" for h in heads)
    return (
        f"<h2>Pooled metric figures (unparseable answers: {escape(rows[0].convention)})</h2>\n"
        f"<p>{escape(_HOW)}</p>\n<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
        "</table>\n"
    )
