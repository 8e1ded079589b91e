"""``summary.md``: the run on one page, ready to paste as a pull-request comment.

However large the run, the text stays under ``MAX_CHARS``: long lists are cut to their worst
entries with a line saying how many more there are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness._format import format_rate
from harness.cost import run_prices, usage_markdown
from harness.report._aggregate import NOT_COUNTED, Summary
from harness.report._columns import MODEL_COLUMNS
from harness.report._failing_md import failing_markdown
from harness.report._format import count, interval, md_cell, pct
from harness.report._hints import rerecord_command_of, rerecord_hint
from harness.report._metrics import render_metrics_md

if TYPE_CHECKING:
    from harness.baseline import Baseline

__all__ = ["MAX_CHARS", "PROMPT_STALE", "prompt_change_line", "render_summary_md"]

PROMPT_STALE = "recorded under prompt"
"""How a stale row's detail starts when its recording was made under another prompt."""

MAX_CHARS = 60_000
"""GitHub refuses comments over 65,536 characters; we stay well below."""


def _more(shown: int, total: int, what: str) -> list[str]:
    if total > shown:
        return ["", f"…and {total - shown:,} more {what} (see report.html or results.csv)."]
    return []


def _models(s: Summary, limit: int) -> list[str]:
    m = s.models
    k = int(m["k"].iloc[0]) if len(m) else 1
    head = ["model", "pass rate", "95% CI", "passed / counted", "parse rate"]
    if k > 1:
        head += [f"pass@{k}", f"pass^{k}"]
    head += ["missing", "stale", "error"]
    extra = [col for col in MODEL_COLUMNS if col.in_markdown]
    head += [col.header for col in extra]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ranked = m.sort_values("rate", ascending=False, na_position="last")
    for model, r in ranked.head(limit).iterrows():
        cells = [
            f"`{md_cell(model, 60)}`",
            f"**{format_rate(r['passed'], r['counted'])}**",
            interval(r["low"], r["high"]),
            f"{count(r['passed'])} / {count(r['counted'])}",
            format_rate(r["parsed"], r["counted"]),
        ]
        if k > 1:
            cells += [pct(r["pass_at_k"]), pct(r["pass_hat_k"])]
        cells += [count(r[x]) for x in NOT_COUNTED]
        cells += [md_cell(col.render(r), 60) for col in extra]
        lines.append("| " + " | ".join(cells) + " |")
    return lines + _more(min(limit, len(m)), len(m), "models")


def _checks(s: Summary, limit: int) -> list[str]:
    c = s.checks[s.checks["failed"] > 0]
    if c.empty:
        return ["No check failed on any parsed plan."]
    # checks that failed plans first; a check that only warned is listed after them, labelled
    c = c.assign(only_warned=c["warned"] >= c["failed"]).sort_values(
        ["only_warned", "rate", "failed"], ascending=[True, False, False]
    )
    lines = [
        "| check | model | failure rate | 95% CI | failed / checked |",
        "|---|---|---|---|---|",
    ]
    for (check, model), r in c.head(limit).iterrows():
        rate = format_rate(r["failed"], r["evaluated"])
        if r["warned"] >= r["failed"]:  # only warnings: they never fail a plan
            rate += " (warning only)"
        lines.append(
            f"| `{md_cell(check, 40)}` | `{md_cell(model, 60)}` | {rate} | "
            f"{interval(r['low'], r['high'])} | {count(r['failed'])} / {count(r['evaluated'])} |"
        )
    return lines + _more(min(limit, len(c)), len(c), "check x model pairs")


def _tags(s: Summary, limit: int) -> list[str]:
    t = s.tags[s.tags["counted"] > 0]
    if t.empty:
        return []
    g = t.groupby(level="tag", sort=False)[["passed", "counted"]].sum()
    worst = t.sort_values("rate").groupby(level="tag", sort=False).head(1)
    g = g.assign(rate=g["passed"] / g["counted"]).sort_values("rate")
    lines = [
        "### Pass rate per tag (all models)",
        "",
        "| tag | pass rate | passed / counted | lowest model |",
        "|---|---|---|---|",
    ]
    low = {
        tag: (model, format_rate(r["passed"], r["counted"])) for (tag, model), r in worst.iterrows()
    }
    for tag, r in g.head(limit).iterrows():
        model, rate = low[tag]
        lines.append(
            f"| `{md_cell(tag, 40)}` | {format_rate(r['passed'], r['counted'])} | "
            f"{count(r['passed'])} / {count(r['counted'])} | `{md_cell(model, 40)}` {rate} |"
        )
    return [*lines, *_more(min(limit, len(g)), len(g), "tags"), ""]


def _flaky(s: Summary, limit: int) -> list[str]:
    f = s.cases[s.cases["label"] == "flaky"]
    if f.empty:
        return ["No flaky cases."]
    f = f.assign(dist=(f["rate"] - 0.5).abs()).sort_values("dist")
    lines = ["| case | model | passed / counted |", "|---|---|---|"]
    for (case, model), r in f.head(limit).iterrows():
        lines.append(
            f"| `{md_cell(case, 60)}` | `{md_cell(model, 60)}` | "
            f"{count(r['passed'])} / {count(r['counted'])} |"
        )
    return lines + _more(min(limit, len(f)), len(f), "flaky cases")


