"""``junit.xml`` (one test case per case x model x sample) and ``results.csv``."""

from __future__ import annotations

import csv
import io
import re
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import msgspec
import numpy as np

from harness.report._load import LoadedRun
from harness.report._scan import RowFile, decode_row

__all__ = ["render_junit", "write_csv", "write_junit", "write_tables"]

_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def escape(text: str) -> str:
    """``xml.sax.saxutils.escape`` (``&``, ``<``, ``>``), written here: importing saxutils
    brings in urllib, http.client, email and ssl, about 40 ms of every report's start."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(text: str) -> str:
    """``xml.sax.saxutils.quoteattr``: the text escaped (line ends and tabs as character
    references) and quoted, with single quotes when it holds a double quote but no single."""
    text = escape(text).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in text:
        if "'" in text:
            return '"' + text.replace('"', "&quot;") + '"'
        return "'" + text + "'"
    return '"' + text + '"'


_SPECIAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff<>&\"'\n\r\t]")


def _x(text: Any) -> str:
    return escape(_BAD_XML.sub("?", str(text)))


def _a(text: Any) -> str:
    s = str(text)
    if _SPECIAL.search(s) is None:  # the common case (plain ids): no escaping work
        return f'"{s}"'
    return quoteattr(_BAD_XML.sub("?", s))


_NO_ERROR = {"check": "?", "message": "failed"}
_SEP = "\ue000"
"""Joins the texts escaped in one pass (a private-use character: not escaped, not replaced)."""


def _escape_all(texts: list[str]) -> list[str]:
    """``_x`` of each text, computed over their concatenation at once."""
    joined = _SEP.join(texts)
    if joined.count(_SEP) != len(texts) - 1:  # some text holds the separator itself
        return [_x(t) for t in texts]
    return escape(_BAD_XML.sub("?", joined)).split(_SEP)


def _attributes(texts: list[str]) -> list[str]:
    """``_a`` of each text: quoted at once when none needs escaping (the common case)."""
    joined = _SEP.join(texts)
    if _SPECIAL.search(joined) is None and joined.count(_SEP) == len(texts) - 1:
        return ['"' + t + '"' for t in texts]
    return [_a(t) for t in texts]


def _bodies(statuses: list[str], violations: list[Any], details: list[Any]) -> list[str]:
    """The <failure> or <error> element of each row that did not pass (its status, its
    violations, its detail)."""
    opens, messages, texts, closes = [], [], [], []
    for status, found, detail in zip(statuses, violations, details, strict=True):
        if status == "fail":
            errors, lines = [], []
            for v in found or ():
                get = v.get
                severity, task = get("severity", "error"), get("task")
                if severity == "error":
                    errors.append(v)
                    sev = ""
                else:
                    sev = f" ({severity})"
                where = f"{task}: " if task else ""
                lines.append(f"[{get('check')}{sev}] {where}{get('message')} ({get('path', '')})")
            first = errors[0] if errors else _NO_ERROR
            opens.append('<failure type="violations" message=')
            messages.append(
                f"{len(errors)} violation(s); first: [{first.get('check')}] {first.get('message')}"
            )
            texts.append("\n".join(lines))
            closes.append("</failure>")
        elif status == "unparseable":
            msg = str(detail or "no plan could be read from the answer")
            opens.append('<failure type="unparseable" message=')
            messages.append(msg)
            texts.append(msg)
            closes.append("</failure>")
        else:  # missing / stale / error are not plan failures: JUnit errors
            msg = str(detail or status)
            opens.append(f"<error type={_a(status)} message=")
            messages.append(msg)
            texts.append(msg)
            closes.append("</error>")
    return [
        o + m + ">" + t + c
        for o, m, t, c in zip(opens, _attributes(messages), _escape_all(texts), closes, strict=True)
    ]


def _plain(values: Any) -> bool:
    """No value needs escaping in an attribute (checked once per distinct id)."""
    return all(_SPECIAL.search(str(v)) is None for v in values)


def render_junit(run: LoadedRun) -> str:
    """The run as JUnit XML: one <testsuite> per model, one <testcase> per row."""
    out = io.BytesIO()
    _tables(run, junit=out)
    return out.getvalue().decode("utf-8")


def write_junit(run: LoadedRun, path: Path) -> None:
    """``render_junit`` written to ``path`` (a piece at a time, never the whole text)."""
    with path.open("wb") as out:
        _tables(run, junit=out, spill_dir=path.parent)


def write_csv(run: LoadedRun, path: Path) -> None:
    """One line per result row: ids, status, failed checks, counts, latency, tokens, detail.

    The lines are joined here, column by column, with the stdlib csv writer's rules
    (``csv.writer`` defaults: comma, minimal quoting, ``\\r\\n``); a cell that needs quoting is
    quoted by that writer. (pandas' to_csv took seconds on a 200,000-row run, and the csv
    writer over every cell a second.) Cells come from the run's columns (checks, tags and
    details once per distinct value); the violation count and the recording are read in one
    pass over results.jsonl (``_SPAN`` rows at a time).
    """
    with path.open("w", encoding="utf-8", newline="") as out:
        _tables(run, csv_out=out)


def write_tables(run: LoadedRun, junit_xml: Path, results_csv: Path) -> None:
    """``write_junit`` and ``write_csv`` in one pass over results.jsonl."""
    with (
        junit_xml.open("wb") as junit,
        results_csv.open("w", encoding="utf-8", newline="") as csv_out,
    ):
        _tables(run, junit=junit, csv_out=csv_out, spill_dir=junit_xml.parent)


_SPAN = 20_000
"""Rows of results.jsonl read back, and of the tables made, at a time."""


class _Rest(msgspec.Struct, gc=False):
    """What junit.xml and results.csv read of a row beyond the run's columns."""

    violations: list[Any] | None = None
    latency_ms: int | float | None = None
    recording: Any = None


