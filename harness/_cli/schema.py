"""``planeval schema baseline|plan|results-row|suite``: print a published JSON Schema."""

from __future__ import annotations

import typer

from harness._cli._output import fail_input, print_json


def schema_command(
    name: str = typer.Argument(
        ..., metavar="NAME", help="Which schema: baseline, plan, results-row or suite."
    ),
) -> None:
    """Print a JSON Schema (Draft 2020-12)."""
    from harness.schemas import SCHEMA_NAMES, load_schema

    if name not in SCHEMA_NAMES:
        fail_input(f"unknown schema {name!r}; choose one of: {', '.join(SCHEMA_NAMES)}")
    print_json(load_schema(name))
