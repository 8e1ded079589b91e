"""``write_report``: summary.md, report.html, junit.xml and results.csv into the run folder."""

from __future__ import annotations

import contextlib
import fcntl
import multiprocessing
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness._atomic import atomic_path, atomic_write_text
from harness._errors import InfrastructureError
from harness._redaction import scrub_bytes
from harness.report._aggregate import Summary, summarize
from harness.report._html import DATA_PREFIX, ReportPage, render_report_page
from harness.report._junit import write_tables
from harness.report._load import LoadedRun, load_run
from harness.report._markdown import render_summary_md

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from harness.baseline import Baseline

__all__ = ["ReportFiles", "write_report"]


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """What ``write_report`` wrote."""

    summary_md: Path
    """The pull-request comment."""
    report_html: Path
    """The self-contained page."""
    junit_xml: Path
    """One test case per case x model x sample."""
    results_csv: Path
    """One line per result row."""
    summary: Summary
    """The aggregates the files were made from."""
    report_data: Path | None = None
    """The folder of report.html's case table beside it (None: the table is in the page)."""


def write_report(
    run: LoadedRun | str | Path,
    out: Path | None = None,
    *,
    baseline: Baseline | None = None,
    processes: int = 1,
) -> ReportFiles:
    """Aggregate a run and write its four report files (into the run folder by default).

    Args:
        run: the run (or its folder).
        out: the folder to write into (default: the run folder).
        baseline: the suite's baseline: summary.md then lists new regressions first.
        processes: 2 writes junit.xml and results.csv in a forked copy of this process while
            this one aggregates and writes summary.md and report.html: the same files, sooner
            on two cores (``planeval report`` does). The fork is used only where ``fork``
            exists and this process runs no other thread (forking a threaded process, a
            notebook kernel say, is unsafe); otherwise everything runs here.

    Raises:
        OSError: a file could not be written (each file is written whole or not at all; a
            large report.html's side folder is complete before the page names it).
    """
    loaded = run if isinstance(run, LoadedRun) else load_run(run)
    folder = out or loaded.run_dir
    folder.mkdir(parents=True, exist_ok=True)
    with _folder_lock(folder):
        return _write_report(loaded, folder, baseline, processes)


def _write_report(
    loaded: LoadedRun, folder: Path, baseline: Baseline | None, processes: int
) -> ReportFiles:
    summary_md, report_html = folder / "summary.md", folder / "report.html"
    junit_xml, results_csv = folder / "junit.xml", folder / "results.csv"
    tables = _Fork.start(_write_tables, loaded, junit_xml, results_csv) if processes > 1 else None
    try:
        summary = summarize(loaded)
        _write_summary_md(summary, baseline, summary_md)
        report_data = _write_page(render_report_page(summary), report_html)
        if tables is None:
            _write_tables(loaded, junit_xml, results_csv)
    except BaseException:
        if tables is not None:
            tables.wait(reraise=False)
        raise
    if tables is not None:
        tables.wait(reraise=True)
    return ReportFiles(summary_md, report_html, junit_xml, results_csv, summary, report_data)


def write_report_page(page: ReportPage, path: Path) -> Path | None:
    """Write report.html at ``path`` and its side folder beside it; return the folder.

    The folder is written under a temporary name and renamed when complete, before the page
    that names it replaces the old one: a reader sees the old page with its folder or the new
    one with its own, never a page without its data. Then every other ``report-data-*``
    folder there (an older report's, or one a crash left half-written) is removed. On an error
    nothing new is left and the old report stays as it was. Two writers of one folder (two
    ``planeval report`` of one run, in this process or others) take turns: an exclusive
    ``flock`` on the folder, so one never removes the other's side folder as stale.
    """
    with _folder_lock(path.parent):
        return _write_page(page, path)


def _write_page(page: ReportPage, path: Path) -> Path | None:
    """``write_report_page`` with the folder's lock already held."""
    folder = path.parent
    target = folder / page.folder if page.folder else None
    if target is not None:
        _write_folder(target, page.files)
    try:
        atomic_write_text(path, page.html)
    except BaseException:
        if target is not None:
            shutil.rmtree(target, ignore_errors=True)
        raise
    for stale in folder.glob(f"*{DATA_PREFIX}*"):
        if stale.name.lstrip(".").startswith(DATA_PREFIX) and stale != target and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    return target


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the folder (waiting for another holder) while inside.

    The lock belongs to the folder's open file description: a second writer, in another
    process or on another thread of this one, waits until the first is done.
    """
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor of the description releases the lock


def _write_folder(target: Path, files: dict[str, bytes]) -> None:
    """``files`` into the folder ``target``, whole or not at all (credentials scrubbed)."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        tmp.chmod(0o777 & ~_umask())
        for name, content in files.items():
            with (tmp / name).open("wb") as fh:
                fh.write(scrub_bytes(content))
                fh.flush()
                os.fsync(fh.fileno())
        if target.exists():  # the same content written before (the name is its hash)
            shutil.rmtree(target)
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_summary_md(summary: Summary, baseline: Baseline | None, path: Path) -> None:
    atomic_write_text(path, render_summary_md(summary, baseline=baseline))


def _write_tables(loaded: LoadedRun, junit_xml: Path, results_csv: Path) -> None:
    with atomic_path(junit_xml) as junit, atomic_path(results_csv) as csv:
        write_tables(loaded, junit, csv)


class _Fork:
    """A function run in a forked copy of this process; its error, if any, comes back
    through a pipe and is raised by ``wait``."""

    def __init__(self, process: BaseProcess, conn: Connection, what: str) -> None:
        self._process, self._conn, self._what = process, conn, what

    @classmethod
    def start(cls, fn: Callable[..., None], *args: Any) -> _Fork | None:
        """None where forking is unavailable or unsafe (the caller then runs ``fn`` itself)."""
        if threading.active_count() > 1 or "fork" not in multiprocessing.get_all_start_methods():
            return None
        context = multiprocessing.get_context("fork")
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_fork_main, args=(send, fn, args), daemon=True)
        process.start()
        send.close()
        return cls(process, receive, fn.__name__)

    def wait(self, *, reraise: bool) -> None:
        try:
            error = self._conn.recv()
        except EOFError:
            self._process.join()
            error = InfrastructureError(
                f"the process running {self._what} ended without a word (exit code "
                f"{self._process.exitcode}); run the report again"
            )
        finally:
            self._conn.close()
            self._process.join()
        if error is not None and reraise:
            raise error


def _fork_main(send: Connection, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
    try:
        fn(*args)
    except BaseException as exc:  # sent back, to be raised in the parent
        try:
            send.send(exc)
        except Exception:
            send.send(InfrastructureError(f"{type(exc).__name__}: {exc}"))
    else:
        send.send(None)