_REST_DECODER = msgspec.json.Decoder(_Rest)


def _rest(rows: RowFile, first: int, stop: int, text: bytes) -> list[Any]:
    """Rows ``first`` to ``stop`` of a span of results.jsonl, as ``_Rest`` (or ``Row``)."""
    try:
        found = _REST_DECODER.decode_lines(text)
        if len(found) == stop - first:
            return found
    except msgspec.DecodeError:  # a row only the stdlib reads (NaN, bytes not UTF-8)
        pass
    return [_one_rest(line) for line in rows.split(first, stop, text)]


def _one_rest(line: bytes) -> Any:
    try:
        return _REST_DECODER.decode(line)
    except msgspec.DecodeError:
        return decode_row(line)


def _tables(
    run: LoadedRun,
    *,
    junit: BinaryIO | None = None,
    csv_out: TextIO | None = None,
    spill_dir: Path | None = None,
) -> None:
    """junit.xml and/or results.csv, made in one pass over results.jsonl, ``_SPAN`` rows at
    a time: the csv lines are written as they are made; each model's <testcase> elements
    are appended to a spill file (in the output's folder, unnamed) and copied into junit.xml
    model by model at the end, so no row is read twice and none is held."""
    if run.scanned is None or not isinstance(run.rows, RowFile):
        raise TypeError("the report's tables need a run read by load_run")
    cells = _CsvCells(run) if csv_out is not None else None
    cases = _JunitCases(run) if junit is not None else None
    if cells is not None and csv_out is not None:
        csv_out.write(cells.header)
    with tempfile.TemporaryFile(dir=spill_dir) as spill:
        for first, stop, text in run.rows.spans(_SPAN):
            rest = _rest(run.rows, first, stop, text)
            if cells is not None and csv_out is not None:
                csv_out.write(cells.lines(first, stop, rest))
            if cases is not None:
                cases.spill(first, stop, rest, spill)
        if cases is not None and junit is not None:
            cases.write(spill, junit)


