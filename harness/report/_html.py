"""``report.html``: the page (inline CSS, JS and SVG; nothing fetched from the network).

The page says which model is better (``_verdict``), draws per-model, per-check and per-tag
tables, and a case table drawn by the inline script from the parts of ``_html_data``. A small
run's parts sit in the page (one self-contained file); past ``INLINE_BYTES`` every part is a
script file in a folder beside the page (``report-data-<hash>/cases-0000.js``, ...), which
the page reads with ``<script src>`` (that works from disk, where ``fetch`` does not) when a
page of the table, a filter or an opened case needs it: the page's size does not grow with
the rows.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from html import escape
from typing import Any

from harness._format import format_rate
from harness.report._aggregate import NOT_COUNTED, Summary
from harness.report._columns import MODEL_COLUMNS
from harness.report._format import count, interval, pct
from harness.report._html_assets import CSS, GRAPH_JS, JS
from harness.report._html_data import (
    DETAIL_BUDGET,
    LETTER,
    PART_BYTES,
    CaseParts,
    case_parts,
)
from harness.report._load import read_prompts
from harness.report._metrics import render_metrics_html
from harness.report._verdict import model_verdicts

__all__ = ["DATA_PREFIX", "INLINE_BYTES", "ReportPage", "render_html", "render_report_page"]

INLINE_BYTES = 1_000_000
"""Case list and detail kept inside report.html at most; past it every part is a side file."""
DATA_PREFIX = "report-data-"
"""The side folder's name: this and the first 12 hex digits of its files' SHA-256."""


@dataclass(frozen=True, slots=True)
class ReportPage:
    """report.html and the files of its side folder."""

    html: str
    """The page."""
    folder: str | None
    """The side folder's name (beside the page), or None when every part is in the page."""
    files: dict[str, bytes]
    """File name (inside ``folder``) -> content."""


def _chart(s: Summary) -> str:
    """Pass rate per model as HTML bars with interval whiskers: the text stays at its own size
    at any page width (a narrow page puts the label and figure above the bar)."""
    m = s.models.sort_values("rate", ascending=False, na_position="last")
    parts = [
        '<div class="bars" id="pass-chart" aria-label="pass rate per model with 95% intervals">'
    ]
    for model, r in m.iterrows():
        name = escape(str(model))
        label = f'<div class="bar-label"><code>{name}</code></div>'
        if r["counted"] == 0:
            parts.append(
                f'<div class="bar-row">{label}<div class="bar-track"></div>'
                '<div class="bar-value note">no counted results</div></div>'
            )
            continue
        rate, lo, hi = (100 * float(r[x]) for x in ("rate", "low", "high"))
        shown = _rate(r, "passed", "counted")
        tip = (
            f"{name}: {shown} ({count(r['passed'])}/{count(r['counted'])}), "
            f"95% CI {interval(r['low'], r['high'])}"
        )
        parts.append(
            f'<div class="bar-row" title="{tip}">{label}<div class="bar-track">'
            f'<div class="bar" style="width:{rate:.1f}%"></div>'
            f'<div class="whisker" style="left:{lo:.1f}%;width:{hi - lo:.1f}%"></div></div>'
            f'<div class="bar-value"><b>{shown}</b> <span class="meta">'
            f"[{interval(r['low'], r['high'])}] n={count(r['counted'])}</span></div></div>"
        )
    ticks = "".join(f'<span style="left:{t}%">{t}%</span>' for t in range(0, 101, 20))
    parts.append(
        f'<div class="bar-row bar-axis"><div></div><div class="bar-track">{ticks}</div></div></div>'
    )
    return "".join(parts)


def _rate(r: Any, k: str, n: str) -> str:
    """``format_rate`` of two count columns (never 100% with a failure)."""
    return format_rate(int(r[k]), int(r[n]))


