"""The metrics section of a report: per model, each metric's mean under both conventions for
unparseable answers, with case-clustered intervals, beside the metric parse rate; and
TaskBench's corpus figures (micro / macro F1 ...) by split.

Read from the rows' ``metrics`` / ``metric_status`` / ``metric_detail`` columns (see
docs/metrics.md); a run without references has no section.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

from harness.report._format import md_cell
from harness.stats import clustered_mean

if TYPE_CHECKING:
    from harness.metrics import Convention, TaskbenchSample
    from harness.report._rows import RowLike

__all__ = [
    "LOWER_IS_BETTER",
    "MetricFigure",
    "MetricReport",
    "metric_report",
    "metric_text_lines",
    "metric_values",
    "render_metrics_html",
    "render_metrics_md",
]

LOWER_IS_BETTER = frozenset({"taskbench.edit_distance"})
"""Metrics where a smaller value is better."""
_TASKBENCH_SHOWN = (
    ("node_micro_f1_no_matching", "node micro F1"),
    ("node_macro_f1_no_matching", "node macro F1"),
    ("link_binary_f1", "link F1"),
    ("argument_task_argname_binary_f1_no_matching", "argument name F1"),
    ("argument_task_argname_value_binary_f1_no_matching", "argument name+value F1"),
    ("edit_distance", "edit distance"),
)
_SPLIT_GROUPS = ("overall_overall", "single_overall", "chain_overall", "dag_overall")
"""The groups summary.md shows (report.html and the JSON have every group)."""


@dataclass(frozen=True, slots=True)
class MetricFigure:
    """One metric of one model under one convention."""

    model: str
    metric: str
    convention: Convention
    mean: float
    low: float
    high: float
    rows: int
    """Rows with a value."""


@dataclass(frozen=True)
class MetricReport:
    """Everything the reports show about metrics."""

    figures: list[MetricFigure]
    parse: dict[str, tuple[int, int]]
    """Per model: (rows scored, rows with a reference and an answer)."""
    errors: dict[str, list[str]] = field(default_factory=dict)
    """Per model: the cases whose scoring failed (``metric_status`` error)."""
    taskbench: dict[str, dict[Convention, dict[str, dict[str, Any]]]] = field(default_factory=dict)
    """Per model and convention: ``taskbench_breakdown`` (group -> figures)."""
    catalogue_size: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``report --format json``)."""
        return {
            "figures": [
                {
                    "model": f.model,
                    "metric": f.metric,
                    "convention": f.convention,
                    "mean": _num(f.mean),
                    "interval": [_num(f.low), _num(f.high)],
                    "rows": f.rows,
                }
                for f in self.figures
            ],
            "parse": {m: {"scored": s, "rows": n} for m, (s, n) in self.parse.items()},
            "errors": self.errors,
            "taskbench": self.taskbench,
        }


