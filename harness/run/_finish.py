"""How to finish a run that stopped early: the command that writes a complete one.

Every continue / finish line planeval prints reproduces the original selection (suites,
models, samples, shard, budget, concurrency, fixtures, prices, batch) and uses
``--record-mode new_episodes``: the recordings written before the stop are replayed and only the
gaps are called, so running the line as printed buys exactly the missing answers.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.run._records import RunManifest

__all__ = ["RESUME_SUFFIX", "Selection", "finish_command", "rerecord_command", "suite_file"]

RESUME_SUFFIX = ".resume"
"""The label ``resume-eval`` gives its runs (``<suite>.resume``)."""


@dataclass(frozen=True, slots=True)
class Selection:
    """What a ``run`` (or ``resume-eval``) command line selected, to print its continuation."""

    suites: tuple[str, ...]
    """The suite arguments as typed (files or folders)."""
    command: str = "run"
    """``run`` or ``resume-eval``."""
    models: tuple[str, ...] = ()
    samples: int | None = None
    shard: str | None = None
    """``i/n`` as typed."""
    max_cost: float | None = None
    max_calls: int | None = None
    concurrency: int | None = None
    fixtures: str | None = None
    out: str | None = None
    prices: str | None = None
    batch: bool = False
    live: bool = True
    """False when the original command only replayed (record mode ``none``)."""

    def continue_command(
        self, *, models: Sequence[str] | None = None, record: bool | None = None
    ) -> str:
        """The command line that buys exactly the gaps of this selection.

        ``models`` narrows the line to the models that have gaps (default: the selection's);
        ``record`` (default: the original was live) adds ``--record-mode new_episodes``, else
        the line replays as the original did. A given ``--out`` becomes a fresh folder beside
        it (runs are never appended to).
        """
        argv = ["planeval", self.command, *self.suites]
        if self.command == "run" and (self.live if record is None else record):
            argv += ["--record-mode", "new_episodes"]
        for model in models if models is not None else self.models:
            argv += ["--model", model]
        if self.samples is not None:
            argv += ["--samples", str(self.samples)]
        if self.shard is not None:
            argv += ["--shard", self.shard]
        if self.max_cost is not None:
            argv += ["--max-cost", repr(self.max_cost)]
        if self.max_calls is not None:
            argv += ["--max-calls", str(self.max_calls)]
        if self.concurrency is not None:
            argv += ["--concurrency", str(self.concurrency)]
        if self.fixtures is not None:
            argv += ["--fixtures", self.fixtures]
        if self.prices is not None:
            argv += ["--prices", self.prices]
        if self.batch and self.command == "run":
            argv += ["--batch"]
        if self.out is not None:
            argv += ["--out", _fresh(self.out)]
        return shlex.join(argv)


def _fresh(out: str) -> str:
    """``<out>-continued`` (or ``-continued-2``, ...): the first name not taken."""
    stem = out.rstrip("/")
    for k in range(1, 1000):
        candidate = f"{stem}-continued" + (f"-{k}" if k > 1 else "")
        if not Path(candidate).exists():
            return candidate
    return f"{stem}-continued-{k + 1}"


def finish_command(manifest: RunManifest, *, suite_arg: str | None = None) -> str:
    """The command that makes a complete run of what ``manifest`` describes.

    A run folder is never appended to: finishing means a new run of the same suite, models,
    samples, shard and budget. Recordings written before the stop are replayed, so with
    ``--record-mode new_episodes`` only the samples that were never answered are called; a
    replay (``none``) costs nothing. (The CLI prints ``Selection.continue_command``, which also
    knows the concurrency, fixtures and output folder the command was given.)

    Args:
        manifest: the stopped run's run.json.
        suite_arg: the suite path as the user typed it (default: run.json's ``suite_path``,
            relative to the project root).
    """
    suite = suite_arg or manifest.suite_path or f"evals/{manifest.suite}.yaml"
    resume_eval = manifest.suite.endswith(RESUME_SUFFIX)
    budget = manifest.budget or {}
    shard = manifest.shard or {}
    selection = Selection(
        suites=(suite,),
        command="resume-eval" if resume_eval else "run",
        models=tuple(str(m["id"]) for m in manifest.models if m.get("id")),
        samples=manifest.samples,
        shard=f"{shard['index']}/{shard['count']}" if shard else None,
        max_cost=budget.get("max_cost"),
        max_calls=budget.get("max_calls"),
        live=manifest.record_mode != "none",
    )
    return selection.continue_command()


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
