"""What to tell a user about missing or stale recordings."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.run import RunManifest

__all__ = ["rerecord_command_of", "rerecord_hint"]


def rerecord_command_of(
    manifest: RunManifest, models: Iterable[str], run_dir: Path | None = None
) -> str | None:
    """``harness.run.rerecord_command`` for a run read from disk: the suite's default samples
    come from its suite file when the run lives in its project (so the command is the one
    ``planeval run`` printed)."""
    from harness.run._finish import rerecord_command, suite_file

    samples = None
    path = suite_file(manifest, run_dir) if run_dir is not None else None
    if path is not None:
        from harness._errors import InputError
        from harness.suite import load_suite

        try:
            samples = load_suite(path).samples
        except InputError:
            samples = None
    return rerecord_command(manifest, models, suite_samples=samples)


def rerecord_hint(manifest: RunManifest, models: Iterable[str], run_dir: Path | None = None) -> str:
    """How to fill the gaps of ``models``: the re-record command ``planeval run`` prints,
    unless they are dataset models (recordings imported from data cannot be re-recorded)."""
    providers = {str(m.get("id")): m.get("provider") for m in manifest.models}
    wanted = sorted(set(models))
    command = rerecord_command_of(manifest, wanted, run_dir)
    if command is None:
        return "dataset models cannot be re-recorded: import the data again or drop those cases"
    hint = f"re-record with: `{command}`"
    if any(providers.get(m) == "dataset" for m in wanted):
        hint += " (dataset models cannot be re-recorded)"
    return hint
