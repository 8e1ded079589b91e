"""How to finish a run that stopped early: the command that writes a complete one."""

from __future__ import annotations

import shlex

from harness.run._records import RunManifest

__all__ = ["RESUME_SUFFIX", "finish_command"]

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