def _num(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def metric_values(
    rows: Iterable[RowLike], convention: Convention
) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """``(model, metric) -> [(case, value), ...]`` under ``convention``: ``zero`` keeps the
    zero-convention values of unparseable rows, ``exclude`` keeps scored rows only."""
    keep = ("scored", "unparseable") if convention == "zero" else ("scored",)
    out: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for row in rows:
        values = row.get("metrics")
        if row.get("metric_status") not in keep or not isinstance(values, dict):
            continue
        for name, value in values.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                out[(str(row["model"]), name)].append((str(row["case"]), float(value)))
    return out


def metric_report(rows: Sequence[RowLike]) -> MetricReport | None:
    """The metrics section of a run's rows, or None when no row was scored."""
    parse: dict[str, list[int]] = {}
    catalogue = 0
    samples: dict[str, dict[str, list[TaskbenchSample]]] = defaultdict(lambda: defaultdict(list))
    errors: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        status = row.get("metric_status")
        if status == "error":
            errors[str(row["model"])].append(str(row["case"]))
            continue
        if status not in ("scored", "unparseable"):
            continue
        model = str(row["model"])
        counts = parse.setdefault(model, [0, 0])
        counts[0] += status == "scored"
        counts[1] += 1
        detail = row.get("metric_detail") or {}
        if isinstance(detail.get("catalogue_size"), int):
            catalogue = max(catalogue, detail["catalogue_size"])
        if isinstance(detail.get("taskbench"), dict):
            from harness.metrics import TaskbenchSample

            # a row without an answer (a gold id without a prediction) is no prediction
            # the script could drop: it is not in exclude's all_samples
            kind = "unanswered" if row.get("status") == "missing" else status
            samples[model][kind].append(TaskbenchSample.from_dict(detail["taskbench"]))
    if not parse and not errors:
        return None
    # harness.metrics is loaded on first use: a report of a run without metrics does not pay
    # for importing it.
    from harness.metrics import CONVENTIONS, taskbench_breakdown

    figures = []
    for convention in CONVENTIONS:
        for (model, metric), pairs in sorted(metric_values(rows, convention).items()):
            mean, low, high = clustered_mean([v for _, v in pairs], [c for c, _ in pairs])
            figures.append(MetricFigure(model, metric, convention, mean, low, high, len(pairs)))
    # exclude: an answer TaskBench cannot read counts in all_samples only, as the script
    # counts a prediction it drops; zero: it is an empty plan against its gold.
    taskbench = {
        model: {
            "exclude": taskbench_breakdown(
                by_status["scored"],
                catalogue or None,
                unscored=[(s.split, s.n_tools) for s in by_status["unparseable"]],
            ),
            "zero": taskbench_breakdown(
                [*by_status["scored"], *by_status["unparseable"], *by_status["unanswered"]],
                catalogue or None,
            ),
        }
        for model, by_status in samples.items()
    }
    parsed = {m: (s, n) for m, (s, n) in parse.items()}
    return MetricReport(
        figures,
        parsed,
        dict(errors),
        taskbench,  # type: ignore[arg-type]
        catalogue or None,
    )


def _cell(f: MetricFigure | None) -> str:
    if f is None:
        return "–"
    if math.isnan(f.low):
        return f"{f.mean:.3f}"
    return f"{f.mean:.3f} [{f.low:.3f}, {f.high:.3f}]"


def _table(report: MetricReport) -> list[tuple[str, str, str, str, str]]:
    """(model, metric, parse rate, zero cell, exclude cell) rows."""
    by_key = {(f.model, f.metric, f.convention): f for f in report.figures}
    keys = sorted({(f.model, f.metric) for f in report.figures})
    out = []
    for model, metric in keys:
        scored, total = report.parse.get(model, (0, 0))
        rate = f"{scored}/{total}"
        out.append(
            (
                model,
                metric + (" (lower is better)" if metric in LOWER_IS_BETTER else ""),
                rate,
                _cell(by_key.get((model, metric, "zero"))),
                _cell(by_key.get((model, metric, "exclude"))),
            )
        )
    return out


def _corpus_rows(report: MetricReport) -> list[list[str]]:
    """(model, convention, group, samples, supports, figures...) of every group with samples;
    a group whose samples were all dropped shows "no supports", as the script skips it."""
    out = []
    for model, by_convention in sorted(report.taskbench.items()):
        for convention, groups in by_convention.items():
            for group, figures in groups.items():
                if not figures["all_samples"]:
                    continue
                cells = [
                    "no supports" if figures.get(key) is None else f"{figures[key]:.4f}"
                    for key, _ in _TASKBENCH_SHOWN
                ]
                counts = [str(figures["all_samples"]), str(figures["node_supports"])]
                out.append([model, convention, group, *counts, *cells])
    return out


def _error_lines(report: MetricReport) -> list[str]:
    return [
        f"Scoring failed for {len(cases)} row(s) of {model} (metric_status error, left out of "
        f"every figure): {', '.join(cases[:10])}{' …' if len(cases) > 10 else ''}."
        for model, cases in sorted(report.errors.items())
    ]


def metric_text_lines(report: MetricReport | None) -> list[str]:
    """Plain-text lines for the terminal (none without metrics)."""
    if report is None:
        return []
    rows = _table(report)
    heads = ("model", "metric", "parsed", "mean (zero) [95% CI]", "mean (exclude) [95% CI]")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    table = [line.format(*heads), *(line.format(*r) for r in rows)]
    return ["metrics against the reference plans:", *(t.rstrip() for t in table)]


def render_metrics_md(report: MetricReport | None, limit: int = 25) -> list[str]:
    """Markdown lines of the section (none without metrics)."""
    if report is None:
        return []
    rows = _table(report)
    out = [
        "### Metrics against the reference plans",
        "",
        "Mean per model with a 95% interval clustered by case; unparseable answers count as 0 "
        "(`zero`, WorfBench's convention) or are left out (`exclude`, TaskBench's). Parse rate: "
        "answers the metric's reader could read. See docs/metrics.md.",
        "",
        "| model | metric | parse rate | mean (zero) | mean (exclude) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows[:limit]:
        out.append("| " + " | ".join(md_cell(x, 60) for x in row) + " |")
    if len(rows) > limit:
        out.append(f"| … {len(rows) - limit} more in report.html | | | | |")
    errors = _error_lines(report)
    if errors:
        out += ["", *errors]
    corpus = [r for r in _corpus_rows(report) if r[2] in _SPLIT_GROUPS]
    if corpus:
        heads = " | ".join(h for _, h in _TASKBENCH_SHOWN)
        out += [
            "",
            "TaskBench corpus figures by split (as `evaluate.py` computes them; samples: "
            "answers with a gold, supports: the ones scored; every group in report.html):",
            "",
        ]
        out += [
            f"| model | unparseable | group | samples | supports | {heads} |",
            "|" + " --- |" * (5 + len(_TASKBENCH_SHOWN)),
        ]
        out += ["| " + " | ".join(md_cell(x, 60) for x in r) + " |" for r in corpus]
    return [*out, ""]


def render_metrics_html(report: MetricReport | None) -> str:
    """The HTML section ('' without metrics)."""
    if report is None:
        return ""
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(x)}</td>" for x in row) + "</tr>" for row in _table(report)
    )
    html = (
        '<h2>Metrics against the reference plans</h2>\n<p class="meta">Mean per model with a '
        "95% interval clustered by case. Unparseable answers count as 0 (zero, WorfBench's "
        "convention) or are left out (exclude, TaskBench's); parse rate: answers the metric's "
        "reader could read (docs/metrics.md).</p>\n<table><thead><tr><th>model</th><th>metric"
        "</th><th>parse rate</th><th>mean (zero)</th><th>mean (exclude)</th></tr></thead>"
        f"<tbody>{body}</tbody></table>\n"
    )
    html += "".join(f'<p class="meta">{escape(line)}</p>\n' for line in _error_lines(report))
    corpus = _corpus_rows(report)
    if corpus:
        heads = "".join(f"<th>{escape(h)}</th>" for _, h in _TASKBENCH_SHOWN)
        cells = "".join(
            "<tr>" + "".join(f"<td>{escape(x)}</td>" for x in row) + "</tr>" for row in corpus
        )
        html += (
            "<h3>TaskBench corpus figures by split</h3>\n<table><thead><tr><th>model</th>"
            "<th>unparseable</th><th>group</th><th>samples</th><th>supports</th>"
            f"{heads}</tr></thead>"
            f"<tbody>{cells}</tbody></table>\n"
        )
    return html
