"""MCP: the MCP conventions' attributes on the tool spans of MCP calls (docs/observability.md, "MCP").

``mcp_request`` (no OpenTelemetry package needed) makes every tool span started inside it carry
the request's attributes. The MCP face cannot import this package, so it is instrumented from
here (``start_served``, ``mark_remote``).
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from . import _conventions as names

if TYPE_CHECKING:
    from ..mcp import McpConnection, McpToolService
    from ..mcp._service import McpToolCall
    from ._telemetry import Telemetry

_EMPTY: Mapping[str, str] = MappingProxyType({})

MCP_ATTRIBUTES: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "toolresponse_otel_mcp_attributes", default=_EMPTY
)
"""The MCP attributes of the request being served (empty outside one)."""


class McpRequest:
    """The context of ``mcp_request``: the attributes are current from its start to its end."""

    def __init__(self, attributes: Mapping[str, str]) -> None:
        self._attributes = MappingProxyType(dict(attributes))

    def __enter__(self) -> McpRequest:
        self._token = MCP_ATTRIBUTES.set(self._attributes)
        return self

    def __exit__(self, *_exc_info: object) -> None:
        MCP_ATTRIBUTES.reset(self._token)

    def ended(self, result: Any) -> Any:
        """What a traced call returns (the attributes end with the ``with``)."""
        return result


def mcp_request(
    method: str = "tools/call",
    *,
    request_id: str | int | None = None,
    session_id: str | None = None,
    protocol_version: str | None = None,
    transport: str | None = None,
    protocol_name: str | None = None,
) -> McpRequest:
    """Tool spans started inside (in this task or thread and those it starts) carry the MCP
    attributes of this request; ``request_id`` is recorded as a string, ``transport`` is ``pipe``
    for stdio and ``tcp`` for HTTP."""
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
    return McpRequest(attributes)


def start_served(telemetry: Telemetry, service: McpToolService, request: McpToolCall) -> McpRequest:
    """``McpToolService.aexecute`` inside ``mcp_request``, for its tool span."""
    return mcp_request(
        "tools/call",
        request_id=request.request_id,
        session_id=request.session_id,
        protocol_version=request.protocol_version,
        transport=service.transport,
        protocol_name="http" if service.transport == "tcp" else None,
    )


def mark_remote(telemetry: Telemetry, connection: McpConnection, *args: Any, **kwargs: Any) -> None:
    """A remote tool's call (``McpConnection.aexecute``/``execute``): the MCP client attributes on the
    tool span it runs in (the server is a URL, or a command on a pipe); the call goes on untraced."""
    from opentelemetry import trace  # only an instrumented process gets here

    span = trace.get_current_span()
    if span.is_recording():
        target = connection.target
        transport = {names.NETWORK_TRANSPORT: "pipe"}
        if isinstance(target, str):
            transport = {names.NETWORK_TRANSPORT: "tcp", names.NETWORK_PROTOCOL_NAME: "http"}
            transport.update(names.server_attributes(target))
        span.set_attributes({names.MCP_METHOD_NAME: "tools/call", **transport})
