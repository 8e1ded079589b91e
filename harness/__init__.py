"""planeval: a plan-quality evaluation harness for LLM planners.

The library is importable as ``harness``; the ``planeval`` command is a thin layer over it.
``harness.__version__`` is a constant (``harness/_version.py``, which the package's build also
reads): no ``importlib.metadata`` look-up, which costs more than the rest of ``planeval
check``'s start-up.
"""

from __future__ import annotations

from harness._version import __version__

__all__ = ["__version__"]
