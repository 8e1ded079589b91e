"""``report.html``: one self-contained page (inline CSS, JS and SVG; nothing fetched).

The per-case table is drawn by the inline script from a compact JSON payload (one status
letter per sample), 50 cases a page. Plans and violations are included for the worst
(case, model) pairs first, then for the others, until ``PLAN_BUDGET`` bytes; beyond that a
row says its plan was left out, so a 200,000-row run stays well under 10 MB.
"""

from __future__ import annotations

import hashlib
import json
from html import escape
from typing import Any

from harness.report._aggregate import NOT_COUNTED, Summary
from harness.report._columns import MODEL_COLUMNS
from harness.report._format import count, interval, pct
from harness.report._html_assets import CSS, JS

__all__ = ["PLAN_BUDGET", "render_html"]

PLAN_BUDGET = 4_000_000
"""Bytes of plans embedded at most (violations get half as much again, separately)."""

_LETTER = {"pass": "p", "fail": "f", "unparseable": "u", "missing": "m", "stale": "s", "error": "e"}


def _chart(s: Summary) -> str:
    m = s.models.sort_values("rate", ascending=False, na_position="last")
    label_w, bar_w, row_h = 220, 560, 28
    height = row_h * len(m) + 40
    parts = [
        f'<svg width="{label_w + bar_w + 200}" height="{height}" '
        f'viewBox="0 0 {label_w + bar_w + 200} {height}" style="max-width:100%;height:auto" '
        'role="img" aria-label="pass rate per model with 95% intervals">'
    ]
    for tick in range(0, 101, 20):
        x = label_w + bar_w * tick / 100
        parts.append(
            f'<line x1="{x}" y1="4" x2="{x}" y2="{height - 22}" stroke="#d0d7de"/>'
            f'<text x="{x}" y="{height - 6}" font-size="11" text-anchor="middle" '
            f'fill="#57606a">{tick}%</text>'
        )
    for i, (model, r) in enumerate(m.iterrows()):
        y = 8 + i * row_h
        name = str(model)
        short = name if len(name) <= 30 else name[:29] + "…"
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 15}" font-size="12" text-anchor="end">'
            f"<title>{escape(name)}</title>{escape(short)}</text>"
        )
        if r["counted"] == 0:
            parts.append(
                f'<text x="{label_w + 4}" y="{y + 15}" font-size="12" fill="#57606a">'
                "no counted results</text>"
            )
            continue
        w = bar_w * float(r["rate"])
        lo, hi = label_w + bar_w * float(r["low"]), label_w + bar_w * float(r["high"])
        tip = (
            f"{escape(name)}: {pct(r['rate'])} ({count(r['passed'])}/{count(r['counted'])}), "
            f"95% CI {interval(r['low'], r['high'])}"
        )
        parts.append(
            f'<g><title>{tip}</title><rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="16" '
            f'fill="#54aeff" rx="2"/>'
            f'<line x1="{lo:.1f}" y1="{y + 11}" x2="{hi:.1f}" y2="{y + 11}" stroke="#1f2328" '
            f'stroke-width="1.5"/><line x1="{lo:.1f}" y1="{y + 5}" x2="{lo:.1f}" y2="{y + 17}" '
            f'stroke="#1f2328" stroke-width="1.5"/><line x1="{hi:.1f}" y1="{y + 5}" '
            f'x2="{hi:.1f}" y2="{y + 17}" stroke="#1f2328" stroke-width="1.5"/>'
            f'<text x="{label_w + bar_w + 10}" y="{y + 15}" font-size="12">{pct(r["rate"])} '
            f'<tspan fill="#57606a">[{interval(r["low"], r["high"])}] n={count(r["counted"])}'
            "</tspan></text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


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
            f'<td class="num"><b>{pct(r["rate"])}</b></td>',
            f'<td class="num">{interval(r["low"], r["high"])}</td>',
            f'<td class="num">{count(r["passed"])} / {count(r["counted"])}</td>',
            f'<td class="num">{pct(r["parse_rate"])}</td>',
        ]
        if k > 1:
            cells += [f'<td class="num">{pct(r[x])}</td>' for x in ("pass_at_k", "pass_hat_k")]
        cells += [f'<td class="num">{count(r[x])}</td>' for x in NOT_COUNTED]
        cells += [f'<td class="num">{escape(col.render(r))}</td>' for col in MODEL_COLUMNS]
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out) + "</table></div>"


