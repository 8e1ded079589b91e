"""Baseline files (``reports/baselines/<suite>.json``, one per suite): per-model, per-case pass
counts of a reference run, committed so that ``planeval gate`` can tell a drop or a new
failure, and ``planeval report --baseline`` can list new regressions first.

Reading them lives here, below both ``harness.report`` and ``harness.gate`` (which writes them:
``harness.gate.write_baseline``), so neither imports the other for it.

The format is versioned (``format_version``) and described by
``harness/schemas/baseline.schema.json``; readers refuse versions they do not know.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._errors import RunFormatError
from harness._json import loads
from harness.schemas import load_schema

__all__ = [
    "BASELINES_DIR",
    "BASELINE_FORMAT",
    "BASELINE_VERSION",
    "Baseline",
    "baseline_path",
    "default_baseline_path",
    "load_baseline",
    "reports_folder",
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
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RunFormatError(
            f"cannot read the baseline ({exc})", source=str(p), hint=hint
        ) from None
    data = loads(text, source=str(p), what="the baseline", error=RunFormatError)
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
