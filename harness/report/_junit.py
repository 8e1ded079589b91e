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


_BLOCK = 50_000
"""Rows of results.csv made and written at a time (memory is reused from block to block)."""


class _CsvRest(msgspec.Struct, gc=False):
    """What results.csv reads of a row beyond the run's columns (the violations only
    counted, never decoded)."""

    violations: list[msgspec.Raw] | None = None
    recording: Any = None


_CSV_DECODER = msgspec.json.Decoder(_CsvRest)


def _csv_rest(run: LoadedRun, first: int, stop: int, text: bytes) -> list[Any]:
    """The rows ``first`` to ``stop`` of a span of results.jsonl, as ``_CsvRest`` (or ``Row``)."""
    try:
        rows = _CSV_DECODER.decode_lines(text)
        if len(rows) == stop - first:
            return rows
    except msgspec.DecodeError:  # a row only the stdlib reads (NaN, bytes not UTF-8)
        pass
    assert isinstance(run.rows, RowFile)
    return [_one_csv_rest(line) for line in run.rows.split(first, stop, text)]


def _one_csv_rest(line: bytes) -> Any:
    try:
        return _CSV_DECODER.decode(line)
    except msgspec.DecodeError:
        return decode_row(line)


def _nan_to_blank(cells: list[str], missing: np.ndarray) -> list[str]:
    """``cells`` with "" where ``missing`` (a bool array) is true."""
    for i in np.flatnonzero(missing).tolist():
        cells[i] = ""
    return cells


def _count_cells(values: np.ndarray) -> list[str]:
    """Counts read as floats (NaN: none) as the ints the csv shows ("" for none)."""
    missing = np.isnan(values)
    present = values[~missing]
    if len(present) and not np.all(np.abs(present) < 2.0**62):  # huge, or infinite: as before
        return ["" if x != x else str(int(x)) for x in values.tolist()]
    whole = np.where(missing, 0, values).astype(np.int64)
    return _nan_to_blank(list(map(str, whole.tolist())), missing)


def write_csv(run: LoadedRun, path: Path) -> None:
    """One line per result row: ids, status, failed checks, counts, latency, tokens, detail.

    The lines are joined here, column by column, with the stdlib csv writer's rules
    (``csv.writer`` defaults: comma, minimal quoting, ``\\r\\n``); a cell that needs quoting is
    quoted by that writer. (pandas' to_csv took seconds on a 200,000-row run, and the csv
    writer over every cell a second.) Cells come from the run's columns (checks, tags and
    details once per distinct value); the violation count and the recording are read in one
    pass over results.jsonl, ``_BLOCK`` rows at a time, by a decoder that skips the rest.
    """
    f = run.frame
    scanned = run.scanned
    if scanned is None or not isinstance(run.rows, RowFile):
        raise TypeError("write_csv needs a run read by load_run")
    sets = run.check_sets.ids
    failed, warned = _column(_joined(run, "fail")), _column(_joined(run, "warn"))
    tags = _column([";".join(map(str, t or ())) for t in scanned.tag_values])
    tag_ids = scanned.tag_ids
    details = scanned.details
    detail_rows = np.fromiter(details, dtype=np.int64, count=len(details))
    ids = [f[name].to_numpy() for name in ("suite", "case", "model")]
    samples, status = f["sample"].to_numpy(), f["status"].to_numpy()
    task_count = f["task_count"]
    no_tasks = task_count.isna().to_numpy()
    tasks = task_count.to_numpy(dtype=np.int64, na_value=0)
    latency = f["latency_ms"].to_numpy()
    no_latency = np.isnan(latency)
    tokens_in, tokens_out = f["tokens_in"].to_numpy(), f["tokens_out"].to_numpy()
    header = [
        "suite",
        "case",
        "model",
        "sample",
        "status",
        "failed_checks",
        "warned_checks",
        "violations",
        "task_count",
        "latency_ms",
        "tokens_input",
        "tokens_output",
        "tags",
        "detail",
        "recording",
    ]
    width = len(header)
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(",".join(_column(header)) + "\r\n")
        for first, stop, text in run.rows.spans(_BLOCK):
            rest = _csv_rest(run, first, stop, text)
            block = slice(first, stop)
            which = sets[block].tolist()
            detail = [""] * (stop - first)
            lo, hi = np.searchsorted(detail_rows, (first, stop)).tolist()
            for i in detail_rows[lo:hi].tolist():
                detail[i - first] = details[i] or ""
            columns: list[list[str]] = [
                *(_column(values[block].tolist()) for values in ids),
                list(map(str, samples[block].tolist())),
                _column(status[block].tolist()),
                [failed[i] for i in which],
                [warned[i] for i in which],
                [str(len(r.violations or ())) for r in rest],
                _nan_to_blank(list(map(str, tasks[block].tolist())), no_tasks[block]),
                _nan_to_blank(list(map(str, latency[block].tolist())), no_latency[block]),
                _count_cells(tokens_in[block]),
                _count_cells(tokens_out[block]),
                [tags[i] for i in tag_ids[block].tolist()],
                _column(detail),
                _column([r.recording or "" for r in rest]),
            ]
            # Every cell followed by its separator, made by slice assignment (no per-row join).
            line = [None, ","] * (width - 1) + [None, "\r\n"]
            flat: list[Any] = line * (stop - first)
            for k, cells in enumerate(columns):
                flat[2 * k :: 2 * width] = cells
            out.write("".join(flat))
