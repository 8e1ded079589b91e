"""Reading a run folder (``run.json`` + ``results.jsonl``) into a ``LoadedRun``.

A killed run leaves a torn last line: it is reported (``LoadedRun.torn_line``) and the rest
is used. A damaged line anywhere else, an unknown format version, a missing file or a run
with no rows is refused with one ``RunFormatError``.
"""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING, Any

import msgspec
import pandas as pd

from harness._errors import RunFormatError
from harness._json import json_problem, loads
from harness.report._columns import ROW_FIELDS
from harness.report._rows import (
    ROW_DECODER,
    CheckSets,
    Row,
    number_checks,
    row_from_dict,
    share_checks,
)
from harness.run import COUNTED_STATUSES, FORMAT_VERSION, PROMPTS_FILE, STATUSES, RunManifest

if TYPE_CHECKING:
    from harness.cost import UsageSummary

__all__ = ["LoadedRun", "load_run", "read_prompts", "resolve_run_dir"]

_REQUIRED = ("suite", "case", "model", "sample", "status")


@dataclass(frozen=True)
class LoadedRun:
    """A run read from disk, ready to aggregate."""

    run_dir: Path
    """The run folder."""
    manifest: RunManifest
    """What run.json says."""
    rows: list[Row]
    """Every results.jsonl object, in file order (the torn last line excluded), as a ``Row``
    (``row.status`` or ``row["status"]``)."""
    frame: pd.DataFrame
    """One row per result: suite, case, model, sample, status, task_count, the numeric
    ``ROW_FIELDS`` (latency_ms, tokens_in, tokens_out, ...), counted (bool), passed (bool),
    parsed (bool)."""
    check_sets: CheckSets
    """The distinct check outcomes of the rows and which one each row has."""
    torn_line: int | None = None
    """1-based number of a torn last line that was left out, or None."""

    @property
    def suite(self) -> str:
        """The suite name."""
        return self.manifest.suite

    @cached_property
    def usage(self) -> tuple[list[UsageSummary], UsageSummary]:
        """Tokens and cost per model and in total at the run's prices
        (``harness.cost.summarize_usage``), summed once however many files show them."""
        from harness.cost import run_prices, summarize_usage

        return summarize_usage(self.rows, run_prices(self.manifest))

    @property
    def warnings(self) -> list[str]:
        """Things a reader should know about the input (one line each)."""
        out: list[str] = []
        if self.torn_line is not None:
            out.append(
                f"{self.run_dir / 'results.jsonl'}: line {self.torn_line} is torn (the run was "
                "probably killed while writing it); it was left out and the rest used"
            )
        if self.manifest.interrupted or self.manifest.finished_at is None:
            out.append(f"{self.run_dir}: the run did not finish; results may be incomplete")
        return out


def resolve_run_dir(path: str | Path) -> Path:
    """The run folder for ``path`` (a run folder, its run.json or its results.jsonl)."""
    p = Path(path)
    if p.is_file() and p.name in ("run.json", "results.jsonl"):
        p = p.parent
    if not p.exists():
        raise RunFormatError(
            "no such run folder", source=str(p), hint="give a folder under reports/runs/"
        )
    if not p.is_dir():
        raise RunFormatError(
            "not a run folder", source=str(p), hint="give the folder holding run.json"
        )
    return p


