"""The public surface of report, compare and gate: explicit, sorted ``__all__``."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("name", ["harness.report", "harness.compare", "harness.gate"])
def test_all_is_sorted_and_importable(name: str) -> None:
    """Every name in __all__ exists; __all__ is sorted isort-style (constants, classes,
    functions), as ruff's RUF022 keeps it."""
    module = importlib.import_module(name)
    kind = lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n)  # noqa: E731
    assert module.__all__ == sorted(module.__all__, key=kind)
    for attr in module.__all__:
        assert hasattr(module, attr), attr
