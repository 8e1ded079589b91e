"""Comparison output: plain text, markdown and JSON."""

from __future__ import annotations

import math
from typing import Any

from harness._format import format_points_interval
from harness.compare._compare import Comparison, Flip, PairedTest
from harness.cost import compare_usage, compare_usage_markdown, run_prices
from harness.report._columns import MODEL_COLUMNS
from harness.report._format import md_cell, pct

__all__ = ["ci_label", "comparison_to_dict", "render_markdown", "render_text"]

LIST_LIMIT = 30
"""Flips and one-sided items shown in text and markdown (JSON has them all)."""


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 6)


def _points(x: float) -> str:
    return "–" if math.isnan(x) else f"{x * 100:+.1f} pts"


def _interval(t: PairedTest) -> str:
    """``95% CI -2.1 pts to +7.3 pts``, rounded outward; a zero-width interval says why."""
    text = f"{ci_label(t)} {format_points_interval(t.low, t.high)}"
    why = t.result.point_interval_reason
    return f"{text} ({why})" if why else text


def comparison_to_dict(c: Comparison) -> dict[str, Any]:
    """The comparison as the stable JSON document of ``--format json``."""
    return {
        "suite": c.base.suite,
        "base": {"run": str(c.base.run_dir), "run_id": c.base.manifest.run_id},
        "cand": {"run": str(c.cand.run_dir), "run_id": c.cand.manifest.run_id},
        "pairs": [{"base_model": b, "cand_model": m} for b, m in c.pairs],
        "cases": c.coverage,
        "headline": c.headline,
        "overall": c.overall.to_dict(),
        "per_model": {k: t.to_dict() for k, t in c.per_model.items()},
        "flips": {
            "pass_to_fail": [_flip(f) for f in c.to_fail],
            "fail_to_pass": [_flip(f) for f in c.to_pass],
        },
        "check_deltas": [
            {
                "check": r["check"],
                "model": r["model"],
                "base_failure_rate": _num(r["base_rate"]),
                "cand_failure_rate": _num(r["cand_rate"]),
                "delta": _num(r["delta"]),
                "base_n": int(r["base_n"]),
                "cand_n": int(r["cand_n"]),
            }
            for r in c.check_deltas.to_dict("records")
        ],
        "usage": _usage(c),
        "figures": {
            side: {
                str(model): {k: _num(v) for k, v in row.items()}
                for model, row in frame.to_dict("index").items()
            }
            for side, frame in c.figures.items()
        },
        "only_in_base": [{"model": m, "case": k} for m, k in c.only_in_base],
        "only_in_cand": [{"model": m, "case": k} for m, k in c.only_in_cand],
        "unpaired_models": c.unpaired_models,
        "warnings": [*c.base.warnings, *c.cand.warnings],
    }


def _flip(f: Flip) -> dict[str, str]:
    return {"model": f.model, "case": f.case, "base": f.base, "cand": f.cand}


def _test_line(name: str, t: PairedTest) -> str:
    if t.n == 0:
        return f"{name}: {t.verdict_text}"
    extra = (
        f"; {t.pass_to_fail} pass->fail, {t.fail_to_pass} fail->pass"
        if t.method == "mcnemar-exact"
        else ""
    )
    return (
        f"{name}: {pct(t.base_rate)} -> {pct(t.cand_rate)} ({_points(t.difference)}, "
        f"{_interval(t)}, p={t.p_value:.3g}, "
        f"{t.method}{extra}) => {t.verdict_text}"
    )


def ci_label(t: PairedTest) -> str:
    """``95% CI``, or e.g. ``97.5% CI`` for an interval at a Holm-corrected level."""
    return f"{t.confidence * 100:.4g}% CI"


def _top_deltas(c: Comparison, limit: int) -> list[dict[str, Any]]:
    d = c.check_deltas.dropna(subset=["delta"])
    d = d[d["delta"] != 0]
    d = d.reindex(d["delta"].abs().sort_values(ascending=False).index)
    return list(d.head(limit).to_dict("records"))


def render_text(c: Comparison) -> str:
    """The comparison as plain text for a terminal."""
    lines = [
        f"suite {c.base.suite}: {c.base.manifest.run_id} (base) vs {c.cand.manifest.run_id}",
        f"{c.headline} (everything below is on the compared cases)",
    ]
    lines += [f"warning: {w}" for w in [*c.base.warnings, *c.cand.warnings]]
    for key, t in c.per_model.items():
        if len(c.per_model) > 1:
            lines.append(_test_line(f"  {key}", t))
    lines += _lists(c, "", lambda f: f"  {f.model} / {f.case}: {f.base} -> {f.cand}")
    deltas = _top_deltas(c, 15)
    if deltas:
        lines.append("check failure-rate changes (largest first):")
        for r in deltas:
            lines.append(
                f"  {r['check']} [{r['model']}]: {pct(r['base_rate'])} -> {pct(r['cand_rate'])} "
                f"({_points(r['delta'])})"
            )
    lines.append(_test_line("overall", c.overall))
    return "\n".join(lines) + "\n"


