"""``compare --format html``: one self-contained page for two runs (nothing fetched).

The verdict and interval per model, the other per-model figures, per-check changes on the
shared cases, and every flip (pass -> fail first, up to ``FLIP_LIMIT``) with its plan diff:
tasks added, removed and changed, edges added and removed, violations that appeared or
disappeared, drawn on the two plans' graphs side by side (drawn when a flip is opened).
"""

from __future__ import annotations

import json
import math
from html import escape
from typing import TYPE_CHECKING, Any

from harness._format import format_points_interval
from harness.compare._compare import Comparison, PairedTest
from harness.compare._flip_detail import FlipDetail, flip_details
from harness.compare._render import ci_label
from harness.report._columns import MODEL_COLUMNS
from harness.report._format import pct
from harness.report._html_assets import COMPARE_JS, CSS, GRAPH_JS

if TYPE_CHECKING:
    from harness.report._rows import Row

__all__ = ["FLIP_LIMIT", "render_compare_html"]

FLIP_LIMIT = 300
"""Flips drawn with their plans (the rest are counted; ``--format json`` lists them all)."""


def _pts(x: float) -> str:
    return "–" if math.isnan(x) else f"{x * 100:+.1f}"


def _test_row(name: str, t: PairedTest) -> str:
    cls = {"better": "up", "worse": "down"}.get(t.verdict, "")
    p_adj = f"{t.p_adjusted:.3g}" if t.adjusted else "–"
    # data-label names each cell where a narrow page stacks the table into cards
    return (
        f"<tr><td><code>{escape(name)}</code></td>"
        f"<td class='num' data-label='base'>{pct(t.base_rate)}</td>"
        f"<td class='num' data-label='candidate'>{pct(t.cand_rate)}</td>"
        f"<td class='num' data-label='difference'>{_pts(t.difference)} pts</td>"
        f"<td class='num' data-label='interval'>{escape(ci_label(t))} "
        f"{escape(format_points_interval(t.low, t.high, unit=''))}</td>"
        f"<td class='num' data-label='p'>{t.p_value:.3g}</td>"
        f"<td class='num' data-label='p (Holm)'>{p_adj}</td>"
        f"<td class='num' data-label='cases'>{t.n}</td>"
        f"<td class='verdict-cell {cls}'><b>{escape(t.verdict_text)}</b></td></tr>"
    )


def _tests(c: Comparison) -> str:
    head = (
        "<tr><th>model</th><th>base</th><th>candidate</th><th>difference</th><th>interval</th>"
        "<th>p</th><th>p (Holm)</th><th>cases</th><th>verdict</th></tr>"
    )
    rows = [_test_row(k, t) for k, t in c.per_model.items()] if len(c.per_model) > 1 else []
    rows.append(_test_row("overall", c.overall))
    return f"<div class='scroll'><table id='verdicts'>{head}{''.join(rows)}</table></div>"


def _figures(c: Comparison) -> str:
    cols = [col for col in MODEL_COLUMNS if col.in_compare]
    base, cand = c.figures.get("base"), c.figures.get("cand")
    if not cols or base is None or cand is None or base.empty:
        return ""
    head = "<tr><th>model</th>" + "".join(f"<th>{escape(x.header)}</th>" for x in cols) + "</tr>"
    rows = []
    for model in c.per_model:
        if model in base.index and model in cand.index:
            cells = "".join(
                f"<td class='num'>{escape(x.render(base.loc[model]))} → "
                f"{escape(x.render(cand.loc[model]))}</td>"
                for x in cols
            )
            rows.append(f"<tr><td><code>{escape(model)}</code></td>{cells}</tr>")
    return (
        "<h2>Other figures</h2><p class='meta'>On the compared cases; base → candidate.</p>"
        f"<div class='scroll'><table>{head}{''.join(rows)}</table></div>"
    )


def _checks(c: Comparison) -> str:
    d = c.check_deltas.dropna(subset=["delta"])
    if d.empty:
        return "<p class='note'>No check was evaluated on the compared cases.</p>"
    d = d.reindex(d["delta"].abs().sort_values(ascending=False, kind="stable").index)
    rows = []
    for r in d.to_dict("records"):
        cls = "down" if r["delta"] > 0 else ("up" if r["delta"] < 0 else "")
        rows.append(
            f"<tr><td><code>{escape(r['check'])}</code></td><td><code>{escape(r['model'])}"
            f"</code></td><td class='num'>{pct(r['base_rate'])} ({r['base_n']})</td>"
            f"<td class='num'>{pct(r['cand_rate'])} ({r['cand_n']})</td>"
            f"<td class='num {cls}'>{_pts(r['delta'])} pts</td></tr>"
        )
    return (
        "<div class='scroll'><table id='checks'><tr><th>check</th><th>model</th>"
        "<th>base failure rate (plans)</th><th>candidate</th><th>change</th></tr>"
        + "".join(rows)
        + "</table></div>"
    )


def _items(cls: str, items: list[str]) -> str:
    return "".join(f"<li class='{cls}'>{escape(x)}</li>" for x in items)


