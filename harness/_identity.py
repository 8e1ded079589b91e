"""Values kept per object identity, for objects that cannot be hashed (a suite's case, a
registry, a tool catalogue) but do not change once made.

Each entry holds its key object, so the key's ``id`` cannot be reused by another object while
the entry lives. The cache is emptied whole when it is full (memory stays bounded; what is
dropped is made again on its next use).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["IdentityCache"]

K = TypeVar("K")
V = TypeVar("V")


class IdentityCache(Generic[K, V]):
    """``get(key, make)``: the value made for this very object, made on first use."""

    def __init__(self, maxsize: int) -> None:
        self._maxsize = maxsize
        self._entries: dict[int, tuple[K, V]] = {}
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[K], V]) -> V:
        kept = self._entries.get(id(key))
        if kept is not None and kept[0] is key:
            return kept[1]
        value = make(key)
        with self._lock:
            if len(self._entries) >= self._maxsize:
                self._entries.clear()
            self._entries[id(key)] = (key, value)
        return value
