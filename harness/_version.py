"""The version of planeval, in one place: the package's build reads it from here
(``pyproject.toml``: ``version`` is dynamic, ``attr = "harness._version.__version__"``).

A constant, so that ``harness.__version__`` costs nothing: looking it up in the installed
metadata (``importlib.metadata.version``) scans every distribution on ``sys.path`` and parses
planeval's ``METADATA`` with the ``email`` package, once per process that writes a record.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
