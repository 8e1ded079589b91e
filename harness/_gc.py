"""A pause of the cyclic garbage collector around allocation-heavy, cycle-free work.

Building a 100,000-task plan allocates hundreds of thousands of small objects; each
generation-0 threshold crossing then rescans the survivors, which costs more than the work
itself. Nothing built there forms reference cycles, so pausing the collector loses nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["freeze_survivors", "gc_paused", "survivors_frozen"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic GC inside the block (restored after, also on error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def freeze_survivors() -> None:
    """Move every object alive now out of the cyclic GC's scans (``gc.freeze``), after one
    collection so that garbage is freed first, not kept.

    For long-lived state built once before a long loop (loaded suites, collected test items):
    each full collection in the loop would walk all of it again. Reference counting still
    frees frozen objects that nothing refers to; ``gc.unfreeze`` gives them back to the scans.
    """
    gc.collect()
    gc.freeze()


@contextmanager
def survivors_frozen() -> Iterator[None]:
    """``freeze_survivors`` on entry, ``gc.unfreeze`` on exit (also on error)."""
    freeze_survivors()
    try:
        yield
    finally:
        gc.unfreeze()
