"""SIGINT and SIGTERM from the first instant of ``planeval`` to its exit: always exit 130.

``main`` installs ``install`` before it imports anything that takes time (typer, the command's
module, the library). Until a command installs its own handlers (``execute``'s and ``run``'s
turn a signal into an orderly stop that journals or records the interruption), a signal
raises ``KeyboardInterrupt`` once, which ``main`` turns into exit 130; further signals are
only noted, so a second Ctrl+C during the clean-up cannot cut it short or print a traceback.
Every signal is noted (``note``, called by the commands' own handlers too), and ``finish``
ends the process with 130 when one arrived at any moment, without going through Python's
shutdown (which resets the handlers to the default: a signal there killed the process).
What is left is the interpreter's own start-up, before ``main`` runs (some 20-100 ms).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from types import FrameType
from typing import NoReturn

__all__ = ["finish", "install", "note"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[str] = []


def note(signum: int) -> None:
    """Remember that a SIGINT or SIGTERM arrived (the exit code becomes 130)."""
    _received.append(signal.Signals(signum).name)


def _raise_once(signum: int, _frame: FrameType | None) -> None:
    note(signum)
    for sig in _SIGNALS:
        if signal.getsignal(sig) is _raise_once:
            signal.signal(sig, _note_only)
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _note_only(signum: int, _frame: FrameType | None) -> None:
    note(signum)


def install() -> None:
    """Install the start-up handlers (main thread only): the first signal interrupts.
    Installing them again changes nothing (a signal already noted stays noted)."""
    for sig in _SIGNALS:
        if signal.getsignal(sig) not in (_raise_once, _note_only):
            signal.signal(sig, _raise_once)


def finish(code: int) -> NoReturn:
    """End the process: 130 when a signal arrived at any moment, else ``code``.

    What Python's shutdown would do is done here, with the signals still noted: the exit
    functions run, worker threads that are not daemons are awaited, the output is flushed.
    Then the process ends with ``os._exit``: Python's own shutdown resets the handlers to
    the default (a signal then kills the process, exit -15) and can take a noticeable time,
    so a signal in that window could not end with 130.
    """
    try:
        for thread in threading.enumerate():
            if thread is not threading.current_thread() and not thread.daemon:
                thread.join()
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
    except KeyboardInterrupt:
        _received.append("KeyboardInterrupt")
    os._exit(130 if _received else code)
