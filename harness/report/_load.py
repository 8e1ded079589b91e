"""Reading a run folder (``run.json`` + ``results.jsonl``) into a ``LoadedRun``.

A killed run leaves a torn last line: it is reported (``LoadedRun.torn_line``) and the rest
is used. A damaged line anywhere else, an unknown format version, a missing file or a run
with no rows is refused with one ``RunFormatError``.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from harness._errors import RunFormatError
from harness._json import loads
from harness.report._rows import CheckSets, Row
from harness.report._scan import RowFile, Scanned, scan_results
from harness.run import COUNTED_STATUSES, FORMAT_VERSION, PROMPTS_FILE, RunManifest

if TYPE_CHECKING:
    from harness.cost import UsageSummary

__all__ = ["LoadedRun", "load_run", "read_prompts", "resolve_run_dir"]


@dataclass(frozen=True)
class LoadedRun:
    """A run read from disk, ready to aggregate."""

    run_dir: Path
    """The run folder."""
    manifest: RunManifest
    """What run.json says."""
    rows: Sequence[Row]
    """Every results.jsonl object, in file order (the torn last line excluded), as a ``Row``
    (``row.status`` or ``row["status"]``): a ``RowFile``, which reads each row back from the
    file when asked (iterating reads the file again), so prefer the columns below."""
    frame: pd.DataFrame
    """One row per result: suite, case, model, sample, status, task_count, the numeric
    ``ROW_FIELDS`` (latency_ms, tokens_in, tokens_out, ...), counted (bool), passed (bool),
    parsed (bool)."""
    check_sets: CheckSets
    """The distinct check outcomes of the rows and which one each row has."""
    torn_line: int | None = None
    """1-based number of a torn last line that was left out, or None."""
    scanned: Scanned | None = field(default=None, repr=False, compare=False)
    """The columns read with the rows (tags, details, metric statuses, usage); None: they
    are read from ``rows``."""

    @property
    def suite(self) -> str:
        """The suite name."""
        return self.manifest.suite

    @cached_property
    def usage(self) -> tuple[list[UsageSummary], UsageSummary]:
        """Tokens and cost per model and in total at the run's prices
        (``harness.cost.summarize_usage``), summed once however many files show them."""
        if self.scanned is not None:
            return self.scanned.usage
        from harness.cost import run_prices, summarize_usage

        return summarize_usage(self.rows, run_prices(self.manifest))

    @cached_property
    def case_codes(self) -> tuple[np.ndarray, pd.Index]:
        """``pd.factorize`` of the case ids (in order of first appearance), once per run."""
        codes, values = pd.factorize(self.frame["case"], sort=False)
        return codes, values

    @cached_property
    def model_codes(self) -> tuple[np.ndarray, pd.Index]:
        """``pd.factorize`` of the model ids (in order of first appearance), once per run."""
        codes, values = pd.factorize(self.frame["model"], sort=False)
        return codes, values

    def row_tags(self) -> list[Any]:
        """Each row's ``tags`` value, in file order (rows with equal tags share one value)."""
        if self.scanned is None:
            return [r.tags for r in self.rows]
        values = self.scanned.tag_values
        return [values[i] for i in self.scanned.tag_ids.tolist()]

    def details(self, indices: Sequence[int]) -> list[Any]:
        """The ``detail`` of the rows at ``indices``."""
        if self.scanned is None:
            return [self.rows[i].detail for i in indices]
        found = self.scanned.details
        return [found.get(i) for i in indices]

    def metric_rows(self) -> list[Row]:
        """The rows whose ``metric_status`` is ``scored`` or ``unparseable``, in file order."""
        if self.scanned is None:
            return [r for r in self.rows if r.metric_status in ("scored", "unparseable")]
        which = np.flatnonzero(self.scanned.metric_counted).tolist()
        rows = self.rows
        return rows.take(which) if isinstance(rows, RowFile) else [rows[i] for i in which]

    def take(self, indices: Sequence[int]) -> list[Row]:
        """The rows at ``indices``, in that order."""
        rows = self.rows
        return rows.take(indices) if isinstance(rows, RowFile) else [rows[i] for i in indices]

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