def _model_table(s: Summary) -> str:
    m = s.models
    k = int(m["k"].iloc[0]) if len(m) else 1
    head = ["model", "pass rate", "95% CI", "passed / counted", "parse rate"]
    head += [f"pass@{k}", f"pass^{k}"] if k > 1 else []
    head += [*NOT_COUNTED, *(col.header for col in MODEL_COLUMNS)]
    out = ['<div class="scroll"><table><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for model, r in m.sort_values("rate", ascending=False, na_position="last").iterrows():
        cells = [
            f"<td><code>{escape(str(model))}</code></td>",
            f'<td class="num"><b>{_rate(r, "passed", "counted")}</b></td>',
            f'<td class="num">{interval(r["low"], r["high"])}</td>',
            f'<td class="num">{count(r["passed"])} / {count(r["counted"])}</td>',
            f'<td class="num">{_rate(r, "parsed", "counted")}</td>',
        ]
        if k > 1:
            cells += [f'<td class="num">{pct(r[x])}</td>' for x in ("pass_at_k", "pass_hat_k")]
        cells += [f'<td class="num">{count(r[x])}</td>' for x in NOT_COUNTED]
        cells += [f'<td class="num">{escape(col.render(r))}</td>' for col in MODEL_COLUMNS]
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out) + "</table></div>"


def _usage_line(s: Summary) -> str:
    """Tokens and cost over all models, with the prices' dates (empty without usage)."""
    from harness.cost import run_prices, usage_total_line

    line = usage_total_line(s.run.rows, run_prices(s.run.manifest), usage=s.run.usage)
    return f'<p class="meta" id="usage">{escape(line)}</p>' if line else ""


def _heat(rate: float, warn: bool = False) -> str:
    if rate != rate or rate <= 0:
        return ""
    alpha = 0.08 + 0.6 * min(1.0, rate)
    colour = "212,167,44" if warn else "207,34,46"  # warnings amber, never red
    return f' style="background:rgba({colour},{alpha:.2f})"'


def _tag_table(s: Summary) -> str:
    t = s.tags
    if t.empty:
        return '<p class="note">The cases have no tags.</p>'
    models = list(s.models.index)
    out = ['<div class="scroll"><table class="heat"><tr><th>tag</th>']
    out += [f"<th><code>{escape(str(m))}</code></th>" for m in models]
    out.append("</tr>")
    for tag in dict.fromkeys(t.index.get_level_values("tag")):
        out.append(f"<tr><td><code>{escape(str(tag))}</code></td>")
        for model in models:
            if (tag, model) not in t.index or not t.loc[(tag, model), "counted"]:
                out.append('<td class="num note">–</td>')
                continue
            r = t.loc[(tag, model)]
            tip = (
                f"{count(r['passed'])} of {count(r['counted'])} pass; "
                f"95% CI {interval(r['low'], r['high'])}; {count(r['not_counted'])} not counted"
            )
            heat = _heat(1.0 - float(r["rate"]))
            rate = _rate(r, "passed", "counted")
            out.append(f'<td class="num" title="{escape(tip)}"{heat}>{rate}</td>')
        out.append("</tr>")
    return "".join(out) + "</table></div>"


def _check_table(s: Summary) -> str:
    c = s.checks
    if c.empty:
        return '<p class="note">No plan was checked (nothing parsed).</p>'
    models = list(s.models.index)
    checks = list(dict.fromkeys(c.index.get_level_values("check")))
    out = ['<div class="scroll"><table class="heat"><tr><th>check</th>']
    out += [f"<th><code>{escape(str(m))}</code></th>" for m in models]
    out.append("</tr>")
    for check in checks:
        out.append(f"<tr><td><code>{escape(str(check))}</code></td>")
        for model in models:
            if (check, model) not in c.index:
                out.append('<td class="num note">–</td>')
                continue
            r = c.loc[(check, model)]
            warned = int(r["warned"])
            errors = int(r["failed"]) - warned
            tip = (
                f"{count(errors)} failed and {count(warned)} warned of {count(r['evaluated'])} "
                f"plans; 95% CI {interval(r['low'], r['high'])}"
            )
            only_warn = warned > 0 and errors == 0
            heat = _heat(float(r["rate"]), warn=only_warn)
            cls = "num w" if only_warn else "num"
            rate = _rate(r, "failed", "evaluated")
            label = f"{rate} warn" if only_warn else rate
            out.append(f'<td class="{cls}" title="{escape(tip)}"{heat}>{label}</td>')
        out.append("</tr>")
    return "".join(out) + "</table></div>"


