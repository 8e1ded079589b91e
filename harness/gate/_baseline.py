"""Baseline files (``reports/baselines/<suite>.json``, one per suite): per-model, per-case pass
counts of a reference run, committed so that ``planeval gate`` can tell a drop or a new
failure.

The format is versioned (``format_version``) and described by
``harness/schemas/baseline.schema.json``; readers refuse versions they do not know.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness._atomic import atomic_write_text
from harness._errors import RunFormatError
from harness._format import format_rate
from harness.report import LoadedRun, summarize
from harness.schemas import load_schema

__all__ = [
    "BASELINES_DIR",
    "BASELINE_FORMAT",
    "BASELINE_VERSION",
    "Baseline",
    "WrittenBaseline",
    "baseline_from_run",
    "baseline_path",
    "default_baseline_path",
    "load_baseline",
    "replaceable",
    "reports_folder",
    "write_baseline",
]

BASELINE_FORMAT = "planeval-baseline"
BASELINE_VERSION = 1
BASELINES_DIR = "baselines"
"""The folder of baselines, one ``<suite>.json`` each, under the project's ``reports/``."""


@dataclass(frozen=True)
class Baseline:
    """A baseline read from disk."""

    path: str
    """Where it was read from."""
    data: dict[str, Any]
    """The validated document (see the JSON Schema)."""

    @property
    def suite(self) -> str:
        """The suite of the run it was made from."""
        return str(self.data["suite"])

    def cases(self, model: str) -> dict[str, tuple[int, int]]:
        """Case id -> (passed, counted) for a model (empty when the model is not in it)."""
        m = self.data["models"].get(model)
        return {} if m is None else {c: (int(v[0]), int(v[1])) for c, v in m["cases"].items()}

    @property
    def models(self) -> list[str]:
        """The model ids it holds."""
        return list(self.data["models"])


def reports_folder(run_dir: Path | None = None) -> Path:
    """``<project>/reports`` for a run anywhere under ``<project>/reports/runs/`` (also
    ``runs/<dir>/<suite>/`` of a run over several suites), else ``reports`` in the working
    directory."""
    if run_dir is not None:
        for folder in run_dir.resolve().parents:
            if folder.name == "runs" and folder.parent.name == "reports":
                return folder.parent
    return Path("reports")


def default_baseline_path(suite: str, run_dir: Path | None = None) -> Path:
    """Where the baseline of ``suite`` lives: ``<reports>/baselines/<suite>.json`` (see
    ``reports_folder``)."""
    return reports_folder(run_dir) / BASELINES_DIR / f"{suite}.json"


def baseline_path(suite: str, given: Path | None, run_dir: Path | None = None) -> Path:
    """The baseline file of ``suite``: ``given`` when it is a file path, ``given/<suite>.json``
    when it is a folder, else the default (``default_baseline_path``)."""
    if given is None:
        return default_baseline_path(suite, run_dir)
    if given.is_dir() or given.suffix.lower() != ".json":
        return given / f"{suite}.json"
    return given


def baseline_from_run(run: LoadedRun) -> dict[str, Any]:
    """The baseline document for a run.

    Raises:
        IncompleteRunError: the run was interrupted or lacks rows.
    """
    from harness.gate._complete import require_complete

    require_complete(run, what="baseline")
    s = summarize(run)
    models: dict[str, Any] = {}
    for model, r in s.models.iterrows():
        cases = s.cases.xs(model, level="model")
        cases = cases[cases["counted"] > 0]
        models[str(model)] = {
            "passed": int(r["passed"]),
            "counted": int(r["counted"]),
            "pass_rate": round(float(r["rate"]), 6) if r["counted"] else None,
            "cases": {
                str(c): [int(p), int(n)]
                for c, p, n in zip(cases.index, cases["passed"], cases["counted"], strict=True)
            },
        }
    m = run.manifest
    return {
        "format": BASELINE_FORMAT,
        "format_version": BASELINE_VERSION,
        "suite": m.suite,
        "run_id": m.run_id,
        "prompt_hash": m.prompt_hash,
        "harness_version": m.harness_version,
        "git_commit": m.git_commit,
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "samples": max(1, int(m.samples or 1)),
        "models": models,
    }


