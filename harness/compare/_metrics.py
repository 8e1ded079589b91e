"""Metric differences between two runs: for each compared model pair and each metric, the
candidate's mean minus the base's over the cases both scored, with a paired t interval and a
verdict, Holm-corrected over every metric and model pair tested.

Each case counts once (the mean of its samples), so a case with more samples weighs no more.
The interval of each test is taken at its Holm level, so the verdict (``better`` / ``worse``)
and the interval (excluding 0) always agree. For ``taskbench.edit_distance`` lower is better.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from html import escape
from typing import Any

from harness.metrics import Convention
from harness.report import LoadedRun
from harness.report._metrics import LOWER_IS_BETTER, metric_values
from harness.report._scan import metric_rows
from harness.stats import MeanDifference, holm, holm_levels, paired_mean_test

__all__ = [
    "MetricComparison",
    "compare_metrics",
    "render_metric_comparison",
    "render_metric_comparison_html",
]

ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class MetricComparison:
    """One metric of one model pair."""

    model: str
    """The model id, or ``base -> cand`` when the ids differ."""
    metric: str
    convention: Convention
    test: MeanDifference
    """Means, difference interval (at the Holm level) and the raw p-value."""
    p_adjusted: float
    """Holm-adjusted p-value."""

    @property
    def verdict(self) -> str:
        """``better``, ``worse`` or ``no significant difference`` (for the candidate)."""
        if self.p_adjusted >= ALPHA or math.isnan(self.test.difference):
            return "no significant difference"
        up = self.test.difference > 0
        return "better" if up != (self.metric in LOWER_IS_BETTER) else "worse"

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        t = self.test

        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        return {
            "model": self.model,
            "metric": self.metric,
            "convention": self.convention,
            "cases": t.cases,
            "base": num(t.base),
            "cand": num(t.cand),
            "difference": num(t.difference),
            "interval": [num(t.low), num(t.high)],
            "p_value": num(t.p_value),
            # Holm's step-down sends an unknown p to 1; unknown stays unknown here.
            "p_adjusted": None if math.isnan(t.p_value) else num(self.p_adjusted),
            "verdict": self.verdict,
        }


def _case_means(
    values: dict[tuple[str, str], list[tuple[str, float]]], model: str
) -> dict[str, dict[str, float]]:
    """metric -> case -> mean over the case's samples, from a run's ``metric_values``."""
    out: dict[str, dict[str, float]] = {}
    for (m, metric), pairs in values.items():
        if m != model:
            continue
        sums: dict[str, list[float]] = defaultdict(list)
        for case, value in pairs:
            sums[case].append(value)
        out[metric] = {c: math.fsum(v) / len(v) for c, v in sums.items()}
    return out


def compare_metrics(
    base: LoadedRun,
    cand: LoadedRun,
    pairs: list[tuple[str, str]],
    *,
    convention: Convention = "zero",
) -> list[MetricComparison]:
    """Every metric both runs have, per model pair, on shared cases (empty without metrics)."""
    plans: list[tuple[str, str, list[float], list[float]]] = []
    base_values = metric_values(metric_rows(base), convention)  # only the scored rows
    cand_values = metric_values(metric_rows(cand), convention)
    for bm, cm in pairs:
        key = bm if bm == cm else f"{bm} -> {cm}"
        b, c = _case_means(base_values, bm), _case_means(cand_values, cm)
        for metric in sorted(set(b) & set(c)):
            shared = sorted(set(b[metric]) & set(c[metric]))
            if shared:
                plans.append(
                    (key, metric, [b[metric][x] for x in shared], [c[metric][x] for x in shared])
                )
    if not plans:
        return []
    raw = [paired_mean_test(bv, cv, ALPHA).p_value for _, _, bv, cv in plans]
    levels, adjusted = holm_levels(raw, ALPHA), holm(raw)
    return [
        MetricComparison(key, metric, convention, paired_mean_test(bv, cv, level), p_adj)
        for (key, metric, bv, cv), level, p_adj in zip(plans, levels, adjusted, strict=True)
    ]


def render_metric_comparison(rows: list[MetricComparison], markdown: bool = False) -> str:
    """The metric section of ``compare`` as text or markdown ('' without metrics)."""
    if not rows:
        return ""
    convention = rows[0].convention
    title = f"Metrics against the reference plans (unparseable answers: {convention})"
    lines = [f"### {title}" if markdown else title, ""]
    if markdown:
        lines += [
            "| model | metric | cases | base | candidate | difference [interval] | "
            "Holm p | verdict |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
    for r in rows:
        t = r.test
        cells = (
            r.model,
            r.metric,
            str(t.cases),
            f"{t.base:.3f}",
            f"{t.cand:.3f}",
            f"{t.difference:+.3f} [{t.low:+.3f}, {t.high:+.3f}]",
            f"{r.p_adjusted:.3g}",
            r.verdict,
        )
        if markdown:
            lines.append("| " + " | ".join(cells) + " |")
        else:
            lines.append(
                f"  {cells[0]} {cells[1]}: {cells[3]} -> {cells[4]} over {cells[2]} cases, "
                f"{cells[5]}, Holm p {cells[6]}: {cells[7]}"
            )
    lines.append("")
    lines.append(
        "Intervals: paired t over cases, at each test's Holm level (they exclude 0 exactly when "
        "the verdict is better or worse)."
    )
    return "\n".join(lines) + "\n"


def render_metric_comparison_html(rows: list[MetricComparison]) -> str:
    """The metric section of ``compare --format html`` ('' without metrics)."""
    if not rows:
        return ""
    heads = ("model", "metric", "cases", "base", "candidate", "difference [interval]", "Holm p",
             "verdict")  # fmt: skip
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{escape(x)}</td>"
            for x in (
                r.model,
                r.metric,
                str(r.test.cases),
                f"{r.test.base:.3f}",
                f"{r.test.cand:.3f}",
                f"{r.test.difference:+.3f} [{r.test.low:+.3f}, {r.test.high:+.3f}]",
                f"{r.p_adjusted:.3g}",
                r.verdict,
            )
        )
        + "</tr>"
        for r in rows
    )
    head = "".join(f"<th>{h}</th>" for h in heads)
    return (
        f"<h2>Metrics against the reference plans (unparseable answers: "
        f"{escape(rows[0].convention)})</h2>\n<p>Paired t over cases, Holm-corrected; each "
        "interval at its test's Holm level (docs/reports.md).</p>\n"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n"
    )
