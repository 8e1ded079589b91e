"""``harness.__version__``: the constant the package's build reads, no metadata look-up."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import harness


def test_the_version_is_the_installed_distributions() -> None:
    """The constant and what ``pip`` installed agree (the build reads harness/_version.py)."""
    assert harness.__version__ == version("planeval")


def test_reading_the_version_does_not_scan_the_installed_distributions() -> None:
    """Records carry ``harness_version``; reading it must not cost an ``importlib.metadata``
    scan of site-packages in every process that writes one (it did, at first use)."""
    script = """
import importlib.metadata as metadata
def refuse(*args, **kwargs):
    raise AssertionError("importlib.metadata was asked")
metadata.version = metadata.distribution = metadata.distributions = refuse
import harness
from harness.run._evaluate import evaluate_one
print(harness.__version__)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == harness.__version__
