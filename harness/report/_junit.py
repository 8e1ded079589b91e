"""``junit.xml`` (one test case per case x model x sample) and ``results.csv``."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np
import pandas as pd

from harness.report._load import LoadedRun
from harness.report._rows import Row

__all__ = ["render_junit", "write_csv"]

_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


_SPECIAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff<>&\"'\n\r\t]")


def _x(text: Any) -> str:
    return escape(_BAD_XML.sub("?", str(text)))


def _a(text: Any) -> str:
    s = str(text)
    if _SPECIAL.search(s) is None:  # the common case (plain ids): no escaping work
        return f'"{s}"'
    return quoteattr(_BAD_XML.sub("?", s))


def _testcase(row: Row, classname: str) -> str:
    """A row's <testcase> as for a passing row (``render_junit`` adds the failure or error);
    ``classname`` is the quoted ``suite.model`` attribute."""
    name = f"{row.case}[{row.model}-s{row.sample}]"
    seconds = (row.latency_ms or 0) / 1000
    return f'<testcase classname={classname} name={_a(name)} time="{seconds:.3f}"/>'


_NO_ERROR = {"check": "?", "message": "failed"}
_SEP = "\ue000"
"""Joins the texts escaped in one pass (a private-use character: not escaped, not replaced)."""


def _escape_all(texts: list[str]) -> list[str]:
    """``_x`` of each text, computed over their concatenation at once."""
    joined = _SEP.join(texts)
    if joined.count(_SEP) != len(texts) - 1:  # some text holds the separator itself
        return [_x(t) for t in texts]
    return escape(_BAD_XML.sub("?", joined)).split(_SEP)


def _bodies(rows: list[Row], which: list[int]) -> list[str]:
    """The <failure> or <error> element of each row of ``which`` (rows that did not pass)."""
    opens, texts, closes = [], [], []
    for i in which:
        row = rows[i]
        status = row.status
        if status == "fail":
            violations = row.violations or []
            errors = [v for v in violations if v.get("severity", "error") == "error"]
            first = errors[0] if errors else _NO_ERROR
            msg = (
                f"{len(errors)} violation(s); first: [{first.get('check')}] {first.get('message')}"
            )
            lines = []
            for v in violations:
                where = f"{v.get('task')}: " if v.get("task") else ""
                sev = "" if v.get("severity", "error") == "error" else f" ({v.get('severity')})"
                lines.append(
                    f"[{v.get('check')}{sev}] {where}{v.get('message')} ({v.get('path', '')})"
                )
            opens.append(f'<failure type="violations" message={_a(msg)}>')
            texts.append("\n".join(lines))
            closes.append("</failure>")
        elif status == "unparseable":
            msg = row.detail or "no plan could be read from the answer"
            opens.append(f'<failure type="unparseable" message={_a(msg)}>')
            texts.append(str(msg))
            closes.append("</failure>")
        else:  # missing / stale / error are not plan failures: JUnit errors
            msg = row.detail or status
            opens.append(f"<error type={_a(status)} message={_a(msg)}>")
            texts.append(str(msg))
            closes.append("</error>")
    return [o + t + c for o, t, c in zip(opens, _escape_all(texts), closes, strict=True)]


def _plain(values: Any) -> bool:
    """No value needs escaping in an attribute (checked once per distinct id)."""
    return all(_SPECIAL.search(str(v)) is None for v in values)


def render_junit(run: LoadedRun) -> str:
    """The run as JUnit XML: one <testsuite> per model, one <testcase> per row.

    Every row is first written as a passing <testcase> (one comprehension over the rows);
    the rows that did not pass then get their failure or error. The ids are escaped once per
    distinct case and model, not once per row.
    """
    rows, f = run.rows, run.frame
    codes, models = pd.factorize(f["model"], sort=False)  # models in order of first row
    classname = {m: _a(run.suite + "." + m) for m in models}
    if _plain(f["case"].unique()) and _plain(models):
        texts = [
            f'<testcase classname={classname[r.model]} name="{r.case}[{r.model}-s{r.sample}]" '
            f'time="{(r.latency_ms or 0) / 1000:.3f}"/>'
            for r in rows
        ]
    else:
        texts = [_testcase(r, classname[r.model]) for r in rows]
    failed = np.flatnonzero((f["status"] != "pass").to_numpy()).tolist()
    for i, body in zip(failed, _bodies(rows, failed), strict=True):
        texts[i] = f"{texts[i][:-2]}>{body}</testcase>"
    status = f["status"].to_numpy()
    by_model = np.argsort(codes, kind="stable")
    bounds = np.cumsum(np.bincount(codes, minlength=len(models)))
    ordered = np.array(texts, dtype=object)[by_model]
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<testsuites name={_a('planeval ' + run.suite)}>",
    ]
    for m, model in enumerate(models):
        mine = status[codes == m]
        failures = int(np.isin(mine, ("fail", "unparseable")).sum())
        errors = int(np.isin(mine, ("missing", "stale", "error")).sum())
        parts.append(
            f'<testsuite name={_a(run.suite + "." + model)} tests="{len(mine)}" '
            f'failures="{failures}" errors="{errors}" skipped="0">'
        )
        parts.extend(ordered[bounds[m] - len(mine) : bounds[m]].tolist())
        parts.append("</testsuite>")
    parts.append("</testsuites>\n")
    return "\n".join(parts)


_QUOTE = re.compile('[,"\r\n\x00]')
"""A character after which the csv writer may quote a cell (QUOTE_MINIMAL, "\\r\\n")."""


def _csv_cell(text: str) -> str:
    """The cell as the stdlib csv writer writes it (asked of the writer itself)."""
    buf = io.StringIO()
    csv.writer(buf).writerow([text])
    return buf.getvalue()[:-2]


def _column(values: list[Any]) -> list[str]:
    """A column of cells: ``str`` of each value, as the csv writer writes it (quoted where the
    writer would quote: the rare cell with a comma, quote or line break goes through it)."""
    cells = [v if type(v) is str else str(v) for v in values]
    if _QUOTE.search("".join(cells)) is None:
        return cells
    return [_csv_cell(c) if _QUOTE.search(c) else c for c in cells]


def _with(run: LoadedRun, outcome: str) -> list[str]:
    """Per row, ``a;b``: the checks with this outcome (joined once per distinct set)."""
    sets = run.check_sets
    joined = [
        ";".join([k for k, v in zip(names, outcomes, strict=True) if v == outcome])
        for names, outcomes in zip(sets.names, sets.outcomes, strict=True)
    ]
    return [joined[i] for i in sets.ids.tolist()]


def write_csv(run: LoadedRun, path: Path) -> None:
    """One line per result row: ids, status, failed checks, counts, latency, tokens, detail.

    The lines are joined here, column by column, with the stdlib csv writer's rules
    (``csv.writer`` defaults: comma, minimal quoting, ``\\r\\n``); a cell that needs quoting is
    quoted by that writer. (pandas' to_csv took seconds on a 200,000-row run, and the csv
    writer over every cell a second.)
    """
    rows, f = run.rows, run.frame

    def ints(column: str) -> list[Any]:
        return ["" if x != x else int(x) for x in f[column].tolist()]

    columns: dict[str, list[Any]] = {
        "suite": f["suite"].tolist(),
        "case": f["case"].tolist(),
        "model": f["model"].tolist(),
        "sample": f["sample"].tolist(),
        "status": f["status"].tolist(),
        "failed_checks": _with(run, "fail"),
        "warned_checks": _with(run, "warn"),
        "violations": [len(r.violations or ()) for r in rows],
        "task_count": ["" if r.task_count is None else r.task_count for r in rows],
        "latency_ms": ["" if x != x else x for x in f["latency_ms"].tolist()],
        "tokens_input": ints("tokens_in"),
        "tokens_output": ints("tokens_out"),
        "tags": [";".join(map(str, r.tags or ())) for r in rows],
        "detail": [r.detail or "" for r in rows],
        "recording": [r.recording or "" for r in rows],
    }
    header = ",".join(_column(list(columns)))
    lines = map(",".join, zip(*(_column(c) for c in columns.values()), strict=True))
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(header)
        out.write("\r\n")
        out.write("\r\n".join(lines))
        out.write("\r\n")