def _verdicts(s: Summary) -> str:
    ranked = [str(m) for m in s.models.sort_values("rate", ascending=False).index]
    ranked = [m for m in ranked if s.models.loc[m, "counted"] > 0]
    verdicts = model_verdicts(s.cases, ranked)
    if not verdicts:
        return ""
    lines = "".join(
        f'<p class="verdict{" sig" if v.significant else ""}">{escape(v.text)}</p>'
        for v in verdicts
    )
    method = "exact McNemar" if verdicts[0].result.method == "mcnemar-exact" else "sign-flip"
    holm = (
        "; Holm-corrected over every pair of models, each interval at the level Holm tested it "
        "at, so any claim here comes from a family with at most a 5% chance of a false one"
        if len(ranked) > 2
        else ""
    )
    return (
        f'<h2>Which model is better</h2><div id="verdicts">{lines}</div><p class="meta">The best '
        f"model against each other one, on the cases both counted (paired {method} test, 5% "
        f"level{holm}).</p>"
    )


def _json_script(element_id: str, data: Any) -> str:
    text = _in_page(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _in_page(text: str) -> str:
    """JSON text made safe inside a ``<script>`` element (``<``, ``>``, ``&`` occur only in
    its strings, where the escapes mean the same)."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_REGISTRY = (
    "<script>window.planevalReport={C:[],X:[],cases(k,c){this.C[k]=c;},"
    "detail(k,d){this.X[k]=d;}};</script>"
)
"""Where the parts land, in the page or from their side files (before any part's script)."""


def _part_scripts(parts: CaseParts) -> list[tuple[str, str]]:
    """(file name, script) of every part: ``planevalReport.cases(k, [...]);`` and
    ``planevalReport.detail(k, {...});``."""
    out = []
    for kind, texts in (("cases", parts.cases), ("detail", parts.details)):
        for k, text in enumerate(texts):
            out.append((f"{kind}-{k:04d}.js", f"planevalReport.{kind}({k},{text.decode()});\n"))
    return out


def _data(parts: CaseParts, inline_bytes: int | None) -> tuple[str, str | None, dict[str, bytes]]:
    """The page's data scripts, and the side folder's name and files (None, {}: in the page)."""
    scripts = _part_scripts(parts)
    size = sum(len(x) for x in parts.cases) + sum(len(x) for x in parts.details)
    if inline_bytes is None or size <= inline_bytes:
        index = {**parts.index, "dir": None}
        inline = "".join(f"<script>{_in_page(script)}</script>" for _, script in scripts)
        return _json_script("case-index", index) + _REGISTRY + inline, None, {}
    files = {name: script.encode() for name, script in scripts}
    digest = hashlib.sha256()
    for name, content in files.items():
        digest.update(name.encode() + b"\0" + content)
    folder = DATA_PREFIX + digest.hexdigest()[:12]
    index = {**parts.index, "dir": folder}
    return _json_script("case-index", index) + _REGISTRY, folder, files


def _options(pairs: list[tuple[str, str]]) -> str:
    return "".join(f'<option value="{v}">{escape(t)}</option>' for v, t in pairs)


_CONTROLS = (
    '<div class="controls"><input id="q" type="search" placeholder="search case id or tag">'
    '<label>status <select id="fstatus">'
    + _options(
        [
            ("all", "any"),
            ("failing", "with failures"),
            ("flaky", "flaky"),
            ("allpass", "all passing"),
            *[(x, f"with {x}") for x in ("fail", "unparseable", "missing", "stale", "error")],
        ]
    )
    + '</select></label><label>check <select id="fcheck"><option value="all">any</option>'
    '</select></label><label>model <select id="fmodel"><option value="all">all</option>'
    '</select></label><label>tag <select id="ftag"><option value="all">any</option></select>'
    '</label><label>order <select id="sort"><option value="worst">worst first</option>'
    '<option value="id">case id</option></select></label>'
    '<span class="pager"><button id="prev">‹ prev</button><button id="next">next ›</button>'
    '</span><span id="pageinfo" class="meta" aria-live="polite"></span></div>'
)


def render_html(summary: Summary, *, budget: int = DETAIL_BUDGET) -> str:
    """The report as one self-contained HTML page (every part of the case table inside it,
    whatever its size; ``write_report`` writes large ones beside the page instead)."""
    return render_report_page(summary, budget=budget, inline_bytes=None).html


def render_report_page(
    summary: Summary,
    *,
    budget: int = DETAIL_BUDGET,
    inline_bytes: int | None = INLINE_BYTES,
    part_bytes: int = PART_BYTES,
) -> ReportPage:
    """report.html and its side files: the case table's parts (about ``part_bytes`` of case
    list each) stay in the page up to ``inline_bytes`` in all (None: always), else every part
    is a side file."""
    s = summary
    run, t = s.run, s.total
    parts = case_parts(s, read_prompts(run.run_dir), budget, part_bytes)
    data, folder, files = _data(parts, inline_bytes)
    warn = "".join(f'<div class="warn">{escape(w)}</div>' for w in run.warnings)
    m = run.manifest
    meta = " · ".join(
        escape(x)
        for x in (
            f"run {m.run_id}",
            f"started {m.started_at}" if m.started_at else "",
            f"{m.samples} sample(s) per case",
            f"prompt {m.prompt_hash[:19]}" if m.prompt_hash else "",
            f"planeval {m.harness_version}" if m.harness_version else "",
            f"commit {m.git_commit[:12]}" if m.git_commit else "",
        )
        if x
    )
    labels = s.case_labels()
    label_line = ", ".join(
        f"{count(labels.get(x, 0))} {x}"
        for x in ("stable-pass", "flaky", "stable-fail", "pass", "fail", "no data")
        if labels.get(x, 0)
    )
    omitted = (
        "Some samples' detail was left out to keep this file small (see results.jsonl)."
        if parts.index["cut"]
        else ""
    )
    legend = "".join(
        f'<span><span class="chip s-{v}">{v}</span> {k}</span>' for k, v in LETTER.items()
    )
    html = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planeval report: {escape(run.suite)} · {escape(m.run_id)}</title>
<style>{CSS}</style></head><body>
<h1>planeval report: <code>{escape(run.suite)}</code></h1>
<div class="meta">{meta}</div>
{warn}
<p class="headline"><b>{format_rate(t["passed"], t["counted"])}</b> of counted results pass
({count(t["passed"])} of {count(t["counted"])}).
{count(t["unparseable"])} unparseable (counted as failures).
Not counted in any rate: {count(t["missing"])} missing, {count(t["stale"])} stale,
{count(t["error"])} error.</p>
<p class="meta">Case x model labels: {escape(label_line)}.</p>
{_verdicts(s)}
<h2>Pass rate per model</h2>
<p class="meta">Bars: pass rate pooled over counted results (pass, fail, unparseable);
whiskers: 95% interval clustered by case (design-effect-adjusted Wilson; plain Wilson with one
sample per case).</p>
{_chart(s)}
{_model_table(s)}
{_usage_line(s)}
{render_metrics_html(s.metrics)}<h2>Check failure rate per model</h2>
<p class="meta">Share of parsed plans on which the check did not pass; red: failures, amber:
warnings only (warning-severity checks never fail a plan). Hover a cell for counts.</p>
{_check_table(s)}
<h2>Pass rate per tag</h2>
<p class="meta">Pass rate of each tag's cases per model (the redder, the lower). Hover a cell for
counts and the 95% interval.</p>
{_tag_table(s)}
<h2>Cases</h2>
<p class="meta">Worst first (or by case id, numbers in order). One chip per sample:
<span class="legend">{legend}</span><br>
Click a row to open it, then a sample's chip to see its prompt, raw answer, violations and plan
graph (failing tasks and edges in red, warnings in amber). The address bar links to what is
open. {omitted}</p>
{_CONTROLS}
<noscript><p class="warn">The case table needs JavaScript;
results.csv holds the same rows.</p></noscript>
<p class="warn" id="data-error" role="alert" hidden></p>
<div class="scroll"><table id="cases"><thead><tr></tr></thead><tbody></tbody></table></div>
{data}
<script>{GRAPH_JS}{JS}</script>
</body></html>
"""
    return ReportPage(html, folder, files)