def _not_counted(s: Summary, limit: int) -> list[str]:
    nc = s.not_counted
    if nc.empty:
        return ["Nothing was missing, stale or in error: every row counts."]
    lines = [
        "These rows are **not** in any pass rate (they are not plan failures):",
        "",
        "| model | missing | stale | error |",
        "|---|---|---|---|",
    ]
    m = s.models[list(NOT_COUNTED)]
    m = m[m.sum(axis=1) > 0]
    for model, r in m.head(limit).iterrows():
        lines.append(
            f"| `{md_cell(model, 60)}` | " + " | ".join(count(r[x]) for x in NOT_COUNTED) + " |"
        )
    lines += _more(min(limit, len(m)), len(m), "models")
    prompt = nc["detail"].fillna("").str.startswith(PROMPT_STALE) & (nc["status"] == "stale")
    if prompt.any():
        lines += [
            "",
            f"{int(prompt.sum()):,} stale rows were recorded under an earlier prompt (the line "
            "at the top says how to re-record them); they are not listed one by one.",
        ]
        nc = nc[~prompt]
        if nc.empty:
            return lines
    lines += ["", "First rows:", ""]
    for _, r in nc.head(limit).iterrows():
        detail = md_cell(r["detail"] or "", 160)
        lines.append(
            f"- `{md_cell(r['case'], 60)}` / `{md_cell(r['model'], 60)}` / sample {r['sample']}: "
            f"**{r['status']}**{' — ' + detail if detail else ''}"
        )
    lines += _more(min(limit, len(nc)), len(nc), "rows")
    gaps = nc[nc["status"] != "error"]
    if not gaps.empty:
        hint = rerecord_hint(s.run.manifest, gaps["model"].astype(str), s.run.run_dir)
        lines += ["", f"Missing or stale recordings: {hint}."]
    return lines


def prompt_change_line(s: Summary) -> str | None:
    """One line when rows are stale because the prompt changed since they were recorded:
    ``the prompt changed since these recordings were made: N rows stale; re-record with: …``
    (None when no row is)."""
    nc = s.not_counted
    if nc.empty:
        return None
    stale = nc[(nc["status"] == "stale") & nc["detail"].fillna("").str.startswith(PROMPT_STALE)]
    if stale.empty:
        return None
    command = rerecord_command_of(s.run.manifest, stale["model"].astype(str), s.run.run_dir)
    how = (
        f"re-record with: `{command}`"
        if command
        else "they belong to dataset models: import the data again"
    )
    return f"The prompt changed since these recordings were made: {len(stale):,} rows stale; {how}"


def _render(s: Summary, limit: int, baseline: Baseline | None) -> str:
    run = s.run
    t = s.total
    out = [
        f"## planeval: `{md_cell(run.suite, 60)}` — run `{md_cell(run.manifest.run_id, 80)}`",
        "",
    ]
    for w in run.warnings:
        out += [f"> **Warning:** {md_cell(w, 400)}", ""]
    changed = prompt_change_line(s)
    if changed:
        out += [f"> **{changed}**", ""]
    not_counted = (
        f"{count(t['missing'])} missing, {count(t['stale'])} stale, {count(t['error'])} error"
    )
    if t["counted"]:
        out += [
            f"**Overall:** {count(t['passed'])} of {count(t['counted'])} counted results pass "
            f"(**{format_rate(t['passed'], t['counted'])}**, 95% CI "
            f"{interval(t['low'], t['high'])}); {count(t['unparseable'])} unparseable (counted "
            f"as failures); not counted: {not_counted}.",
            "",
        ]
    else:
        out += [
            f"**Overall:** nothing was counted, so there is no pass rate: all "
            f"{count(t['rows'])} rows are not counted ({not_counted}).",
            "",
        ]
    labels = s.case_labels()
    if run.manifest.samples > 1:
        out += [
            "Cases (case x model): "
            + ", ".join(
                f"{count(labels.get(x, 0))} {x}"
                for x in ("stable-pass", "flaky", "stable-fail", "no data")
            ),
            "",
        ]
    out += ["### Pass rate per model", "", *_models(s, limit), ""]
    out += usage_markdown(run.rows, run_prices(run.manifest), limit=limit, usage=run.usage)
    out += failing_markdown(s, limit, baseline)
    out += render_metrics_md(s.metrics, limit)
    out += ["### Checks that fail most", "", *_checks(s, min(limit, 15)), ""]
    out += _tags(s, min(limit, 15))
    out += [f"### Flaky cases ({count(labels.get('flaky', 0))})", "", *_flaky(s, limit), ""]
    out += ["### Missing, stale and error", "", *_not_counted(s, min(limit, 15)), ""]
    m = run.manifest
    out += [
        "<sub>"
        + " · ".join(
            x
            for x in (
                f"prompt `{md_cell(m.prompt_hash[:19], 30)}`" if m.prompt_hash else "",
                f"{m.samples} sample(s) per case",
                f"planeval {md_cell(m.harness_version, 20)}" if m.harness_version else "",
                f"commit `{md_cell(m.git_commit[:12], 20)}`" if m.git_commit else "",
                "per-model intervals: 95%, clustered by case",
            )
            if x
        )
        + "</sub>",
        "",
    ]
    return "\n".join(out)


def render_summary_md(
    summary: Summary, *, max_chars: int = MAX_CHARS, baseline: Baseline | None = None
) -> str:
    """The summary as markdown, under ``max_chars`` characters.

    Args:
        summary: the run's summary.
        max_chars: the size limit (GitHub's comment limit, with a margin).
        baseline: the suite's baseline: the failing cases it did not fail are listed first.
    """
    limit = 25
    while True:
        text = _render(summary, limit, baseline)
        if len(text) < max_chars or limit <= 1:
            break
        limit = max(1, limit // 2)
    if len(text) >= max_chars:  # pathological (very long names): cut, never exceed
        text = text[: max_chars - 60] + "\n\n…(cut to stay under the comment size limit)\n"
    return text