@dataclass(frozen=True, slots=True)
class WrittenBaseline:
    """What ``write_baseline`` wrote, and what it replaced."""

    path: Path
    """The file written."""
    document: dict[str, Any]
    """The baseline written."""
    replaced: dict[str, Any] | None
    """The baseline of the same suite that was at ``path`` before, or None."""

    def describe(self) -> str:
        """One line: what was written, and what it replaced (run, date, pass rates)."""
        doc = self.document
        cases = sum(len(m["cases"]) for m in doc["models"].values())
        line = (
            f"wrote {self.path}: suite {doc['suite']}, {len(doc['models'])} model(s), "
            f"{cases} case x model entries from run {doc['run_id']}"
        )
        old = self.replaced
        if old is None:
            return line
        rates = ", ".join(
            f"{model} {_rate(old['models'].get(model))} -> {_rate(m)}"
            for model, m in doc["models"].items()
        )
        return (
            f"{line}; it replaces the baseline of run {old.get('run_id')} "
            f"({old.get('created_at')}): {rates}"
        )


def _rate(model: dict[str, Any] | None) -> str:
    if model is None:
        return "(new model)"
    return format_rate(int(model["passed"]), int(model["counted"]))


def replaceable(path: Path, suite: str) -> dict[str, Any] | None:
    """The baseline at ``path`` that a new baseline of ``suite`` would replace (None when
    there is no file).

    Raises:
        RunFormatError: ``path`` holds something other than a baseline of ``suite``.
    """
    if not path.exists():
        return None
    try:
        old = load_baseline(path).data
    except RunFormatError as exc:
        raise RunFormatError(
            "refusing to replace a file that is not a readable baseline",
            source=str(path),
            hint="move it away or choose another --out",
        ) from exc
    if old["suite"] != suite:
        raise RunFormatError(
            f"refusing to replace the baseline of suite {old['suite']!r} with one of {suite!r}",
            source=str(path),
            hint=f"write it to {path.parent / (suite + '.json')} (the default)",
        )
    return old


def write_baseline(run: LoadedRun, path: Path) -> WrittenBaseline:
    """Write the baseline of ``run`` to ``path`` atomically.

    A file already at ``path`` is replaced only when it is a baseline of the same suite (the
    result says what it replaced); anything else there is refused.

    Raises:
        IncompleteRunError: the run was interrupted or lacks rows.
        RunFormatError: ``path`` holds something other than a baseline of this suite.
    """
    doc = baseline_from_run(run)
    replaced = replaceable(path, doc["suite"])
    atomic_write_text(path, json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return WrittenBaseline(path, doc, replaced)


def _schema() -> dict[str, Any]:
    return load_schema("baseline")


def load_baseline(path: str | Path) -> Baseline:
    """Read and validate a baseline file.

    Raises:
        RunFormatError: no file, not JSON, not a baseline, a format version this planeval does
            not read (older or newer), or a document that breaks the schema.
    """
    import jsonschema

    p = Path(path)
    hint = "write a new one with `planeval baseline RUN`"
    if not p.is_file():
        raise RunFormatError("no baseline file", source=str(p), hint=hint + " and commit it")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunFormatError(f"cannot read the baseline ({exc})", source=str(p), hint=hint) from exc
    if not isinstance(data, dict) or data.get("format") != BASELINE_FORMAT:
        raise RunFormatError(
            'not a planeval baseline (no "format": "planeval-baseline")',
            source=str(p),
            hint=hint,
        )
    version = data.get("format_version")
    if not isinstance(version, int) or version < BASELINE_VERSION:
        raise RunFormatError(
            f"baseline format version {version!r} is older than the one this planeval reads "
            f"({BASELINE_VERSION})",
            source=str(p),
            hint=hint,
        )
    if version > BASELINE_VERSION:
        raise RunFormatError(
            f"baseline format version {version} is newer than this planeval reads "
            f"({BASELINE_VERSION})",
            source=str(p),
            hint="upgrade planeval",
        )
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(_schema()).iter_errors(data)
    )
    if error is not None:
        pointer = "/" + "/".join(str(x) for x in error.absolute_path)
        raise RunFormatError(
            f"not a valid baseline: {error.message}", source=str(p), location=pointer, hint=hint
        )
    return Baseline(str(p), data)
