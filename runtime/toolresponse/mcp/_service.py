"""What the MCP server does with a registry, without the SDK: ``tools/list`` and ``tools/call``
on behalf of one caller (``docs/security.md``); ``toolresponse.otel`` wraps ``aexecute``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from .._errors import warn_renamed
from .._response import ToolResponse
from ..tools._registry import ToolRegistry

STDIO_CALLER: Final = "stdio"
"""The caller identity of the requests an MCP server gets over stdio."""

Transport = Literal["pipe", "tcp"]
"""OpenTelemetry's ``network.transport``: ``pipe`` for stdio, ``tcp`` for streamable HTTP."""


@dataclass(frozen=True, kw_only=True, slots=True)
class McpToolCall:
    """One ``tools/call`` request as the server got it."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    request_id: str | int | None = None
    """The JSON-RPC id of the request (also the call's ``call_id``)."""
    session_id: str | None = None
    """The streamable-HTTP session (``Mcp-Session-Id``), None on stdio and stateless HTTP."""
    protocol_version: str | None = None


class McpToolService:
    """A registry's tools served to MCP clients on behalf of ``caller`` over ``transport``."""

    def __init__(self, registry: ToolRegistry, *, caller: str, transport: Transport) -> None:
        if type(caller) is not str or not caller:
            raise ValueError(f"caller must be a non-empty identity, not {caller!r}")
        if transport not in ("pipe", "tcp"):
            raise ValueError(f"transport must be 'pipe' or 'tcp', not {transport!r}")
        self.registry = registry
        self.caller = caller
        self.transport: Transport = transport

    def __repr__(self) -> str:
        return f"<McpToolService caller={self.caller!r} transport={self.transport}>"

    def list_tools(self) -> list[dict[str, Any]]:
        """The ``tools/list`` entries (MCP's shape) of the tools the caller may see."""
        return self.registry.tool_schemas("mcp", caller=self.caller)

    def input_schema(self, tool: str) -> dict[str, Any] | None:
        """The parameters schema of ``tool``, or None for a tool not served to the caller."""
        spec = self.registry.spec(tool, caller=self.caller)
        return None if spec is None else spec.parameters

    async def aexecute(self, request: McpToolCall) -> ToolResponse:
        """Answer one ``tools/call`` with the registry's ToolResponse (always one)."""
        call_id = None if request.request_id is None else str(request.request_id)
        return await self.registry.aexecute(
            request.tool, request.arguments, call_id=call_id, caller=self.caller
        )

    async def call(self, request: McpToolCall) -> ToolResponse:
        """Deprecated (removed in 2.0): the old name of ``aexecute``."""
        warn_renamed("McpToolService.call", "McpToolService.aexecute")
        return await self.aexecute(request)
