"""A registry from a running MCP server: start it over stdio, list its tools, write them down.

Uses the official ``mcp`` Python SDK (``pip install 'planeval[mcp]'``), 1.x or 2.x: the client
session speaks the protocol (initialize, ``tools/list`` page by page); planeval only keeps what
the server answered. The file written is the ``tools/list`` result itself (``{"tools": [...]}``),
which ``load_registry`` reads like any other registry.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness._atomic import atomic_write_text
from harness._errors import RegistryError
from harness.registry._registry import Registry

__all__ = ["mcp_tools", "write_mcp_registry"]

DEFAULT_TIMEOUT = 30.0
"""Seconds allowed for the server to start and list its tools."""


def mcp_tools(command: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """Start the MCP server ``command`` over stdio and return its ``tools/list`` result
    (every page) as ``{"tools": [...]}`` in the protocol's JSON spelling.

    Raises:
        RegistryError: the SDK is not installed, the command cannot be started, or the server
            fails or does not answer within ``timeout`` seconds.
    """
    source = " ".join(command) or "<no command>"
    if not command:
        raise RegistryError(
            "no server command given", source=source, hint="planeval registry from-mcp -- CMD ..."
        )
    try:
        import anyio
        from mcp import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client
    except ImportError:
        raise RegistryError(
            "the MCP SDK is not installed",
            source=source,
            hint="pip install 'planeval[mcp]'",
        ) from None
    if shutil.which(command[0]) is None:
        raise RegistryError(
            f"cannot start {command[0]!r}: no such program on PATH",
            source=source,
            hint="give the server's command after --, e.g. -- python server.py",
        )
    params = StdioServerParameters(command=command[0], args=list(command[1:]), env=dict(os.environ))

    async def listing() -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            cursor: str | None = None
            while True:
                result = await _list_page(session, cursor)
                tools.extend(
                    tool.model_dump(by_alias=True, exclude_none=True, mode="json")
                    for tool in result.tools
                )
                cursor = getattr(result, "next_cursor", getattr(result, "nextCursor", None))
                if not cursor:
                    return tools

    async def bounded() -> list[dict[str, Any]]:
        with anyio.fail_after(timeout):
            return await listing()

    try:
        tools = anyio.run(bounded)
    except TimeoutError:
        raise RegistryError(
            f"the MCP server did not list its tools within {timeout:g} s",
            source=source,
            hint="check that the command starts an MCP server on stdio; raise --timeout",
        ) from None
    except Exception as exc:  # the SDK raises many kinds; each is one line for the user
        raise RegistryError(
            f"the MCP server failed: {_reason(exc)}",
            source=source,
            hint="run the command by hand to see its error output",
        ) from None
    return {"tools": tools}


async def _list_page(session: Any, cursor: str | None) -> Any:
    """One ``tools/list`` page: SDK 2.x takes ``params``, 1.x a ``cursor``."""
    if "params" in inspect.signature(session.list_tools).parameters:
        from mcp import types

        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        return await session.list_tools(params=params)
    return await session.list_tools(cursor=cursor)


def _reason(exc: BaseException) -> str:
    """The innermost message of an exception (task groups wrap the real one)."""
    inner = getattr(exc, "exceptions", None)
    while inner:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return str(exc) or type(exc).__name__


def write_mcp_registry(
    command: Sequence[str], out: Path, *, timeout: float = DEFAULT_TIMEOUT
) -> Registry:
    """List an MCP server's tools and write them as a registry file, atomically (nothing is
    written when the server fails or its schemas are not valid JSON Schemas).

    Returns:
        The registry the file holds.

    Raises:
        RegistryError: as ``mcp_tools``, or a tool's schema is invalid.
    """
    document = mcp_tools(command, timeout=timeout)
    registry = Registry.from_data(document, source=" ".join(command))
    atomic_write_text(out, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return registry
