"""``junit.xml`` (one test case per case x model x sample) and ``results.csv``."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import msgspec
import numpy as np

from harness.report._load import LoadedRun
from harness.report._scan import RowFile, decode_row

__all__ = ["junit_parts", "render_junit", "write_csv", "write_junit"]

_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


_SPECIAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff<>&\"'\n\r\t]")


def _x(text: Any) -> str:
    return escape(_BAD_XML.sub("?", str(text)))


def _a(text: Any) -> str:
    s = str(text)
    if _SPECIAL.search(s) is None:  # the common case (plain ids): no escaping work
        return f'"{s}"'
    return quoteattr(_BAD_XML.sub("?", s))


def _testcase(row: Any, classname: str) -> str:
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


def _bodies(rows: list[Any], which: list[int]) -> list[str]:
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
    """The run as JUnit XML: one <testsuite> per model, one <testcase> per row."""
    return "".join(junit_parts(run))


def write_junit(run: LoadedRun, path: Path) -> None:
    """``render_junit`` written to ``path`` one testsuite at a time (never the whole text)."""
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for part in junit_parts(run):
            out.write(part)


_JUNIT_BLOCK = 20_000
"""Rows of a model's <testsuite> made at a time (the failing ones read back from the file)."""


def junit_parts(run: LoadedRun) -> Iterator[str]:
    """The text of ``render_junit`` in pieces: the head, each model's <testsuite> in blocks
    of ``_JUNIT_BLOCK`` rows, the tail.

    Every row of a model is first written as a passing <testcase> from the run's columns;
    those that did not pass (and the few whose latency is not a number) are then read back
    from results.jsonl for their failure or error. The ids are escaped once per distinct
    case and model, not once per row.
    """
    f = run.frame
    codes, models = run.model_codes  # models in order of first row
    plain = _plain(f["case"].unique()) and _plain(models)
    status = f["status"].to_numpy()
    passed = status == "pass"
    cases = f["case"].to_numpy()
    samples = f["sample"].to_numpy()
    latency = f["latency_ms"].to_numpy()
    unread = np.isnan(latency)  # None or NaN: the row itself says which
    by_model = np.argsort(codes, kind="stable")
    bounds = np.cumsum(np.bincount(codes, minlength=len(models))).tolist()
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield f"<testsuites name={_a('planeval ' + run.suite)}>\n"
    for m, model in enumerate(models):
        mine = by_model[bounds[m - 1] if m else 0 : bounds[m]]
        classname = _a(run.suite + "." + model)
        states = status[mine]
        failures = int(np.isin(states, ("fail", "unparseable")).sum())
        errors = int(np.isin(states, ("missing", "stale", "error")).sum())
        yield (
            f'<testsuite name={classname} tests="{len(mine)}" '
            f'failures="{failures}" errors="{errors}" skipped="0">\n'
        )
        for start in range(0, len(mine), _JUNIT_BLOCK):
            part = mine[start : start + _JUNIT_BLOCK]
            texts = _testcases(
                classname,
                model,
                plain,
                cases[part].tolist(),
                samples[part].tolist(),
                latency[part].tolist(),
            )
            read = np.flatnonzero(~passed[part] | unread[part]).tolist()
            rows = _read_failed(run, part[read].tolist())
            for k, row in zip(read, rows, strict=True):
                if unread[part[k]]:
                    texts[k] = _testcase(row, classname)
            failed = [j for j, k in enumerate(read) if not passed[part[k]]]
            for j, body in zip(failed, _bodies(rows, failed), strict=True):
                k = read[j]
                texts[k] = f"{texts[k][:-2]}>{body}</testcase>"
            yield "\n".join(texts) + "\n"
        yield "</testsuite>\n"
    yield "</testsuites>\n"


class _Failed(msgspec.Struct, gc=False):
    """What a <testcase> reads of a row beyond the run's columns."""

    case: str
    model: str
    sample: int
    status: str
    violations: list[Any] | None = None
    latency_ms: int | float | None = None
    detail: Any = None


_FAILED_DECODER = msgspec.json.Decoder(_Failed)


def _read_failed(run: LoadedRun, indices: list[int]) -> list[Any]:
    """The rows at ``indices`` (read back from results.jsonl: only what a <testcase> shows)."""
    if not isinstance(run.rows, RowFile):
        return run.take(indices)
    lines = run.rows.lines(indices)
    try:
        return _FAILED_DECODER.decode_lines(b"\n".join(lines))
    except msgspec.DecodeError:  # a row only the stdlib reads (NaN, bytes not UTF-8)
        return list(map(decode_row, lines))