class _JunitCases:
    """junit.xml made from the run's columns and each span's rows."""

    def __init__(self, run: LoadedRun) -> None:
        f = run.frame
        self.codes, models = run.model_codes  # models in order of first row
        self.models: list[str] = list(models)
        self.plain = _plain(f["case"].unique()) and _plain(self.models)
        self.suite = run.suite
        self.classnames = [_a(run.suite + "." + model) for model in self.models]
        self.status = f["status"].to_numpy()
        self.passed = self.status == "pass"
        self.cases = f["case"].to_numpy()
        self.samples = f["sample"].to_numpy()
        self.latency = f["latency_ms"].to_numpy()
        self.unread = np.isnan(self.latency)  # None or NaN: the row itself says which
        self.details = run.scanned.details if run.scanned is not None else {}
        self.segments: list[list[tuple[int, int]]] = [[] for _ in self.models]

    def spill(self, first: int, stop: int, rest: list[Any], spill: BinaryIO) -> None:
        """Append each model's <testcase> elements of rows ``first`` to ``stop`` to ``spill``
        (``rest``: those rows' ``_Rest``)."""
        codes = self.codes[first:stop]
        order = np.argsort(codes, kind="stable")
        bounds = np.cumsum(np.bincount(codes, minlength=len(self.models))).tolist()
        for m, model in enumerate(self.models):
            mine = order[bounds[m - 1] if m else 0 : bounds[m]]
            if not len(mine):
                continue
            rows = mine + first
            classname = self.classnames[m]
            texts = _testcases(
                classname,
                model,
                self.plain,
                self.cases[rows].tolist(),
                self.samples[rows].tolist(),
                self.latency[rows].tolist(),
            )
            for k in np.flatnonzero(self.unread[rows]).tolist():
                i = int(rows[k])
                name = f"{self.cases[i]}[{model}-s{self.samples[i]}]"
                seconds = (rest[i - first].latency_ms or 0) / 1000
                texts[k] = f'<testcase classname={classname} name={_a(name)} time="{seconds:.3f}"/>'
            failed = np.flatnonzero(~self.passed[rows]).tolist()
            which = rows[failed].tolist()
            bodies = _bodies(
                self.status[which].tolist(),
                [rest[i - first].violations for i in which],
                [self.details.get(i) for i in which],
            )
            for k, body in zip(failed, bodies, strict=True):
                texts[k] = f"{texts[k][:-2]}>{body}</testcase>"
            data = ("\n".join(texts) + "\n").encode("utf-8")
            self.segments[m].append((spill.tell(), len(data)))
            spill.write(data)

    def write(self, spill: BinaryIO, out: BinaryIO) -> None:
        """junit.xml: the head, each model's <testsuite> with its spilled elements, the tail."""
        out.write(b'<?xml version="1.0" encoding="UTF-8"?>\n')
        out.write(f"<testsuites name={_a('planeval ' + self.suite)}>\n".encode())
        for m, classname in enumerate(self.classnames):
            states = self.status[self.codes == m]
            failures = int(np.isin(states, ("fail", "unparseable")).sum())
            errors = int(np.isin(states, ("missing", "stale", "error")).sum())
            out.write(
                f'<testsuite name={classname} tests="{len(states)}" '
                f'failures="{failures}" errors="{errors}" skipped="0">\n'.encode()
            )
            for offset, length in self.segments[m]:
                spill.seek(offset)
                out.write(spill.read(length))
            out.write(b"</testsuite>\n")
        out.write(b"</testsuites>\n")


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


_HEADER = (
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
)


class _CsvCells:
    """results.csv lines made from the run's columns and each span's rows."""

    def __init__(self, run: LoadedRun) -> None:
        f = run.frame
        scanned = run.scanned
        assert scanned is not None  # checked by _tables
        self.header = ",".join(_column(list(_HEADER))) + "\r\n"
        self.sets = run.check_sets.ids
        self.failed = _column(_joined(run, "fail"))
        self.warned = _column(_joined(run, "warn"))
        self.tags = _column([";".join(map(str, t or ())) for t in scanned.tag_values])
        self.tag_ids = scanned.tag_ids
        self.details = scanned.details
        self.detail_rows = np.fromiter(self.details, dtype=np.int64, count=len(self.details))
        self.ids = [f[name].to_numpy() for name in ("suite", "case", "model")]
        self.samples, self.status = f["sample"].to_numpy(), f["status"].to_numpy()
        task_count = f["task_count"]
        self.no_tasks = task_count.isna().to_numpy()
        self.tasks = task_count.to_numpy(dtype=np.int64, na_value=0)
        self.latency = f["latency_ms"].to_numpy()
        self.no_latency = np.isnan(self.latency)
        self.tokens_in, self.tokens_out = f["tokens_in"].to_numpy(), f["tokens_out"].to_numpy()

    def lines(self, first: int, stop: int, rest: list[Any]) -> str:
        """The lines of rows ``first`` to ``stop`` (``rest``: those rows' ``_Rest``)."""
        block = slice(first, stop)
        which = self.sets[block].tolist()
        detail = [""] * (stop - first)
        lo, hi = np.searchsorted(self.detail_rows, (first, stop)).tolist()
        for i in self.detail_rows[lo:hi].tolist():
            detail[i - first] = self.details[i] or ""
        columns: list[list[str]] = [
            *(_column(values[block].tolist()) for values in self.ids),
            list(map(str, self.samples[block].tolist())),
            _column(self.status[block].tolist()),
            [self.failed[i] for i in which],
            [self.warned[i] for i in which],
            [str(len(r.violations or ())) for r in rest],
            _nan_to_blank(list(map(str, self.tasks[block].tolist())), self.no_tasks[block]),
            _nan_to_blank(list(map(str, self.latency[block].tolist())), self.no_latency[block]),
            _count_cells(self.tokens_in[block]),
            _count_cells(self.tokens_out[block]),
            [self.tags[i] for i in self.tag_ids[block].tolist()],
            _column(detail),
            _column([r.recording or "" for r in rest]),
        ]
        # Every cell followed by its separator, made by slice assignment (no per-row join).
        width = len(columns)
        flat: list[Any] = ([None, ","] * (width - 1) + [None, "\r\n"]) * (stop - first)
        for k, cells in enumerate(columns):
            flat[2 * k :: 2 * width] = cells
        return "".join(flat)
