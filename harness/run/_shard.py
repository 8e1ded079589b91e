"""Shards: a deterministic, balanced slice of a run's (model x case x sample) items.

Items are numbered in suite order (models in the suite's order, then cases, then samples);
shard ``i/n`` takes every item whose number is ``i - 1`` modulo ``n``. Every shard gets
``items // n`` or one more, every model and case is spread over all shards (so each shard
meets the same rate limits), and the same suite always splits the same way on any machine.
Each item, and so each recording file, belongs to exactly one shard: shards never write the
same file.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from harness._errors import InputError

__all__ = ["Shard", "fixtures_for_shards", "parse_shard"]

_JOB_COPY = "runtime_resources/working_dir_files"
"""Where Ray unpacks a job's ``--working-dir``: a throw-away copy on the worker node."""

T = TypeVar("T")
_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based, as ``--shard 2/3`` says it)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise InputError(
                f"--shard {self.index}/{self.count} is not a shard: use i/n with 1 <= i <= n"
            )

    def select(self, items: Sequence[T]) -> list[T]:
        """This shard's items, in their order."""
        return list(items[self.index - 1 :: self.count])

    def holds(self, number: int) -> bool:
        """Whether item ``number`` (0-based, in run order) is this shard's."""
        return number % self.count == self.index - 1

    def size(self, total: int) -> int:
        """How many of ``total`` items are this shard's."""
        return total // self.count + (1 if self.index - 1 < total % self.count else 0)

    @property
    def label(self) -> str:
        """``2/3``."""
        return f"{self.index}/{self.count}"

    def describe(self, total: int) -> dict[str, int]:
        """As run.json records it: ``{index, count, items}`` (items of the whole run)."""
        return {"index": self.index, "count": self.count, "items": total}


def parse_shard(text: str) -> Shard:
    """``"2/3"`` -> ``Shard(2, 3)``.

    Raises:
        InputError: anything but ``i/n`` with ``1 <= i <= n``.
    """
    match = _SPEC.match(text)
    if match is None:
        raise InputError(f"--shard {text!r} is not i/n (for example --shard 2/3)")
    return Shard(int(match.group(1)), int(match.group(2)))


def fixtures_for_shards(root: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """Check a live shard's recordings folder is somewhere the merge will find it.

    Returns a one-line warning when ``root`` lies in a temporary folder (the system's, or
    ``$SLURM_TMPDIR`` / ``$TMPDIR``), else None.

    Raises:
        InputError: ``root`` is inside a Ray job's copy of its working dir, which is thrown
            away with the job: every recording would be lost.
    """
    env = os.environ if environ is None else environ
    where = root.resolve()
    if _JOB_COPY in where.as_posix():
        raise InputError(
            "the recordings folder is inside the Ray job's copy of its working dir, which is "
            "thrown away when the job ends: every recording would be lost",
            source=str(root),
            hint="pass --fixtures on storage every node shares (docs/scale.md)",
        )
    temporary = {tempfile.gettempdir(), env.get("SLURM_TMPDIR", ""), env.get("TMPDIR", "")}
    for folder in filter(None, temporary):
        if where.is_relative_to(Path(folder).resolve()):
            return (
                f"the recordings folder {root} is in a temporary folder ({folder}): a shard's "
                "recordings must outlive the job; pass --fixtures on shared storage "
                "(docs/scale.md)"
            )
    return None
