"""This package's own MCP face, instrumented from this side of the layers (the face cannot
import this package, which sits above it):

* ``wrap_served_call`` wraps ``McpToolService.call``, what the MCP server does with each
  ``tools/call``, in ``mcp_request`` with the request's JSON-RPC id, session, protocol version
  and transport (``pipe`` over stdio; ``tcp`` and ``http`` over streamable HTTP), so that the
  registry's ``execute_tool`` span of the call carries them;
* ``wrap_remote_acall`` and ``wrap_remote_call`` wrap ``McpConnection.acall`` and ``call``, a
  remote tool's call (what ``McpTool`` runs), which happens inside the calling registry's
  ``execute_tool`` span: that span gets ``mcp.method.name`` (``tools/call``),
  ``network.transport`` and, for a URL, ``network.protocol.name``, ``server.address`` and
  ``server.port``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from opentelemetry import trace

from . import _conventions as names
from ._mcp import mcp_request
from ._telemetry import current, server_attributes

if TYPE_CHECKING:
    from .. import ToolResponse
    from ..mcp import McpConnection, McpToolCall, McpToolService

__all__ = ["remote_attributes", "wrap_remote_acall", "wrap_remote_call", "wrap_served_call"]

_log = logging.getLogger("toolresponse.otel")

_TOOLS_CALL = "tools/call"


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