def _read_manifest(run_dir: Path) -> RunManifest:
    path = run_dir / "run.json"
    if not path.is_file():
        raise RunFormatError(
            "run.json is missing: this is not a run folder",
            source=str(run_dir),
            hint="give a folder written by `planeval run`",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RunFormatError(f"cannot read run.json ({exc})", source=str(path)) from None
    data = loads(text, source=str(path), error=RunFormatError)
    if not isinstance(data, dict):
        raise RunFormatError("run.json is not a JSON object", source=str(path))
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise RunFormatError(
            f"run format version {version!r} is not one this planeval reads ({FORMAT_VERSION})",
            source=str(path),
            hint="use the planeval version that wrote the run, or re-run the suite",
        )
    missing = [k for k in ("run_id", "suite") if not isinstance(data.get(k), str)]
    if missing:
        raise RunFormatError(f"run.json lacks {', '.join(missing)}", source=str(path))
    defaults: dict[str, Any] = {
        "suite_path": "",
        "prompt_hash": "",
        "models": [],
        "samples": 1,
        "record_mode": "none",
        "harness_version": "",
        "git_commit": None,
        "started_at": "",
        "finished_at": None,
        "counts": {},
    }
    try:
        return RunManifest.from_dict({**defaults, **data})
    except TypeError as exc:  # pragma: no cover - from_dict filters unknown keys
        raise RunFormatError(f"run.json is malformed ({exc})", source=str(path)) from exc


def _parse_lines(path: Path) -> tuple[list[Row], CheckSets, int | None]:
    """The rows of results.jsonl, their check outcomes (``CheckSets``) and the number of a
    torn last line (or None).

    The fast path decodes each line straight into a ``Row`` (msgspec, field types checked as
    it goes; blank lines are skipped). Anything it refuses (a damaged or torn line, a wrong
    type, NaN, an unknown status) sends the whole file down the careful path, which says
    exactly what is wrong and where, or reads what the fast path could not.
    """
    try:
        # The whole file at once, decoded in C: the rows' raw plan and check texts point into
        # it, so it stays in memory either way (reading it in slices copied it twice more).
        rows: list[Row] = ROW_DECODER.decode_lines(path.read_bytes())
        # every status known: Row.status is a Literal msgspec checks
        return rows, share_checks(rows), None
    except (msgspec.DecodeError, OSError):
        pass
    rows, torn = _parse_lines_carefully(path)
    return rows, number_checks(rows), torn


def _parse_lines_carefully(path: Path) -> tuple[list[Row], int | None]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RunFormatError(f"cannot read results.jsonl ({exc})", source=str(path)) from exc
    lines = text.split("\n")
    numbered = [(i + 1, line) for i, line in enumerate(lines) if line.strip()]
    if not numbered:
        return [], None
    dicts, torn = [], None
    for k, (number, line) in enumerate(numbered):
        try:
            dicts.append(json.loads(line))
        except (ValueError, RecursionError) as exc:
            if k == len(numbered) - 1 and not text.endswith("\n"):
                torn = number
                break
            raise RunFormatError(
                f"damaged line ({json_problem(exc, 'the line')[0]})",
                source=str(path),
                location=f"line {number}",
                hint="only a torn last line is tolerated; repair or re-run",
            ) from exc
    for k, row in enumerate(dicts):
        if not isinstance(row, dict) or any(key not in row for key in _REQUIRED):
            raise RunFormatError(
                f"a result row needs {', '.join(_REQUIRED)}",
                source=str(path),
                location=f"line {numbered[k][0]}",
            )
        if row["status"] not in STATUSES:
            raise RunFormatError(
                f"unknown status {row['status']!r} (expected one of {', '.join(STATUSES)})",
                source=str(path),
                location=f"line {numbered[k][0]}",
            )
        wrong = _wrong_type(row)
        if wrong:
            raise RunFormatError(wrong, source=str(path), location=f"line {numbered[k][0]}")
    return [row_from_dict(row) for row in dicts], torn


_TYPES: dict[str, tuple[type, ...]] = {
    "suite": (str,),
    "case": (str,),
    "model": (str,),
    "sample": (int,),
    "checks": (dict, type(None)),
    "task_count": (int, type(None)),
    "latency_ms": (int, float, type(None)),
    "tokens": (dict, type(None)),
    "violations": (list, type(None)),
}


def _wrong_type(row: dict[str, Any]) -> str | None:
    """What is wrong with a row's field types (the results-row schema's), or None."""
    for name, types in _TYPES.items():
        value = row.get(name)
        if name in row and (isinstance(value, bool) or not isinstance(value, types)):
            return f"the row's {name!r} is a {type(value).__name__}, not a {types[0].__name__}"
    checks = row.get("checks") or {}
    if not all(isinstance(v, str) for v in checks.values()):
        return "the row's 'checks' must map check ids to outcomes (strings)"
    tokens = row.get("tokens") or {}
    if any(isinstance(v, bool) or not isinstance(v, int | float | None) for v in tokens.values()):
        return "the row's 'tokens' must map names to numbers"
    return None


def _frame(rows: list[Row]) -> pd.DataFrame:
    def ids(name: str) -> list[str]:
        # Interned: each id is then one string object, which pandas groups by far faster.
        return list(map(intern, map(attrgetter(name), rows)))

    numbers = {
        name: values[:, i]
        for names, read in ROW_FIELDS.items()
        for values in (read(rows),)
        for i, name in enumerate(names)
    }
    frame = pd.DataFrame(
        {
            "suite": ids("suite"),
            "case": ids("case"),
            "model": ids("model"),
            "sample": list(map(attrgetter("sample"), rows)),
            "status": ids("status"),
            "task_count": pd.array(list(map(attrgetter("task_count"), rows)), dtype="Int64"),
            **numbers,
        }
    )
    frame["counted"] = frame["status"].isin(COUNTED_STATUSES)
    frame["passed"] = frame["status"] == "pass"
    frame["parsed"] = frame["status"].isin(("pass", "fail"))
    return frame


def load_run(path: str | Path) -> LoadedRun:
    """Read a run folder.

    Args:
        path: the run folder (or its run.json / results.jsonl).

    Raises:
        RunFormatError: no run.json, an unknown format version, a damaged line other than a
            torn last one, or a run with no result rows.
    """
    run_dir = resolve_run_dir(path)
    manifest = _read_manifest(run_dir)
    results = run_dir / "results.jsonl"
    if not results.is_file():
        raise RunFormatError(
            "results.jsonl is missing", source=str(run_dir), hint="the run wrote no results"
        )
    # A big run is hundreds of thousands of small containers (each row's checks, tokens,
    # violations); without this the cyclic garbage collector walks them again and again while
    # they are made (it doubles the decoding time of a 200,000-row run). They hold no cycles,
    # so moving them out of its sight loses nothing.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        rows, check_sets, torn = _parse_lines(results)
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
    if not rows:
        raise RunFormatError(
            "the run is empty (results.jsonl has no result rows)",
            source=str(results),
            hint="run the suite again; nothing can be reported from an empty run",
        )
    suites = {r.suite for r in rows}
    if suites != {manifest.suite}:
        other = sorted(suites - {manifest.suite})
        raise RunFormatError(
            f"results.jsonl holds rows of suite(s) {', '.join(map(repr, other))} but run.json "
            f"says {manifest.suite!r}",
            source=str(results),
        )
    return LoadedRun(run_dir, manifest, rows, _frame(rows), check_sets, torn)


def read_prompts(run_dir: Path) -> dict[str, str]:
    """The run's ``{case id: rendered prompt}`` (empty for runs written before prompts.json,
    or when the file is unreadable: the report then shows no prompt, nothing else changes)."""
    try:
        data = json.loads((run_dir / PROMPTS_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str)}
