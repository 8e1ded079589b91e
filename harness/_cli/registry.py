"""``planeval registry from-mcp --out FILE -- COMMAND...``: a registry from an MCP server.

Exit 0 when the file is written, 2 when the server cannot be started, fails, does not answer
in time or lists a tool whose schema is not a JSON Schema (nothing is written then).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from harness._cli._output import fail_input

registry_app = typer.Typer(
    name="registry",
    help="Build capability registries from tool definitions.",
    no_args_is_help=True,
    add_completion=False,
)


@registry_app.command("from-mcp")
def from_mcp_command(
    command: Annotated[
        list[str],
        typer.Argument(
            metavar="COMMAND...",
            help="The MCP server's command line (after --), started over stdio.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", metavar="FILE", help="The registry file to write (JSON)."),
    ],
    timeout: Annotated[
        float,
        typer.Option("--timeout", min=0.1, metavar="SECONDS", help="Time to start and list."),
    ] = 30.0,
) -> None:
    """Write an MCP server's tools (its tools/list result) as a registry file.

    The server is started over stdio: give its command line after --, e.g.
    planeval registry from-mcp --out tools.json -- python server.py
    """
    from harness._errors import InputError
    from harness.registry._mcp import write_mcp_registry

    try:
        registry = write_mcp_registry(command, out, timeout=timeout)
    except InputError as exc:
        fail_input(exc)
    except OSError as exc:
        fail_input(f"{out}: cannot write the registry: {exc.strerror or exc}")
    with_schema = sum(1 for c in registry.capabilities if c.parameters is not None)
    sys.stdout.write(
        f"{out}: {len(registry.capabilities)} tools ({with_schema} with a parameter schema)\n"
    )
