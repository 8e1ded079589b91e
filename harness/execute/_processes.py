"""An ordered map over worker processes, for CPU-bound work on many independent items.

``resume-eval`` crashes and resumes thousands of small executions; each is pure Python and
holds the GIL, so threads cannot share the work but processes can. Workers come from a
fork server (a clean process forked before any thread of ours exists) with the executor
already imported, ignore SIGINT (the parent decides how a Ctrl+C ends the run) and get a
bounded number of items ahead, so a run stopped early wastes little.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import TypeVar

__all__ = ["available_cpus", "map_in_processes", "worker_context"]

T = TypeVar("T")
R = TypeVar("R")

_AHEAD_PER_WORKER = 4
"""Items handed out per worker beyond the one being consumed (keeps every worker busy)."""


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def map_in_processes(function: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[R]:
    """Yield ``function(item)`` for each item, in order, computed by ``workers`` processes.

    With ``workers`` 1 (or less) everything runs in this process and no pool starts. The
    pool starts at the second item, so a single item never pays for it. ``function`` and
    the items must pickle (a module-level function and plain data). Closing the iterator
    cancels the items not yet started. An exception in a worker is raised here, at its item.
    """
    iterator = iter(items)
    if workers <= 1:
        yield from map(function, iterator)
        return
    first = next(iterator, _END)
    if first is _END:
        return
    second = next(iterator, _END)
    if second is _END:
        yield function(first)  # type: ignore[arg-type]
        return
    context = worker_context()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_quiet)
    pending: deque[Future[R]] = deque()
    try:
        pending.append(pool.submit(function, first))  # type: ignore[arg-type]
        pending.append(pool.submit(function, second))  # type: ignore[arg-type]
        for item in iterator:
            pending.append(pool.submit(function, item))
            if len(pending) > workers * _AHEAD_PER_WORKER:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


_END = object()


def worker_context() -> SpawnContext | ForkServerContext:
    """Where worker processes come from: the fork server (the executor preloaded), else spawn.

    A process started from it costs a fork, not a Python start-up and imports.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["harness.execute"])
    return context


def _quiet() -> None:
    """Workers leave Ctrl+C to the parent (which stops handing out work)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
