"""``junit.xml`` (one test case per case x model x sample) and ``results.csv``."""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

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


def _violations(row: Row) -> str:
    lines = []
    for v in row.violations or []:
        where = f"{v.get('task')}: " if v.get("task") else ""
        sev = "" if v.get("severity", "error") == "error" else f" ({v.get('severity')})"
        lines.append(f"[{v.get('check')}{sev}] {where}{v.get('message')} ({v.get('path', '')})")
    return "\n".join(lines)


def _testcase(row: Row, classname: str) -> str:
    """One <testcase>; ``classname`` is the quoted ``suite.model`` attribute."""
    name = f"{row.case}[{row.model}-s{row.sample}]"
    seconds = (row.latency_ms or 0) / 1000
    head = f'<testcase classname={classname} name={_a(name)} time="{seconds:.3f}"'
    status = row.status
    if status == "pass":
        return head + "/>"
    if status == "fail":
        errors = [v for v in row.violations or [] if v.get("severity", "error") == "error"]
        first = errors[0] if errors else {"check": "?", "message": "failed"}
        msg = f"{len(errors)} violation(s); first: [{first.get('check')}] {first.get('message')}"
        body = f'<failure type="violations" message={_a(msg)}>{_x(_violations(row))}</failure>'
    elif status == "unparseable":
        msg = row.detail or "no plan could be read from the answer"
        body = f'<failure type="unparseable" message={_a(msg)}>{_x(msg)}</failure>'
    else:  # missing / stale / error are not plan failures: JUnit errors
        msg = row.detail or status
        body = f"<error type={_a(status)} message={_a(msg)}>{_x(msg)}</error>"
    return f"{head}>{body}</testcase>"


def render_junit(run: LoadedRun) -> str:
    """The run as JUnit XML: one <testsuite> per model, one <testcase> per row."""
    by_model: dict[str, list[Row]] = defaultdict(list)
    for row in run.rows:
        by_model[row.model].append(row)
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<testsuites name={_a('planeval ' + run.suite)}>",
    ]
    for model, rows in by_model.items():
        statuses = Counter(r.status for r in rows)
        failures = statuses["fail"] + statuses["unparseable"]
        errors = statuses["missing"] + statuses["stale"] + statuses["error"]
        parts.append(
            f'<testsuite name={_a(run.suite + "." + model)} tests="{len(rows)}" '
            f'failures="{failures}" errors="{errors}" skipped="0">'
        )
        classname = _a(run.suite + "." + model)
        parts.extend(_testcase(r, classname) for r in rows)
        parts.append("</testsuite>")
    parts.append("</testsuites>\n")
    return "\n".join(parts)


def _cell(x: Any) -> Any:
    """A CSV cell: NaN / NA as empty, whole floats of integer columns as ints."""
    if x is None or x is pd.NA or (isinstance(x, float) and x != x):
        return ""
    return x


def _outcome(checks: dict[str, str] | None, outcome: str) -> str:
    """``a;b``: the checks with this outcome (most rows have none: one test in C)."""
    if not checks or outcome not in checks.values():
        return ""
    return ";".join(k for k, v in checks.items() if v == outcome)


def write_csv(run: LoadedRun, path: Path) -> None:
    """One line per result row: ids, status, failed checks, counts, latency, tokens, detail.

    Written with the stdlib csv writer (pandas' to_csv took seconds on a 200,000-row run).
    """
    rows, f = run.rows, run.frame

    def ints(column: str) -> list[Any]:
        return [_cell(x) if x != x or x is None else int(x) for x in f[column].tolist()]

    columns: dict[str, list[Any]] = {
        "suite": f["suite"].tolist(),
        "case": f["case"].tolist(),
        "model": f["model"].tolist(),
        "sample": f["sample"].tolist(),
        "status": f["status"].tolist(),
        "failed_checks": [_outcome(r.checks, "fail") for r in rows],
        "warned_checks": [_outcome(r.checks, "warn") for r in rows],
        "violations": [len(r.violations or ()) for r in rows],
        "task_count": [_cell(x) for x in f["task_count"].tolist()],
        "latency_ms": [_cell(x) for x in f["latency_ms"].tolist()],
        "tokens_input": ints("tokens_in"),
        "tokens_output": ints("tokens_out"),
        "tags": [";".join(map(str, r.tags or ())) for r in rows],
        "detail": [r.detail or "" for r in rows],
        "recording": [r.recording or "" for r in rows],
    }
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(columns)
        writer.writerows(zip(*columns.values(), strict=True))
