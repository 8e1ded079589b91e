"""planeval: a plan-quality evaluation harness for LLM planners.

The library is importable as ``harness``; the ``planeval`` command is a thin layer over it.
``harness.__version__`` is looked up in the installed package's metadata on first use, not at
import: ``importlib.metadata`` costs more than the rest of ``planeval check``'s start-up.
"""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """The installed version as ``__version__`` (``0.0.0+unknown`` from a bare source tree)."""
    if name != "__version__":
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("planeval")
    except PackageNotFoundError:  # running from a source tree that is not installed
        found = "0.0.0+unknown"
    globals()["__version__"] = found
    return found
