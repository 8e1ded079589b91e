"""The baseline file (``reports/baseline.json``): per-model, per-case pass counts of a reference
run, committed so that ``planeval gate`` can tell a drop or a new failure.

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
from harness.report import LoadedRun, summarize
from harness.schemas import load_schema

__all__ = [
    "BASELINE_FORMAT",
    "BASELINE_VERSION",
    "Baseline",
    "baseline_from_run",
    "default_baseline_path",
    "load_baseline",
    "write_baseline",
]

BASELINE_FORMAT = "planeval-baseline"
BASELINE_VERSION = 1


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


def default_baseline_path(run_dir: Path | None = None) -> Path:
    """``<project>/reports/baseline.json`` for a run under ``<project>/reports/runs/``, else
    ``reports/baseline.json`` in the working directory."""
    if run_dir is not None:
        d = run_dir.resolve()
        if d.parent.name == "runs" and d.parent.parent.name == "reports":
            return d.parent.parent / "baseline.json"
    return Path("reports") / "baseline.json"


def baseline_from_run(run: LoadedRun) -> dict[str, Any]:
    """The baseline document for a run."""
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


def write_baseline(run: LoadedRun, path: Path) -> dict[str, Any]:
    """Write the baseline of ``run`` to ``path`` atomically; returns the document."""
    doc = baseline_from_run(run)
    atomic_write_text(path, json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return doc


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
