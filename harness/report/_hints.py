"""What to tell a user about missing or stale recordings."""

from __future__ import annotations

from collections.abc import Iterable

from harness.run import RunManifest

__all__ = ["rerecord_hint"]


def rerecord_hint(manifest: RunManifest, models: Iterable[str]) -> str:
    """How to fill the gaps of ``models``: a live re-record, unless they are dataset models
    (recordings imported from data, which cannot be re-recorded)."""
    providers = {str(m.get("id")): m.get("provider") for m in manifest.models}
    wanted = sorted(set(models))
    live = [m for m in wanted if providers.get(m) != "dataset"]
    path = manifest.suite_path or f"evals/{manifest.suite}.yaml"
    if not live:
        return "dataset models cannot be re-recorded: import the data again or drop those cases"
    hint = f"re-record with `planeval run {path} --live`"
    if len(live) < len(wanted):
        hint += " (dataset models cannot be re-recorded)"
    return hint
