"""Packages import downward only: ``harness.report`` never imports ``harness.gate`` (the gate
judges reports, not the other way round), and ``harness.baseline``, the home of the pieces
both need (the ``Baseline`` type and reader, the per-case evidence of a new failure), imports
neither. Checked on the source (every import statement, including those inside functions and
``TYPE_CHECKING`` blocks): report and gate used to import each other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "harness"


def _imports(package: str) -> dict[str, set[str]]:
    """Module file -> every ``harness.*`` module it imports."""
    out: dict[str, set[str]] = {}
    for path in sorted((HARNESS / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        out[str(path.relative_to(HARNESS))] = {n for n in names if n.startswith("harness.")}
    return out


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [("report", ("harness.gate",)), ("baseline", ("harness.gate", "harness.report"))],
)
def test_no_upward_import(package: str, forbidden: tuple[str, ...]) -> None:
    offending = {
        module: sorted(n for n in names if n.startswith(forbidden))
        for module, names in _imports(package).items()
        if any(n.startswith(forbidden) for n in names)
    }
    assert offending == {}


def test_the_gate_reexports_the_baseline_reader() -> None:
    """``harness.gate``'s public names are unchanged: the moved pieces are the same objects."""
    import harness.baseline as baseline
    import harness.gate as gate

    for name in ("Baseline", "load_baseline", "baseline_path", "all_passed_p_value"):
        assert getattr(gate, name) is getattr(baseline, name)
