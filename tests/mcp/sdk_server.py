"""A third-party-style MCP server written with the official SDK's high-level ``MCPServer``.

Run as ``python tests/mcp/sdk_server.py``: it serves over stdio. Its tools are
what the client tests need from a peer they did not write: a no-op (the
benchmark's baseline), an echo (which caller got which answer), a text-only
error, a result that asks for more input, a tool that kills the server
mid-call, one that never answers, and a count of the calls of that one still
in progress (so a test knows when they are all in flight, or that a cancelled
one has ended here too).
"""

from __future__ import annotations

import os

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

server = MCPServer("sdk-test-server")
_hanging = 0


@server.tool()
def noop() -> str:
    """Do nothing."""
    return "ok"


@server.tool()
def echo(text: str) -> str:
    """Answer with the text given."""
    return text


@server.tool()
def read_missing(path: str) -> str:
    """Fail the way a file server does, in text only."""
    raise ToolError(f"ENOENT: no such file or directory, open '{path}'")


@server.tool()
def ask() -> CallToolResult:
    """Ask for more input instead of answering (a result whose resultType is input_required)."""
    question = TextContent(type="text", text="which file?")
    return CallToolResult(content=[question], result_type="input_required")


@server.tool()
def die() -> str:
    """End the server process in the middle of the call."""
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answer (until the call is cancelled)."""
    global _hanging
    _hanging += 1
    try:
        await anyio.sleep_forever()
    finally:
        _hanging -= 1
    return "never"


@server.tool()
def hanging() -> int:
    """How many calls of ``hang`` are in progress."""
    return _hanging


if __name__ == "__main__":
    server.run()
