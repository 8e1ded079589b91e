"""Which run folders a command was given: run folders, or folders of them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness._errors import RunFormatError

__all__ = ["run_folders"]


def _is_run(path: Path) -> bool:
    return (path / "run.json").is_file()


def run_folders(paths: Iterable[Path]) -> list[Path]:
    """Each argument as run folders, in order: a run folder (or its run.json /
    results.jsonl) stands for itself; a folder holding run folders (``planeval run --out DIR``
    over several suites writes ``DIR/<suite>/``) stands for each of them, by name. Anything
    else is passed through so that reading it reports what is wrong.

    Raises:
        RunFormatError: the same run folder named twice.
    """
    out: list[Path] = []
    for path in paths:
        if path.is_file() and path.name in ("run.json", "results.jsonl"):
            path = path.parent
        if path.is_dir() and not _is_run(path):
            inner = sorted(p for p in path.iterdir() if p.is_dir() and _is_run(p))
            if inner:
                out.extend(inner)
                continue
        out.append(path)
    seen: set[Path] = set()
    for path in out:
        key = path.resolve()
        if key in seen:
            raise RunFormatError("the same run is given twice", source=str(path))
        seen.add(key)
    return out
