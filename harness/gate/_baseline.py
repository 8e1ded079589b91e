"""Writing baseline files from a run (``planeval baseline``). Reading them, and the
``Baseline`` type, live in ``harness.baseline`` (below both ``harness.report`` and this
package); they are re-exported here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness._atomic import atomic_write_text
from harness._errors import RunFormatError
from harness._format import format_rate
from harness.baseline import (
    BASELINE_FORMAT,
    BASELINE_VERSION,
    BASELINES_DIR,
    Baseline,
    baseline_path,
    default_baseline_path,
    load_baseline,
    reports_folder,
)
from harness.report import LoadedRun, summarize

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