def _heat(rate: float) -> str:
    if rate != rate:
        return ""
    alpha = 0.08 + 0.6 * min(1.0, rate)
    return f' style="background:rgba(207,34,46,{alpha:.2f})"' if rate > 0 else ""


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
            out.append(f'<td class="num" title="{escape(tip)}"{heat}>{pct(r["rate"])}</td>')
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
            tip = (
                f"{count(r['failed'])} of {count(r['evaluated'])} plans; "
                f"95% CI {interval(r['low'], r['high'])}"
            )
            heat = _heat(float(r["rate"]))
            out.append(f'<td class="num" title="{escape(tip)}"{heat}>{pct(r["rate"])}</td>')
        out.append("</tr>")
    return "".join(out) + "</table></div>"


def _case_payload(s: Summary, budget: int) -> dict[str, Any]:
    models = [str(m) for m in s.models.index]
    mi = {m: i for i, m in enumerate(models)}
    letters: dict[str, list[list[str]]] = {}
    rep_idx: dict[tuple[str, int], int] = {}
    tags: dict[str, list[str]] = {}
    for i, row in enumerate(s.run.rows):
        case, m, k = str(row["case"]), mi[str(row["model"])], int(row["sample"])
        slots = letters.get(case)
        if slots is None:
            slots = letters[case] = [[] for _ in models]
            tags[case] = [str(t) for t in row.get("tags") or []]
        cell = slots[m]
        if len(cell) <= k:
            cell.extend("_" * (k + 1 - len(cell)))
        cell[k] = _LETTER[row["status"]]
        key = (case, m)
        prev = rep_idx.get(key)
        if prev is None or _priority(row) < _priority(s.run.rows[prev]):
            rep_idx[key] = i
    bad = {
        c: sum(cell.count("f") + cell.count("u") for cell in slots) for c, slots in letters.items()
    }
    nc = {
        c: sum(sum(cell.count(x) for x in "mse") for cell in slots) for c, slots in letters.items()
    }
    order = sorted(letters, key=lambda c: (-bad[c], -nc[c], c))
    plans: dict[str, Any] = {}
    viols: dict[str, Any] = {}
    reps: dict[tuple[str, int], list[Any]] = {}
    used = vused = 0
    # worst pairs first: failing (case, model) pairs, then the rest
    rank = {c: i for i, c in enumerate(order)}
    pairs = sorted(rep_idx, key=lambda p: (_priority(s.run.rows[rep_idx[p]]) > 1, rank[p[0]], p[1]))
    for key in pairs:
        row = s.run.rows[rep_idx[key]]
        pk = vk = None
        if row.get("plan"):
            text = json.dumps(row["plan"], separators=(",", ":"), ensure_ascii=False)
            pk = hashlib.blake2b(text.encode(), digest_size=6).hexdigest()
            if pk not in plans:
                if used + len(text) > budget:
                    pk = None
                else:
                    plans[pk] = row["plan"]
                    used += len(text)
        if row.get("violations"):
            text = json.dumps(row["violations"], separators=(",", ":"), ensure_ascii=False)
            vk = hashlib.blake2b(text.encode(), digest_size=6).hexdigest()
            if vk not in viols:
                if vused + len(text) > budget // 2:  # their own budget: small, and say why
                    vk = None
                else:
                    viols[vk] = row["violations"]
                    vused += len(text)
        detail = row.get("detail")
        failed = None
        if vk is None and row.get("violations"):  # left out: at least name the failed checks
            failed = [k for k, v in (row.get("checks") or {}).items() if v == "fail"]
        reps[key] = [int(row["sample"]), pk, vk, str(detail)[:300] if detail else None, failed]
    cases = [
        {
            "id": c,
            "tags": tags[c],
            "s": ["".join(cell) for cell in letters[c]],
            "r": [reps.get((c, m)) for m in range(len(models))],
        }
        for c in order
    ]
    return {"models": models, "cases": cases, "plans": plans, "viol": viols}


