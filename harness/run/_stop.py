"""Stopping a run cleanly on SIGINT or SIGTERM.

Both signals end a run the same way: the row being checked is finished and written, no new
work is handed out, run.json is marked ``interrupted`` and ``RunInterrupted`` is raised. The
handlers only set a flag (no exception can land in the middle of a write), and the run looks
at the flag between rows, so the ending is the same whenever the signal arrives.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from harness._signals import note as note_signal

__all__ = ["StopRequest", "stop_on_signals"]


class StopRequest:
    """A flag that asks a run to stop; safe to set from a signal handler or another thread."""

    def __init__(self) -> None:
        self._reason: str | None = None

    def set(self, reason: str = "stopped") -> None:
        """Ask the run to stop (the first reason is kept)."""
        if self._reason is None:
            self._reason = reason

    def is_set(self) -> bool:
        """True once a stop was asked for."""
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        """Why (``SIGINT``, ``SIGTERM``, ``Ctrl+C``), or None."""
        return self._reason


@contextmanager
def stop_on_signals(stop: StopRequest) -> Iterator[StopRequest]:
    """While inside, SIGINT and SIGTERM set ``stop`` instead of killing the process.

    Outside the main thread (where Python cannot install handlers) nothing is installed;
    Ctrl+C then still arrives as KeyboardInterrupt, which ``run_suite`` also handles.
    """
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        note_signal(signum)  # the command exits 130 even if the run had just finished
        stop.set(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