def _flip(i: int, fd: FlipDetail) -> str:
    f, d = fd.flip, fd.diff

    def edge(e: tuple[str, str, str]) -> str:
        return f"{e[0]} → {e[1]}" + (" (needs)" if e[2] == "needs" else "")

    def viol(v: dict[str, Any]) -> str:
        return f"[{v.get('check')}] {v.get('message', '')}"

    lines = (
        _items("add", [f"task added: {x}" for x in d.added])
        + _items("del", [f"task removed: {x}" for x in d.removed])
        + _items("chg", [f"task changed: {b} → {c} ({', '.join(fs)})" for b, c, fs in d.changed])
        + _items("add", [f"edge added: {edge(e)}" for e in d.edges_added])
        + _items("del", [f"edge removed: {edge(e)}" for e in d.edges_removed])
        + _items("del", [f"violation appeared: {viol(v)}" for v in d.violations_appeared])
        + _items("add", [f"violation gone: {viol(v)}" for v in d.violations_gone])
    )
    diff = (
        f"<ul class='diff'>{lines}</ul>" if lines else "<p class='note'>The plans are the same.</p>"
    )
    cls = "down" if fd.direction == "pass -> fail" else "up"

    def side(name: str, row: Row | None, counts: str) -> str:
        status = row["status"] if row else "no sample"
        detail = (
            f"<div class='note'>{escape(str(row['detail']))}</div>"
            if row and row.get("detail")
            else ""
        )
        return (
            f"<div><h4>{name}: {escape(counts)} pass · sample {row['sample'] if row else '–'} "
            f"({escape(status)})</h4>{detail}<div class='scroll graph-{name}'></div></div>"
        )

    return (
        f"<details class='flip' data-flip='{i}' data-key='{escape(f.model)}/{escape(f.case)}'>"
        f"<summary><b class='{cls}'>{escape(fd.direction)}</b> <code>{escape(f.model)}</code> / "
        f"<code>{escape(f.case)}</code>: {escape(f.base)} → {escape(f.cand)} — "
        f"{escape(d.summary())}</summary>{diff}<div class='side'>"
        f"{side('base', fd.base_row, f.base)}{side('cand', fd.cand_row, f.cand)}</div></details>"
    )


def _payload(details: list[FlipDetail]) -> str:
    data = [
        {
            "base": fd.base_row.plan if fd.base_row else None,
            "cand": fd.cand_row.plan if fd.cand_row else None,
            "bv": (fd.base_row.violations if fd.base_row else None) or [],
            "cv": (fd.cand_row.violations if fd.cand_row else None) or [],
            "diff": fd.diff.to_dict(),
        }
        for fd in details
    ]
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_compare_html(c: Comparison) -> str:
    """The comparison as one self-contained HTML page."""
    details = flip_details(c, FLIP_LIMIT)
    total = len(c.to_fail) + len(c.to_pass)
    more = (
        f"<p class='note'>…and {total - len(details)} more flips (see --format json).</p>"
        if total > len(details)
        else ""
    )
    warn = "".join(
        f"<div class='warn'>{escape(w)}</div>" for w in [*c.base.warnings, *c.cand.warnings]
    )
    left = [f"{m}/{k} (base only)" for m, k in c.only_in_base]
    left += [f"{m}/{k} (candidate only)" for m, k in c.only_in_cand]
    left_html = (
        "<h2>Left out</h2><p class='meta'>Counted in one run only: listed, not compared.</p>"
        f"<p>{escape(', '.join(left[:200]))}{' …' if len(left) > 200 else ''}</p>"
        if left
        else ""
    )
    holm = (
        " Per-model verdicts are Holm-corrected over the models; each interval is at the level"
        " Holm tested that model at."
        if len(c.per_model) > 1
        else ""
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planeval compare: {escape(c.base.suite)}</title><style>{CSS}</style></head><body>
<h1>planeval compare: <code>{escape(c.base.suite)}</code></h1>
<div class="meta">base <code>{escape(c.base.manifest.run_id)}</code> · candidate
<code>{escape(c.cand.manifest.run_id)}</code></div>
{warn}
<p class="headline" id="headline">{escape(c.headline)}; every figure below is on the
compared cases.</p>
<h2>Verdict</h2>
{_tests(c)}
<p class="meta">Pooled pass rates; test: {escape(c.overall.method)} (exact McNemar with one
sample per case, else a sign-flip permutation test over cases), 5% level; the interval always
agrees with the verdict.{holm}</p>
{_figures(c)}
<h2>Check failure rates</h2>
{_checks(c)}
<h2>Flips ({len(c.to_fail)} pass → fail, {len(c.to_pass)} fail → pass)</h2>
<p class="meta">Open a flip to see its plans side by side: base on the left (removed tasks and
edges in red), candidate on the right (added in green, changed in amber); tasks and edges with
violations are red on either side.</p>
<div id="flips">{"".join(_flip(i, fd) for i, fd in enumerate(details))}</div>{more}
{left_html}
<script type="application/json" id="flip-data">{_payload(details)}</script>
<script>{GRAPH_JS}{COMPARE_JS}</script>
</body></html>
"""
