"""The MCP hook: the MCP conventions' attributes on the tool spans of an MCP request.

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

The instrumentor does this for this package's own MCP face (``_mcp_face``).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType

from . import _conventions as names

__all__ = ["mcp_request"]

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
