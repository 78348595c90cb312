"""The MCP conventions' attributes on the tool spans of MCP requests, served and made.

The MCP conventions say that an MCP instrumentation which finds a GenAI
instrumentation already tracing the tool call adds its attributes to that
``execute_tool`` span instead of starting a second one. An MCP server built
on the registry does this by running the call inside ``mcp_request``::

    with mcp_request("tools/call", request_id=7, session_id=session, transport="pipe"):
        response = registry.execute(name, arguments, call_id=str(7))

Every tool span started inside (in this thread or task, and in the worker
threads and tasks it starts) then carries ``mcp.method.name``,
``jsonrpc.request.id``, ``mcp.session.id``, ``mcp.protocol.version``,
``network.transport`` and ``network.protocol.name``, whichever were given.
Outside an instrumented process it costs one context-variable set and reset.

The instrumentor does this for this package's own MCP face, from this side of the layers
(the face cannot import this package, which sits above it):

* ``wrap_served_call`` wraps ``McpToolService.call``, what the MCP server does with each
  ``tools/call``, in ``mcp_request`` with the request's JSON-RPC id, session, protocol version
  and transport (``pipe`` over stdio; ``tcp`` and ``http`` over streamable HTTP);
* ``wrap_remote_acall`` and ``wrap_remote_call`` wrap ``McpConnection.acall`` and ``call``, a
  remote tool's call (what ``McpTool`` runs), inside the calling registry's ``execute_tool``
  span: that span gets ``mcp.method.name``
  (``tools/call``), ``network.transport`` and, for a URL, ``network.protocol.name``,
  ``server.address`` and ``server.port``.
"""

from __future__ import annotations

import contextvars
import functools
import logging
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from opentelemetry import trace

from . import _conventions as names
from ._telemetry import current, server_attributes

if TYPE_CHECKING:
    from .. import ToolResponse
    from ..mcp import McpConnection, McpToolCall, McpToolService

__all__ = ["mcp_request", "remote_attributes", "wrap_remote_acall", "wrap_remote_call", "wrap_served_call"]

_log = logging.getLogger("toolresponse.otel")

_TOOLS_CALL = "tools/call"

_EMPTY: Mapping[str, str] = MappingProxyType({})

MCP_ATTRIBUTES: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "toolresponse_otel_mcp_attributes", default=_EMPTY
)
"""The MCP attributes of the request being served (empty outside one)."""


@contextmanager
def mcp_request(
    method: str = "tools/call",
    *,
    request_id: str | int | None = None,
    session_id: str | None = None,
    protocol_version: str | None = None,
    transport: str | None = None,
    protocol_name: str | None = None,
) -> Iterator[None]:
    """Tool spans started inside carry the MCP attributes of this request.

    ``method`` is the JSON-RPC method (``tools/call``); ``request_id`` the JSON-RPC
    id (recorded as a string, as the conventions say); ``transport`` is ``pipe``
    for stdio and ``tcp`` for HTTP, ``protocol_name`` ``http`` where it applies.
    """
    if not isinstance(method, str) or not method:
        raise ValueError(f"the MCP method must be a non-empty string, not {method!r}")
    attributes = {names.MCP_METHOD_NAME: method}
    for key, value in (
        (names.JSONRPC_REQUEST_ID, request_id),
        (names.MCP_SESSION_ID, session_id),
        (names.MCP_PROTOCOL_VERSION, protocol_version),
        (names.NETWORK_TRANSPORT, transport),
        (names.NETWORK_PROTOCOL_NAME, protocol_name),
    ):
        if value is not None and not isinstance(value, bool):
            attributes[key] = str(value)
    token = MCP_ATTRIBUTES.set(MappingProxyType(attributes))
    try:
        yield
    finally:
        MCP_ATTRIBUTES.reset(token)


ServedCall = Callable[["McpToolService", "McpToolCall"], Coroutine[Any, Any, "ToolResponse"]]
AsyncRemoteCall = Callable[
    ["McpConnection", str, Mapping[str, Any] | None], Coroutine[Any, Any, "ToolResponse"]
]
RemoteCall = Callable[["McpConnection", str, Mapping[str, Any] | None], "ToolResponse"]


def wrap_served_call(original: ServedCall) -> ServedCall:
    """``McpToolService.call`` inside ``mcp_request``, so that its tool span has the request's attributes."""

    @functools.wraps(original)
    async def call(self: McpToolService, request: McpToolCall) -> ToolResponse:
        if current() is None:
            return await original(self, request)
        over_http = self.transport == "tcp"
        with mcp_request(
            _TOOLS_CALL,
            request_id=request.request_id,
            session_id=request.session_id,
            protocol_version=request.protocol_version,
            transport=self.transport,
            protocol_name="http" if over_http else None,
        ):
            return await original(self, request)

    return call


def remote_attributes(target: object) -> dict[str, Any]:
    """The MCP client attributes of a call to the server ``target`` (a URL, or a command)."""
    attributes: dict[str, Any] = {names.MCP_METHOD_NAME: _TOOLS_CALL}
    if not isinstance(target, str):
        attributes[names.NETWORK_TRANSPORT] = "pipe"
        return attributes
    attributes[names.NETWORK_TRANSPORT] = "tcp"
    attributes[names.NETWORK_PROTOCOL_NAME] = "http"
    attributes.update(server_attributes(target))
    return attributes


def _mark_remote(connection: McpConnection, tool: str) -> None:
    if current() is None:
        return
    try:
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attributes(remote_attributes(connection.target))
    except Exception:  # the telemetry never changes the call's answer
        _log.exception("could not record the MCP attributes of a call of tool %r", tool)


def wrap_remote_acall(original: AsyncRemoteCall) -> AsyncRemoteCall:
    """``McpConnection.acall`` that puts the MCP client attributes on the tool span it runs in."""

    @functools.wraps(original)
    async def acall(
        self: McpConnection, tool: str, arguments: Mapping[str, Any] | None = None
    ) -> ToolResponse:
        _mark_remote(self, tool)
        return await original(self, tool, arguments)

    return acall


def wrap_remote_call(original: RemoteCall) -> RemoteCall:
    """``McpConnection.call``, the same for a call from a thread."""

    @functools.wraps(original)
    def call(self: McpConnection, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResponse:
        _mark_remote(self, tool)
        return original(self, tool, arguments)

    return call