def _testcases(
    classname: str,
    model: str,
    plain: bool,
    cases: list[str],
    samples: list[int],
    latency: list[float],
) -> list[str]:
    """The <testcase> of each row as for a passing row, from the run's columns (a latency
    that is not a number is replaced by the caller from the row)."""
    if plain:
        return [
            f'<testcase classname={classname} name="{c}[{model}-s{k}]" time="{ms / 1000:.3f}"/>'
            for c, k, ms in zip(cases, samples, latency, strict=True)
        ]
    return [
        f'<testcase classname={classname} name={_a(f"{c}[{model}-s{k}]")} time="{ms / 1000:.3f}"/>'
        for c, k, ms in zip(cases, samples, latency, strict=True)
    ]


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


def _joined(run: LoadedRun, outcome: str) -> list[str]:
    """Per distinct check set of the run, ``a;b``: its checks with this outcome."""
    sets = run.check_sets
    return [
        ";".join([k for k, v in zip(names, outcomes, strict=True) if v == outcome])
        for names, outcomes in zip(sets.names, sets.outcomes, strict=True)
    ]


_BLOCK = 20_000
"""Rows of results.csv made and written at a time (memory is reused from block to block)."""


class _CsvRow(msgspec.Struct, gc=False):
    """What results.csv reads of a row beyond the run's columns."""

    violations: list[Any] | None = None
    task_count: int | None = None
    tags: Any = None
    detail: Any = None
    recording: Any = None


_CSV_DECODER = msgspec.json.Decoder(_CsvRow)


def _csv_rows(lines: list[bytes]) -> list[Any]:
    try:
        return _CSV_DECODER.decode_lines(b"\n".join(lines))
    except msgspec.DecodeError:  # a row only the stdlib reads (NaN, bytes not UTF-8)
        return [decode_row(line) for line in lines]


def write_csv(run: LoadedRun, path: Path) -> None:
    """One line per result row: ids, status, failed checks, counts, latency, tokens, detail.

    The lines are joined here, column by column, with the stdlib csv writer's rules
    (``csv.writer`` defaults: comma, minimal quoting, ``\\r\\n``); a cell that needs quoting is
    quoted by that writer. (pandas' to_csv took seconds on a 200,000-row run, and the csv
    writer over every cell a second.) ``_BLOCK`` rows at a time, read back from results.jsonl
    in one pass.
    """
    f = run.frame
    sets = run.check_sets.ids
    failed, warned = _joined(run, "fail"), _joined(run, "warn")
    ids = {name: f[name].to_numpy() for name in ("suite", "case", "model", "sample", "status")}
    numbers = {name: f[name].to_numpy() for name in ("latency_ms", "tokens_in", "tokens_out")}
    blocks = run.rows.blocks(_BLOCK) if isinstance(run.rows, RowFile) else None
    with path.open("w", encoding="utf-8", newline="") as out:
        for start in range(0, len(f), _BLOCK):
            block = slice(start, start + _BLOCK)
            part = _csv_rows(next(blocks)) if blocks is not None else run.rows[block]
            which = sets[block].tolist()
            columns: dict[str, list[Any]] = {
                **{name: values[block].tolist() for name, values in ids.items()},
                "failed_checks": [failed[i] for i in which],
                "warned_checks": [warned[i] for i in which],
                "violations": [len(r.violations or ()) for r in part],
                "task_count": ["" if r.task_count is None else r.task_count for r in part],
                "latency_ms": ["" if x != x else x for x in numbers["latency_ms"][block].tolist()],
                "tokens_input": _ints(numbers["tokens_in"][block]),
                "tokens_output": _ints(numbers["tokens_out"][block]),
                "tags": [";".join(map(str, r.tags or ())) for r in part],
                "detail": [r.detail or "" for r in part],
                "recording": [r.recording or "" for r in part],
            }
            if start == 0:
                out.write(",".join(_column(list(columns))) + "\r\n")
            cells = [_column(c) for c in columns.values()]
            out.write("\r\n".join(map(",".join, zip(*cells, strict=True))))
            out.write("\r\n")


def _ints(values: Any) -> list[Any]:
    """Counts read as floats (NaN: none) as the ints the csv shows ("" for none)."""
    return ["" if x != x else int(x) for x in values.tolist()]