def _frame(scanned: Scanned) -> pd.DataFrame:
    """The frame of ``LoadedRun.frame`` from the scan's columns (ids one interned string
    each, which pandas groups by far faster)."""
    frame = pd.DataFrame(
        {
            **scanned.ids,
            "sample": scanned.sample,
            "task_count": pd.array(scanned.task_count, dtype="Int64"),
            **scanned.numbers,
        },
        columns=["suite", "case", "model", "sample", "status", "task_count", *scanned.numbers],
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
    from harness.cost import run_prices

    # The blocks' small containers (tokens dicts) hold no cycles: keep the cyclic garbage
    # collector from walking them again and again while they are made.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        scanned = scan_results(results, run_prices(manifest))
    finally:
        gc.freeze()  # what was made so far (the columns, shared texts) is never walked again
        if was_enabled:
            gc.enable()
    if not scanned.rows:
        raise RunFormatError(
            "the run is empty (results.jsonl has no result rows)",
            source=str(results),
            hint="run the suite again; nothing can be reported from an empty run",
        )
    suites = set(scanned.ids["suite"])
    if suites != {manifest.suite}:
        other = sorted(suites - {manifest.suite})
        raise RunFormatError(
            f"results.jsonl holds rows of suite(s) {', '.join(map(repr, other))} but run.json "
            f"says {manifest.suite!r}",
            source=str(results),
        )
    frame = _frame(scanned)
    scanned.drop_columns()  # now in the frame
    rows = RowFile(results, scanned.starts, scanned.ends)
    return LoadedRun(run_dir, manifest, rows, frame, scanned.check_sets, scanned.torn_line, scanned)


def read_prompts(run_dir: Path) -> Mapping[str, str]:
    """The run's ``{case id: rendered prompt}`` (empty for runs written before prompts.json,
    or when the file is unreadable: the report then shows no prompt, nothing else changes).

    A file in the layout ``planeval run`` writes (one entry a line) is indexed, not held: a
    prompt is read from disk when asked for (the report's detail asks for a few, up to its
    byte budget). With a tool list in every prompt, the whole document held at once was most
    of a 100,000-case report's memory (1.7 GiB). Any other layout is read whole."""
    path = run_dir / PROMPTS_FILE
    try:
        indexed = _PromptFile.open(path)
        if indexed is not None:
            return indexed
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str)}


class _PromptFile(Mapping[str, str]):
    """prompts.json as ``planeval run`` writes it (``{`` alone, then ``"id": "prompt"`` a line,
    then ``}``), indexed by case id: each entry's byte span, read and decoded on demand. The
    last entry of an id wins, as with ``json.loads``. An entry that does not decode to a
    string reads as absent."""

    def __init__(self, path: Path, spans: dict[str, tuple[int, int]]) -> None:
        self._path, self._spans = path, spans

    @classmethod
    def open(cls, path: Path) -> _PromptFile | None:
        """The index of ``path``, or None when it is not in the layout run writes."""
        decode_key = json.JSONDecoder().raw_decode
        spans: dict[str, tuple[int, int]] = {}
        with path.open("rb") as fh:
            if fh.readline() != b"{\n":
                return None
            offset = 2
            closed = False
            for line in fh:
                if closed:
                    return None  # text after the closing brace
                if line in (b"}\n", b"}"):
                    closed = True
                    continue
                entry = line.rstrip(b"\n")
                entry = entry[:-1] if entry.endswith(b",") else entry
                try:
                    text = entry.decode("utf-8")
                    key, end = decode_key(text)
                except ValueError:
                    return None
                if not isinstance(key, str) or not text.startswith(": ", end):
                    return None
                spans[key] = (offset, len(entry))
                offset += len(line)
        return cls(path, spans) if closed else None

    def __getitem__(self, case: str) -> str:
        start, size = self._spans[case]
        with self._path.open("rb") as fh:
            fh.seek(start)
            entry = fh.read(size)
        try:
            value = json.loads(b"{" + entry + b"}").get(case)
        except (UnicodeDecodeError, ValueError):
            raise KeyError(case) from None
        if not isinstance(value, str):
            raise KeyError(case)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)
