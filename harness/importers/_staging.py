"""All-or-nothing writes for importers: an import either lands completely or leaves no trace.

Every file is first written into a hidden staging folder inside the project root (so the final
moves are renames on one filesystem), then moved into place. Folders registered with
``replace_tree`` are swapped as a whole, so a re-import never leaves recordings of cases that
the new suite no longer has. If anything fails (including Ctrl+C) before the last move, the
moves already made are undone and earlier files are put back.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TextIO

__all__ = ["StagedFiles"]


class StagedFiles:
    """Files to write under a root, committed together.

    Each file is written into the staging folder as it is added (an import of 100,000 cases
    holds none of their texts); use it as a context manager, so that an import that fails
    before ``commit`` removes what it staged::

        with StagedFiles(root) as staged:
            staged.add("evals/x.yaml", text)
            staged.commit()
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[PurePosixPath, None] = {}  # staged outside every replaced tree
        self._trees: dict[PurePosixPath, bool] = {}  # replaced tree -> holds a staged file
        self._removed: list[PurePosixPath] = []
        self.count = 0
        """How many files were staged (those under a replaced tree are not listed one by one:
        an import of 100,000 recordings keeps one entry for their folder)."""
        self._staging: Path | None = None
        self._created_dirs: list[Path] = []

    def __enter__(self) -> StagedFiles:
        return self

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is not None:
            self.discard()

    def add(self, relpath: str, text: str) -> None:
        """Stage ``text`` for ``root/relpath`` (a POSIX-style relative path)."""
        with self.open(relpath) as fh:
            fh.write(text)

    @contextlib.contextmanager
    def open(self, relpath: str) -> Iterator[TextIO]:
        """Stage ``root/relpath`` written through the file handle given (UTF-8, ``\\n``
        line ends): a large file is written a piece at a time."""
        rel = PurePosixPath(relpath)
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"staged path must stay inside the root: {relpath!r}")
        if self._staging is None:
            self._created_dirs = _make_dirs(self.root)
            self._staging = Path(tempfile.mkdtemp(prefix=".planeval-import-", dir=self.root))
        path = self._staging.joinpath("new", *rel.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
        self.count += 1
        tree = next((t for t in self._trees if _under(rel, t)), None)
        if tree is None:
            self._files[rel] = None
        else:
            self._trees[tree] = True

    def replace_tree(self, relpath: str) -> None:
        """Replace the folder ``root/relpath`` as a whole with the staged files under it."""
        tree = PurePosixPath(relpath)
        inside = [f for f in self._files if _under(f, tree)]
        for rel in inside:
            del self._files[rel]
        self._trees[tree] = self._trees.get(tree, False) or bool(inside)

    def remove(self, relpath: str) -> None:
        """Remove ``root/relpath``, if it is there, when the staged files are committed (a
        file an earlier import wrote under a name this one no longer uses); it is put back if
        the commit fails."""
        self._removed.append(PurePosixPath(relpath))

    @property
    def paths(self) -> list[Path]:
        """What lands: each replaced folder that holds a staged file, then each staged file
        outside those folders, in the order they were added."""
        return [self.root.joinpath(*rel.parts) for rel in self._units()]

    def discard(self) -> None:
        """Remove everything staged (and the folders made for it); nothing lands."""
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None
        _remove_empty(self._created_dirs)
        self._created_dirs = []
        self._files.clear()
        self._trees.clear()
        self.count = 0

    def commit(self) -> list[Path]:
        """Move every staged file into place, or none of them.

        Returns:
            The paths written.
        """
        if self._staging is None:
            return []
        created_dirs = self._created_dirs
        staging = self._staging
        moved: list[tuple[Path, Path | None]] = []  # (target, backup or None)
        try:
            new, old = staging / "new", staging / "old"
            for rel in self._removed:  # first, so that any failure after puts them back
                target = self.root.joinpath(*rel.parts)
                if target.is_file() or target.is_symlink():
                    aside = old.joinpath(*rel.parts)
                    aside.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(target, aside)
                    moved.append((target, aside))
            for rel in self._units():
                target = self.root.joinpath(*rel.parts)
                created_dirs += _make_dirs(target.parent)
                backup: Path | None = None
                if target.exists() or target.is_symlink():
                    backup = old.joinpath(*rel.parts)
                    backup.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(target, backup)
                moved.append((target, backup))
                os.replace(new.joinpath(*rel.parts), target)
        except BaseException:
            _undo(moved)
            shutil.rmtree(staging, ignore_errors=True)
            self._staging = None
            _remove_empty(created_dirs)
            raise
        shutil.rmtree(staging, ignore_errors=True)
        self._staging = None
        return self.paths

    def _units(self) -> list[PurePosixPath]:
        """What is moved into place: each replaced tree, then each file outside the trees."""
        return [t for t, filled in self._trees.items() if filled] + list(self._files)


def _under(path: PurePosixPath, tree: PurePosixPath) -> bool:
    return path.parts[: len(tree.parts)] == tree.parts


def _make_dirs(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created, outermost first."""
    missing: list[Path] = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    folder.mkdir(parents=True, exist_ok=True)
    return list(reversed(missing))


def _undo(moved: list[tuple[Path, Path | None]]) -> None:
    for target, backup in reversed(moved):
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target, ignore_errors=True)
        else:
            target.unlink(missing_ok=True)
        if backup is not None:
            os.replace(backup, target)


def _remove_empty(created_dirs: list[Path]) -> None:
    for folder in reversed(created_dirs):
        with contextlib.suppress(OSError):
            folder.rmdir()
