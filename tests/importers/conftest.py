"""Fixtures for the importer tests: a CLI runner (``shared_data`` comes from tests/conftest.py:
the public data beside the checkout; the tests that need it skip when it is absent)."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from harness._cli.main import app


class Cli:
    """Runs ``planeval`` in-process and keeps stdout and stderr apart."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str) -> Any:
        return self.runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def cli() -> Cli:
    return Cli()
