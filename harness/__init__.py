"""planeval: a plan-quality evaluation harness for LLM planners.

The library is importable as ``harness``; the ``planeval`` command is a thin layer over it.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("planeval")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
