"""A ToolRegistry served to MCP clients through the official SDK's low-level ``Server``.

Its handlers are thin adapters over an ``McpToolService``, and every answer, an error one
included, is ``to_mcp(response)``. The streamable-HTTP app is behind the HTTP binding's
``AccessGuard`` and run by the binding's server.
"""

from __future__ import annotations

import socket
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from .. import __version__
from ..http import AccessRules, ConnectionLimits, serve
from ..http._access import AccessGuard
from ..interop import to_mcp
from ..tools._registry import ToolRegistry
from ._service import STDIO_CALLER, McpToolCall, McpToolService, Transport

MCP_PATH: Final = "/mcp"
_SESSION_HEADER: Final = "mcp-session-id"


def mcp_server(
    registry: ToolRegistry, *, caller: str = STDIO_CALLER, transport: Transport = "pipe"
) -> Server[Any]:
    """The SDK's low-level ``Server`` serving ``registry``'s tools on behalf of ``caller``."""
    service = McpToolService(registry, caller=caller, transport=transport)

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool.model_validate(entry) for entry in service.list_tools()]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        headers = getattr(ctx.request, "headers", None)  # none on stdio
        session = headers.get(_SESSION_HEADER) if headers is not None else None
        request = McpToolCall(
            tool=params.name,
            arguments={} if params.arguments is None else dict(params.arguments),
            request_id=ctx.request_id,
            session_id=session if isinstance(session, str) and session else None,
            protocol_version=ctx.protocol_version,
        )
        return types.CallToolResult.model_validate(to_mcp(await service.aexecute(request)))

    return Server(
        "toolresponse",
        version=__version__,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=service.input_schema,
    )


def serve_stdio(registry: ToolRegistry) -> None:
    """Serve ``registry`` over stdin and stdout until the client closes stdin."""
    server = mcp_server(registry)

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)


def http_app(registry: ToolRegistry, *, access: AccessRules | None = None) -> Any:
    """The streamable-HTTP ASGI app serving ``registry`` at ``/mcp`` (stateless), behind
    ``AccessGuard(access)`` (default: loopback Host and Origin, no token), calling the registry as
    ``access.caller``."""
    rules = access or AccessRules()
    server = mcp_server(registry, caller=rules.caller, transport="tcp")
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        # the SDK's own DNS-rebinding check is off: the guard is the one copy of that rule
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return AccessGuard(app, rules)


def endpoint_url(base_url: str) -> str:
    """The streamable-HTTP endpoint of a server whose base URL is ``base_url``."""
    return base_url.rstrip("/") + MCP_PATH


def serve_http(
    app: Any, sock: socket.socket, *, log_level: str = "warning", limits: ConnectionLimits | None = None
) -> None:
    """Run ``app`` on the listening ``sock`` until SIGINT or SIGTERM, under the binding's limits."""
    serve(app, sock, log_level=log_level, access_log=False, limits=limits)
