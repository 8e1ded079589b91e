"""How to finish a run that stopped early: the command that writes a complete one."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from harness.run._records import RunManifest

__all__ = ["RESUME_SUFFIX", "finish_command", "rerecord_command", "suite_file"]

RESUME_SUFFIX = ".resume"
"""The label ``resume-eval`` gives its runs (``<suite>.resume``)."""


def finish_command(manifest: RunManifest, *, suite_arg: str | None = None) -> str:
    """The command that makes a complete run of what ``manifest`` describes.

    A run folder is never appended to: finishing means a new run of the same suite, models
    and samples. Recordings written before the stop are replayed, so with the run's own record
    mode (``once`` or ``new_episodes``) only the samples that were never answered are called;
    a replay (``none``) costs nothing; ``all`` re-records everything, as it was asked to.

    Args:
        manifest: the stopped run's run.json.
        suite_arg: the suite path as the user typed it (default: run.json's ``suite_path``,
            relative to the project root).
    """
    suite = suite_arg or manifest.suite_path or f"evals/{manifest.suite}.yaml"
    resume_eval = manifest.suite.endswith(RESUME_SUFFIX)
    argv = ["planeval", "resume-eval" if resume_eval else "run", suite]
    if not resume_eval and manifest.record_mode != "none":
        argv += ["--record-mode", manifest.record_mode]
    for model in manifest.models:
        if model.get("id"):
            argv += ["--model", str(model["id"])]
    argv += ["--samples", str(manifest.samples)]
    return shlex.join(argv)


def suite_file(manifest: RunManifest, run_dir: Path) -> Path | None:
    """The run's suite file, when the run lives in its project
    (``<project>/reports/runs/.../<run>``) and the file is still there."""
    if not manifest.suite_path:
        return None
    for folder in run_dir.resolve().parents:
        if folder.name == "runs" and folder.parent.name == "reports":
            path = folder.parent.parent / manifest.suite_path
            return path if path.is_file() else None
    return None


def rerecord_command(
    manifest: RunManifest,
    models: Iterable[str],
    *,
    suite_samples: int | None,
    suite_arg: str | None = None,
    fixtures: Path | None = None,
) -> str | None:
    """The one command that records exactly the missing and stale samples of ``models``
    (``run``, ``report`` and ``gate`` all print it): ``--record-mode new_episodes`` replays what
    is fresh and records the rest. None when every one of those models is a ``dataset`` model
    (imported recordings cannot be re-recorded).

    Args:
        manifest: the run's run.json.
        models: the models with missing or stale rows.
        suite_samples: the suite's default samples (``--samples`` is added when the run used
            another count; None when unknown: then added whenever it is not 1).
        suite_arg: the suite path as the user typed it (default: run.json's ``suite_path``).
        fixtures: a ``--fixtures`` folder the run was given.
    """
    providers = {str(m.get("id")): m.get("provider") for m in manifest.models}
    wanted = list(dict.fromkeys(models))
    recordable = [m for m in wanted if providers.get(m) != "dataset"]
    if not recordable:
        return None
    suite = suite_arg or manifest.suite_path or f"evals/{manifest.suite}.yaml"
    argv = ["planeval", "run", suite, "--record-mode", "new_episodes"]
    for model in recordable:
        argv += ["--model", model]
    default = 1 if suite_samples is None else suite_samples
    if manifest.samples != default:
        argv += ["--samples", str(manifest.samples)]
    if manifest.shard:
        argv += ["--shard", f"{manifest.shard['index']}/{manifest.shard['count']}"]
    if fixtures is not None:
        argv += ["--fixtures", str(fixtures)]
    return shlex.join(argv)
