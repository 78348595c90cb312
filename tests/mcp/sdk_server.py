"""A third-party-style MCP server written with the official SDK's high-level ``MCPServer``.

Run as ``python tests/mcp/sdk_server.py``: it serves over stdio. Its tools are
what the client tests need from a peer they did not write: a no-op (the
benchmark's baseline), a text-only error, a tool that kills the server
mid-call, and one that never answers.
"""

from __future__ import annotations

import os

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("sdk-test-server")


@server.tool()
def noop() -> str:
    """Do nothing."""
    return "ok"


@server.tool()
def read_missing(path: str) -> str:
    """Fail the way a file server does, in text only."""
    raise ToolError(f"ENOENT: no such file or directory, open '{path}'")


@server.tool()
def die() -> str:
    """End the server process in the middle of the call."""
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answer."""
    await anyio.sleep_forever()
    return "never"


if __name__ == "__main__":
    server.run()
