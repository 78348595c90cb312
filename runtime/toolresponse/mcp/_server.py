"""A ToolRegistry served to MCP clients through the official SDK's low-level ``Server``.

``mcp_server(registry)`` is the SDK ``Server`` whose ``tools/list`` lists the
registry's tools (``inputSchema`` from their parameter schemas, ``outputSchema``
where a tool has one) and whose ``tools/call`` goes through
``registry.aexecute``, so that timeouts, the breaker, parameter validation and
listeners apply; every answer is ``to_mcp(response)`` (``toolresponse.interop``),
an error one included (CIRCUIT_OPEN, TIMEOUT, INVALID_PARAM and an unknown tool
alike: the model reads them and can correct itself).

``serve_stdio(registry)`` runs it over stdin/stdout; ``http_app(registry)`` is
the streamable-HTTP ASGI app (``/mcp``) behind the access checks of
``AccessGuard``; ``serve_http`` runs that with uvicorn on loopback.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import signal
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final
from urllib.parse import urlsplit

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from .. import __version__
from .._response import ToolResponse
from ..interop import to_mcp
from ..tools import ToolRegistry

__all__ = [
    "DEFAULT_HOST",
    "MCP_PATH",
    "AccessGuard",
    "http_app",
    "is_loopback",
    "mcp_server",
    "serve_http",
    "serve_http_in_background",
    "serve_stdio",
]

DEFAULT_HOST: Final = "127.0.0.1"
MCP_PATH: Final = "/mcp"
SERVER_NAME: Final = "toolresponse"


def mcp_server(registry: ToolRegistry, *, name: str = SERVER_NAME) -> Server[Any]:
    """The SDK's low-level ``Server`` serving ``registry``'s tools."""

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = [types.Tool.model_validate(entry) for entry in registry.tool_schemas("mcp")]
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        call_id = None if ctx.request_id is None else str(ctx.request_id)
        arguments = {} if params.arguments is None else params.arguments
        response = await registry.aexecute(params.name, arguments, call_id=call_id)
        return result_model(response)

    def input_schema(tool: str) -> dict[str, Any] | None:
        spec = registry.spec(tool)
        return None if spec is None else spec.parameters

    return Server(
        name,
        version=__version__,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=input_schema,
    )


def result_model(response: ToolResponse) -> types.CallToolResult:
    """``to_mcp(response)`` as the SDK's ``CallToolResult``."""
    return types.CallToolResult.model_validate(to_mcp(response))


async def serve_stdio_async(registry: ToolRegistry) -> None:
    """Serve ``registry`` over this process's stdin and stdout until stdin closes."""
    server = mcp_server(registry)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_stdio(registry: ToolRegistry) -> None:
    """Serve ``registry`` over stdin and stdout until the client closes stdin."""
    anyio.run(serve_stdio_async, registry)


# -- streamable HTTP ----------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only."""
    if host in ("localhost", "localhost.", ""):
        return host != ""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


_LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "[::1]", "::1")


def _refusal(status: int, response: ToolResponse, extra: Iterable[tuple[bytes, bytes]] = ()) -> Any:
    body = response.to_json_bytes()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]

    async def send_refusal(send: Callable[[dict[str, Any]], Any]) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return send_refusal


class AccessGuard:
    """ASGI middleware in front of the streamable-HTTP app: ``Host`` and ``Origin`` must be in
    the allow-lists (loopback names by default, against DNS rebinding, as the MCP spec asks),
    and when a ``token`` is set every request must carry ``Authorization: Bearer <token>``
    (compared in constant time, never logged). A refusal is a ToolResponse with ACCESS_DENIED:
    403 for a foreign Host or Origin, 401 for a missing or wrong token."""

    def __init__(
        self,
        app: Any,
        *,
        token: str | None = None,
        allowed_hosts: Iterable[str] = _LOOPBACK_NAMES,
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self.app = app
        self._token = None if token is None else token.encode("utf-8")
        self._hosts = frozenset(host.lower() for host in allowed_hosts)
        self._origins = frozenset(origin.lower().rstrip("/") for origin in allowed_origins)

    def _host_allowed(self, host: str) -> bool:
        name = host.lower()
        if name.startswith("["):
            name = name.split("]")[0] + "]"
        else:
            name = name.rsplit(":", 1)[0] if name.count(":") == 1 else name
        return name in self._hosts

    def _origin_allowed(self, origin: str) -> bool:
        normalized = origin.lower().rstrip("/")
        if normalized in self._origins:
            return True
        parts = urlsplit(normalized)
        if parts.scheme not in ("http", "https") or parts.hostname is None:
            return False
        hostname = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        return hostname in self._hosts

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]
        }
        host = headers.get("host", "")
        if not self._host_allowed(host):
            refusal = _denied(f"Host {host!r} is not allowed on this MCP server.", reason="host", value=host)
            await _refusal(403, refusal)(send)
            return
        origin = headers.get("origin")
        if origin is not None and not self._origin_allowed(origin):
            message = f"Origin {origin!r} is not allowed on this MCP server."
            await _refusal(403, _denied(message, reason="origin", value=origin))(send)
            return
        if self._token is not None:
            scheme, _, given = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                given.strip().encode("utf-8"), self._token
            ):
                reason = "no_token" if not given else "wrong_token"
                message = "This MCP server needs a bearer token (Authorization: Bearer ...)."
                if reason == "wrong_token":
                    message = "The bearer token is not valid for this MCP server."
                challenge = [(b"www-authenticate", b'Bearer realm="toolresponse"')]
                await _refusal(401, _denied(message, reason=reason), challenge)(send)
                return
        await self.app(scope, receive, send)


def _denied(message: str, *, reason: str, value: str | None = None) -> ToolResponse:
    details: dict[str, Any] = {"reason": reason}
    if value is not None:
        details["value"] = value[:200]
    return ToolResponse.error("ACCESS_DENIED", message, details=details)


def http_app(
    registry: ToolRegistry,
    *,
    host: str = DEFAULT_HOST,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
) -> Any:
    """The streamable-HTTP ASGI app serving ``registry`` at ``/mcp`` (stateless: each POST is one
    exchange), behind ``AccessGuard`` (loopback Host/Origin plus ``allowed_*``; ``token``)."""
    server = mcp_server(registry)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, host=host)
    hosts = (*_LOOPBACK_NAMES, *allowed_hosts)
    if not is_loopback(host) and host not in ("0.0.0.0", "::"):  # noqa: S104  (a bind-all host is never a Host header)
        hosts = (*hosts, host)
    return AccessGuard(app, token=token, allowed_hosts=hosts, allowed_origins=allowed_origins)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port``; raises ``OSError``."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(512)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    """The streamable-HTTP endpoint's URL on a listening socket."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{MCP_PATH}"


def serve_http(app: Any, sock: socket.socket, *, log_level: str = "warning") -> None:
    """Run uvicorn with ``app`` on ``sock`` until SIGINT or SIGTERM."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level=log_level, access_log=False, server_header=False))
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        with sock:
            server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def serve_http_in_background(app: Any, *, host: str = DEFAULT_HOST, port: int = 0) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a daemon thread; yields the endpoint URL (``.../mcp``)."""
    import uvicorn

    sock = listen(host, port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", access_log=False, server_header=False))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="toolresponse-mcp", daemon=True
    )
    with sock:
        thread.start()
        try:
            yield url_of(sock)
        finally:
            server.should_exit = True
            thread.join()
