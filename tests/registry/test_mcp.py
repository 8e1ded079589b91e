"""``planeval registry from-mcp``: a real MCP server over stdio, written with the SDK's own
server API (FastMCP; ``MCPServer`` in SDK 2.x), never a mock of the protocol."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.checks import check_plan
from harness.plan import Plan
from harness.registry import load_registry
from tests.cli_helpers import run_cli

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'planeval[mcp]')")

SERVER = '''
try:
    from mcp.server.mcpserver import MCPServer as Server  # SDK 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # SDK 1.x

from typing import Literal

server = Server("pictures")


@server.tool()
def fetch_image(url: str) -> str:
    """Download an image and return its path."""
    return "/tmp/a.png"


@server.tool()
def caption(image: str, style: Literal["short", "long"] = "short", max_words: int = 20) -> str:
    """Caption an image."""
    return "a cat"


if __name__ == "__main__":
    server.run()
'''


@pytest.fixture
def server(tmp_path: Path) -> list[str]:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    return [sys.executable, str(script)]


def test_tools_of_a_real_server_become_a_registry(
    server: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server's tools/list result is written and reads back as a registry with schemas."""
    out = tmp_path / "pictures.json"
    result = run_cli(capsys, "registry", "from-mcp", "--out", str(out), "--", *server)
    assert result.code == 0, result.err
    assert "2 tools (2 with a parameter schema)" in result.out
    document = json.loads(out.read_text())
    assert [t["name"] for t in document["tools"]] == ["fetch_image", "caption"]
    registry = load_registry(out)
    caption = registry.resolve("caption")
    assert caption is not None and caption.parameters is not None
    assert caption.parameters["required"] == ["image"]
    assert caption.description == "Caption an image."
    # the registry judges arguments: a wrong enum value and a missing image
    plan = Plan.from_dict(
        {"tasks": [{"id": "c", "capabilities": ["caption"], "arguments": {"style": "epic"}}]}
    )
    report = check_plan(plan, registry=registry)
    assert sorted(v.check for v in report.errors) == ["arguments_valid", "arguments_valid"]


def test_a_command_that_is_not_a_server_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A program that exits at once: one error line, exit 2, no file."""
    out = tmp_path / "r.json"
    result = run_cli(
        capsys,
        "registry",
        "from-mcp",
        "--out",
        str(out),
        "--timeout",
        "20",
        "--",
        sys.executable,
        "-c",
        "pass",
    )
    assert result.code == 2
    assert "MCP server" in result.err
    assert "Traceback" not in result.err
    assert not out.exists()


def test_a_missing_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    result = run_cli(
        capsys, "registry", "from-mcp", "--out", str(out), "--", "no-such-mcp-server-27"
    )
    assert result.code == 2
    assert "no such program on PATH" in result.err
    assert not out.exists()
