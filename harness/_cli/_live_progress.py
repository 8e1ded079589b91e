"""Live progress for ``planeval run``: a rich bar on a terminal, a line every N s in logs.

The bar shows rows done of the total, calls in flight, failed calls, tokens and cost so far
and an ETA; it reads the run's ``LiveStats`` as it refreshes, so calls in flight show even
while no row finishes. Off a terminal (CI logs) it prints nothing but one line every
``interval`` seconds.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from harness.run import LiveStats, ResultRow

__all__ = ["live_progress", "progress_line"]

LOG_INTERVAL = 30.0
"""Seconds between progress lines in non-interactive logs."""


def progress_line(done: int, total: int, stats: LiveStats | None, elapsed: float) -> str:
    """``120/1,000 rows · 8 in flight · 2 failed · 1,234,567 tokens · $0.5300 · ETA 4m10s``."""
    parts = [f"{done:,}/{total:,} rows"]
    if stats is not None:
        parts.append(f"{stats.in_flight} in flight")
        parts.append(f"{stats.failed} failed")
        parts.append(f"{stats.tokens_in + stats.tokens_out:,} tokens")
        cost = f"${stats.cost:.4f}" if stats.done else "$0"
        parts.append(cost + (f" (+{stats.unpriced} unpriced)" if stats.unpriced else ""))
    parts.append("ETA " + _eta(done, total, elapsed))
    return " · ".join(parts)


def _eta(done: int, total: int, elapsed: float) -> str:
    if not done or done >= total:
        return "—" if not done else "0s"
    seconds = int(elapsed / done * (total - done))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"


@contextmanager
def live_progress(
    console: Console,
    *,
    total: int,
    stats: LiveStats | None,
    enabled: bool,
    interval: float = LOG_INTERVAL,
    write: Callable[[str], Any] | None = None,
) -> Iterator[Callable[[ResultRow], None] | None]:
    """Yield the per-row callback that drives the display (None when ``enabled`` is False)."""
    if not enabled:
        yield None
        return
    started = time.monotonic()
    done = [0]
    if console.is_terminal:
        yield from _bar(console, total, stats, started, done)
        return
    emit = write or (lambda line: sys.stderr.write(line + "\n"))
    stop = threading.Event()

    def ticker() -> None:
        while not stop.wait(interval):
            emit("progress: " + progress_line(done[0], total, stats, time.monotonic() - started))

    thread = threading.Thread(target=ticker, daemon=True, name="planeval-progress")
    thread.start()

    def advance(_row: ResultRow) -> None:
        done[0] += 1

    try:
        yield advance
    finally:
        stop.set()


def _bar(
    console: Console, total: int, stats: LiveStats | None, started: float, done: list[int]
) -> Iterator[Callable[[ResultRow], None]]:
    from rich.progress import BarColumn, Progress, ProgressColumn, TimeRemainingColumn
    from rich.text import Text

    class StatsColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            line = progress_line(done[0], total, stats, time.monotonic() - started)
            return Text(line.rsplit(" · ETA", 1)[0])

    with Progress(
        BarColumn(),
        StatsColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("planning", total=total)

        def advance(_row: ResultRow) -> None:
            done[0] += 1
            bar.update(task, completed=done[0])

        yield advance
