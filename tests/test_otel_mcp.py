"""MCP calls as tool spans with the MCP conventions' attributes, wired by the instrumentor: a
real SDK client against our streamable-HTTP server (the served ``tools/call``), and our client
against our server over HTTP and stdio (the call made), recorded by the in-memory exporter."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import OtelCapture
from mcp import Client
from mcp_peers import serve_http_in_background

from toolresponse import ToolRegistry, ToolStatus
from toolresponse.mcp import McpToolService, attach, http_app
from toolresponse.mcp._service import McpToolCall
from toolresponse.tools import load_registry

HERE = Path(__file__).resolve().parent / "mcp"
FACTORY = "registry:build_registry"


def _served(otel: OtelCapture) -> dict[str, Any]:
    return dict(otel.span("execute_tool calculator").attributes)


@pytest.fixture
def served_url(otel: OtelCapture) -> Iterator[str]:
    """Our MCP server over streamable HTTP, in this process (so its spans are recorded here)."""
    with serve_http_in_background(http_app(load_registry(FACTORY, app_dir=str(HERE)))) as url:
        yield url


async def test_a_served_tools_call_carries_the_mcp_request_attributes(
    otel: OtelCapture, served_url: str
) -> None:
    """The server's tool span of a tools/call from the official SDK client: the method, the JSON-RPC
    id (also the call id), the protocol version and the transport; no session on a stateless server."""
    async with Client(served_url, read_timeout_seconds=30) as client:
        result = await client.call_tool("calculator", {"expression": "6 * 7"})
    assert False is result.is_error
    attributes = _served(otel)
    request_id = attributes["jsonrpc.request.id"]
    assert {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": request_id,
        "gen_ai.tool.call.id": request_id,
        "network.transport": "tcp",
        "network.protocol.name": "http",
    } == {key: attributes.get(key) for key in _MCP_SERVER_KEYS}
    assert isinstance(attributes["mcp.protocol.version"], str)
    assert attributes["mcp.protocol.version"]
    assert "mcp.session.id" not in attributes
    assert "success" == attributes["toolresponse.status"]


_MCP_SERVER_KEYS = (
    "mcp.method.name",
    "jsonrpc.request.id",
    "gen_ai.tool.call.id",
    "network.transport",
    "network.protocol.name",
)


async def test_a_served_call_names_its_session(otel: OtelCapture) -> None:
    """A call of a session (streamable HTTP with sessions) puts ``mcp.session.id`` on the span."""
    registry = ToolRegistry()

    @registry.tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    service = McpToolService(registry, caller="bearer", transport="tcp")
    call = McpToolCall(
        tool="echo", arguments={"text": "hi"}, request_id=7, session_id="s-1", protocol_version="v"
    )
    response = await service.aexecute(call)
    assert ToolStatus.SUCCESS is response.status
    attributes = dict(otel.span("execute_tool echo").attributes)
    assert ("s-1", "7", "v", "tcp") == (
        attributes["mcp.session.id"],
        attributes["jsonrpc.request.id"],
        attributes["mcp.protocol.version"],
        attributes["network.transport"],
    )


async def test_the_deprecated_call_of_a_service_warns_and_is_served_as_aexecute(otel: OtelCapture) -> None:
    """McpToolService.call, the name of 1.0, warns naming aexecute and goes through it: the
    request's attributes on the tool span, as instrument() wraps aexecute."""
    registry = ToolRegistry()

    @registry.tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    service = McpToolService(registry, caller="bearer", transport="tcp")
    call = McpToolCall(tool="echo", arguments={"text": "hi"}, request_id=8)
    with pytest.warns(DeprecationWarning, match=r"McpToolService\.call .* use McpToolService\.aexecute"):
        response = await service.call(call)
    assert "hi" == response.text
    assert "8" == dict(otel.span("execute_tool echo").attributes)["jsonrpc.request.id"]


def test_without_instrumentation_a_served_call_has_no_span(otel: OtelCapture) -> None:
    """Uninstrumented, the served call runs as before and records nothing."""
    otel.instrumentor.uninstrument()
    registry = load_registry(FACTORY, app_dir=str(HERE))
    service = McpToolService(registry, caller="stdio", transport="pipe")
    import asyncio

    response = asyncio.run(
        service.aexecute(McpToolCall(tool="calculator", arguments={"expression": "1 + 1"}))
    )
    assert ToolStatus.SUCCESS is response.status
    assert [] == otel.spans()


def test_our_client_over_http_marks_its_tool_span(otel: OtelCapture, served_url: str) -> None:
    """The calling registry's span of a remote tool: MCP's method, the transport, the server's
    address and port; and the server's span of the same call, in the same process."""
    registry = ToolRegistry()
    with attach(registry, served_url, prefix="remote_"):
        response = registry.execute("remote_calculator", {"expression": "2 + 2"})
    assert ToolStatus.SUCCESS is response.status
    client = dict(otel.span("execute_tool remote_calculator").attributes)
    port = int(served_url.rsplit(":", 1)[1].split("/")[0])
    assert {
        "mcp.method.name": "tools/call",
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "server.address": "127.0.0.1",
        "server.port": port,
    } == {key: client.get(key) for key in _MCP_CLIENT_KEYS}
    assert "tools/call" == _served(otel)["mcp.method.name"]


_MCP_CLIENT_KEYS = (
    "mcp.method.name",
    "network.transport",
    "network.protocol.name",
    "server.address",
    "server.port",
)


async def test_our_client_over_stdio_marks_its_tool_span(otel: OtelCapture) -> None:
    """A remote tool over stdio, called through ``aexecute``: transport ``pipe``, no address."""
    registry = ToolRegistry()
    command = [sys.executable, "-m", "toolresponse", "mcp", "serve", FACTORY, "--app-dir", str(HERE)]
    with attach(registry, command):
        response = await registry.aexecute("calculator", {"expression": "3 * 3"})
    assert ToolStatus.SUCCESS is response.status
    attributes = dict(otel.span("execute_tool calculator").attributes)
    assert {"mcp.method.name": "tools/call", "network.transport": "pipe"} == {
        key: attributes[key] for key in ("mcp.method.name", "network.transport")
    }
    assert "server.address" not in attributes