def _lists(c: Comparison, heading: str, fmt: Any) -> list[str]:
    out: list[str] = []
    groups: list[tuple[str, list[Any]]] = [
        ("pass -> fail", c.to_fail),
        ("fail -> pass", c.to_pass),
    ]
    for title, flips in groups:
        if flips:
            out.append(f"{heading}{title} ({len(flips)}):")
            out += [fmt(f) for f in flips[:LIST_LIMIT]]
            if len(flips) > LIST_LIMIT:
                out.append(f"  …and {len(flips) - LIST_LIMIT} more (see --format json)")
    for title, items in (("only in base", c.only_in_base), ("only in candidate", c.only_in_cand)):
        if items:
            shown = ", ".join(f"{m}/{k}" for m, k in items[:LIST_LIMIT])
            more = f" …and {len(items) - LIST_LIMIT} more" if len(items) > LIST_LIMIT else ""
            out.append(f"{heading}{title}, not compared ({len(items)}): {shown}{more}")
    same_run = c.base.run_dir.resolve() == c.cand.run_dir.resolve()
    for side, models in c.unpaired_models.items():
        if models and not same_run:  # two models of one run: the others were simply not chosen
            name = "base" if side == "base" else "the candidate"
            out.append(f"{heading}models of {name} not compared: {', '.join(models)}")
    return out


DIFF_LIMIT = 5
"""Flips whose plan diff the markdown shows (pass -> fail first)."""


def _diff_lines(c: Comparison) -> list[str]:
    """A short plan diff of the worst flips, one bullet each."""
    from harness.compare._flip_detail import flip_details

    details = flip_details(c, DIFF_LIMIT)
    if not details:
        return []
    out = ["### What changed in the plans", ""]
    for fd in details:
        f = fd.flip
        out.append(
            f"- **{fd.direction}** `{md_cell(f.model, 60)}` / `{md_cell(f.case, 60)}` "
            f"({f.base} -> {f.cand}): {md_cell(fd.diff.summary(), 400)}"
        )
    total = len(c.to_fail) + len(c.to_pass)
    if total > len(details):
        out.append(f"- …and {total - len(details)} more flips (see `--format html`)")
    return [*out, ""]


def _figure_lines(c: Comparison) -> list[str]:
    """The ``MODEL_COLUMNS`` figures, base -> candidate, as a markdown table."""
    cols = [col for col in MODEL_COLUMNS if col.in_compare]
    base, cand = c.figures.get("base"), c.figures.get("cand")
    if not cols or base is None or cand is None or base.empty:
        return []
    lines = [
        "### Other figures (compared cases; base -> candidate)",
        "",
        "| model | " + " | ".join(col.header for col in cols) + " |",
        "|---" * (len(cols) + 1) + "|",
    ]
    for model in c.per_model:
        if model not in base.index or model not in cand.index:
            continue
        cells = [f"{col.render(base.loc[model])} -> {col.render(cand.loc[model])}" for col in cols]
        lines.append(f"| `{md_cell(model, 60)}` | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _usage(c: Comparison) -> dict[str, Any] | None:
    """Tokens and cost of both runs (``harness.cost``), or None when neither reported usage."""
    return compare_usage(
        c.base.rows,
        run_prices(c.base.manifest),
        c.cand.rows,
        run_prices(c.cand.manifest),
        usage=(c.base.usage, c.cand.usage),  # tallied as each run was read
    )


def render_markdown(c: Comparison) -> str:
    """The comparison as markdown (for a pull-request comment)."""
    o = c.overall
    lines = [
        f"## planeval compare: `{md_cell(c.base.suite)}`",
        "",
        f"Base `{md_cell(c.base.manifest.run_id)}` vs candidate "
        f"`{md_cell(c.cand.manifest.run_id)}`: **{md_cell(o.verdict_text, 200)}**",
        "",
    ]
    lines += [f"> **Warning:** {md_cell(w, 300)}" for w in [*c.base.warnings, *c.cand.warnings]]
    lines += [
        f"{c.headline}; every figure below is on the compared cases.",
        "",
        "| model | base | candidate | difference | interval | p | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = list(c.per_model.items()) if len(c.per_model) > 1 else []
    for key, t in [*rows, ("**overall**", o)]:
        lines.append(
            f"| {md_cell(key, 60)} | {pct(t.base_rate)} | {pct(t.cand_rate)} | "
            f"{_points(t.difference)} | {_interval(t)} | "
            f"{t.p_value:.3g} | {md_cell(t.verdict_text, 120)} |"
        )
    holm_note = (
        " Per-model verdicts are Holm-corrected over the models (interval levels to match)."
        if len(c.per_model) > 1
        else ""
    )
    lines += ["", f"Test: {o.method} over {o.n} cases; 5% level.{holm_note}", ""]
    lists = _lists(
        c, "", lambda f: f"  - `{md_cell(f.model)}` / `{md_cell(f.case)}`: {f.base} -> {f.cand}"
    )
    if lists:
        lines += ["### Changes", "", *[x if x.startswith("  ") else f"- {x}" for x in lists], ""]
    lines += _diff_lines(c)
    lines += _figure_lines(c)
    lines += compare_usage_markdown(_usage(c))
    deltas = _top_deltas(c, 15)
    if deltas:
        lines += [
            "### Check failure rates (compared cases)",
            "",
            "| check | model | base | candidate | change |",
            "|---|---|---|---|---|",
        ]
        for r in deltas:
            lines.append(
                f"| `{md_cell(r['check'])}` | `{md_cell(r['model'])}` | {pct(r['base_rate'])} | "
                f"{pct(r['cand_rate'])} | {_points(r['delta'])} |"
            )
    return "\n".join(lines) + "\n"
