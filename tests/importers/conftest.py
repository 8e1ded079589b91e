"""Fixtures for the importer tests: a CLI runner and the public data beside the project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness._cli.main import app

from ._helpers import SHARED_DATA


class Cli:
    """Runs ``planeval`` in-process and keeps stdout and stderr apart."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str) -> Any:
        return self.runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def cli() -> Cli:
    return Cli()


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data``; its absence is a failure with a clear message, never a skip."""
    if not (SHARED_DATA / "worfbench").is_dir():
        pytest.fail(
            f"public data not found at {SHARED_DATA}: the shipped suites are imported from it; "
            "check out the shared/ folder beside the project (CI does)"
        )
    return SHARED_DATA
