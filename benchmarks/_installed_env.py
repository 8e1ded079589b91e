"""The environment a benchmark's child processes run in: as an installed package runs.

An installed package has its ``.pyc`` files; an editable install under
``PYTHONDONTWRITEBYTECODE=1`` (set on some machines and CI images) compiles every module of
``harness`` from source at each start, which is not what a user waits for. Benchmarks that time
fresh processes run them with that variable removed and a private ``PYTHONPYCACHEPREFIX`` (so
the source tree is not written to), and warm it up before timing.
"""

from __future__ import annotations

import os
from pathlib import Path


def installed_env(pycache: Path, *, as_is: bool = False) -> dict[str, str]:
    """``os.environ`` with bytecode caching on, into ``pycache`` (unchanged when ``as_is``)."""
    env = dict(os.environ)
    if not as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env
