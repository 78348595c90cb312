"""A ToolRegistry served to MCP clients through the official SDK's low-level ``Server``.

Its handlers are thin adapters over an ``McpToolService`` (``tools/list`` the tools the caller may
see, ``tools/call`` through the registry's policies, timeouts, breaker and listeners), and every
answer, an error one included, is ``to_mcp(response)``. ``serve_stdio`` runs it over stdin and
stdout (caller ``"stdio"``); ``http_app`` is the streamable-HTTP app (``/mcp``) behind the HTTP
binding's ``AccessGuard``, run by the binding's server (``serve_http``).
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from .. import __version__
from ..http import AccessRules, ConnectionLimits, serve, serve_in_background
from ..http._access import AccessGuard
from ..http._serve import DEFAULT_HOST
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
    """The streamable-HTTP ASGI app serving ``registry`` at ``/mcp`` (stateless: each POST is one
    exchange), behind ``AccessGuard(access)`` (default ``AccessRules()``: loopback Host and
    Origin, no token), calling the registry as ``access.caller``. The SDK's own DNS-rebinding
    check is off: the guard is the one copy of that rule (it knows what ``--allow-host`` adds)."""
    rules = access or AccessRules()
    server = mcp_server(registry, caller=rules.caller, transport="tcp")
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return AccessGuard(app, rules)


def endpoint_url(base_url: str) -> str:
    """The streamable-HTTP endpoint of a server whose base URL is ``base_url``."""
    return base_url.rstrip("/") + MCP_PATH


def serve_http(
    app: Any, sock: socket.socket, *, log_level: str = "warning", limits: ConnectionLimits | None = None
) -> None:
    """Run ``app`` on the listening ``sock`` (``toolresponse.http.listen``) until SIGINT or SIGTERM,
    under the HTTP binding's connection limits."""
    serve(app, sock, log_level=log_level, access_log=False, limits=limits)


@contextlib.contextmanager
def serve_http_in_background(
    app: Any, *, host: str = DEFAULT_HOST, port: int = 0, limits: ConnectionLimits | None = None
) -> Iterator[str]:
    """Serve ``app`` in a background thread (``toolresponse.http.serve_in_background``); yields the
    endpoint URL (``.../mcp``)."""
    with serve_in_background(app, host=host, port=port, limits=limits) as url:
        yield endpoint_url(url)