def _priority(row: dict[str, Any]) -> int:
    """Which sample of a (case, model) represents it: failures first, then passes."""
    return {"fail": 0, "unparseable": 1, "pass": 2, "error": 3, "stale": 4, "missing": 5}[
        row["status"]
    ]


def render_html(summary: Summary, *, plan_budget: int = PLAN_BUDGET) -> str:
    """The report as one self-contained HTML page."""
    s = summary
    run, t = s.run, s.total
    payload = _case_payload(s, plan_budget)
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
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
    shown = sum(1 for c in payload["cases"] for r in c["r"] if r and r[1])
    cut = any(r and r[1] is None and r[3] is None for c in payload["cases"] for r in c["r"])
    omitted = (
        f"Plans are shown for {count(shown)} case x model pairs; the rest were left out to "
        "keep this file small."
        if cut
        else ""
    )
    heads = "".join(f"<th><code>{escape(x)}</code></th>" for x in payload["models"])
    legend = "".join(
        f'<span><span class="chip s-{v}">{v}</span> {k}</span>' for k, v in _LETTER.items()
    )
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planeval report: {escape(run.suite)} · {escape(m.run_id)}</title>
<style>{CSS}</style></head><body>
<h1>planeval report: <code>{escape(run.suite)}</code></h1>
<div class="meta">{meta}</div>
{warn}
<p class="headline"><b>{pct(t["rate"])}</b> of counted results pass
({count(t["passed"])} of {count(t["counted"])}, 95% CI {interval(t["low"], t["high"])}).
{count(t["unparseable"])} unparseable (counted as failures).
Not counted in any rate: {count(t["missing"])} missing, {count(t["stale"])} stale,
{count(t["error"])} error.</p>
<p class="meta">Case x model labels: {escape(label_line)}.</p>
<h2>Pass rate per model</h2>
<p class="meta">Bars: pass rate over counted results (pass, fail, unparseable);
whiskers: 95% interval clustered by case (design-effect-adjusted Wilson; plain Wilson with one
sample per case).</p>
{_chart(s)}
{_model_table(s)}
<h2>Check failure rate per model</h2>
<p class="meta">Share of parsed plans on which the check did not pass
(fail, or warn for warning checks). Hover a cell for counts.</p>
{_check_table(s)}
<h2>Pass rate per tag</h2>
<p class="meta">Pass rate of each tag's cases per model (the redder, the lower). Hover a cell for
counts and the 95% interval.</p>
{_tag_table(s)}
<h2>Cases</h2>
<p class="meta">Worst first. One chip per sample: <span class="legend">{legend}</span><br>
Click a row to see each model's plan (a failing sample when there is one):
its tasks, dependency graph and violations. {omitted}</p>
<div class="controls"><input id="q" type="search" placeholder="filter by case id or tag">
<select id="only"><option value="all">all cases</option>
<option value="failing">with failures</option>
<option value="flaky">flaky</option><option value="notcounted">with missing / stale / error</option>
<option value="passing">all passing</option></select>
<span class="pager"><button id="prev">‹ prev</button><button id="next">next ›</button></span>
<span id="pageinfo" class="meta"></span></div>
<noscript><p class="warn">The case table needs JavaScript;
results.csv holds the same rows.</p></noscript>
<div class="scroll"><table id="cases"><thead><tr><th>case</th><th>tags</th>
{heads}</tr></thead><tbody></tbody></table></div>
<script type="application/json" id="case-data">{data}</script>
<script>{JS}</script>
</body></html>
"""
    return body
