"""A third-party MCP server that writes the MCP ToolFailure member, with the official SDK alone.

Run as ``python tests/mcp/tool_failure_server.py``: it serves over stdio. Each tool fails the way a
server implementing the open ToolFailure proposal (SEP-3313) answers: an error result whose
``_meta["io.modelcontextprotocol/toolFailure"]`` classifies the failure, beside text for the model.

- ``reconnect``: governance ``auth_required`` with the proposal's own example values;
- ``busy(not_before_ms)``: reliability ``retryable_transient_error``, retryable, not before the
  given time (milliseconds since the Unix epoch);
- ``quota``: reliability with a code of its own (``quota_exhausted``), retryable;
- ``garbled``: a member without ``correlationId`` (malformed), beside an ENOENT text;
- ``forecast(city)``: a tool with an output schema whose failure carries ``structuredContent``
  that breaks that schema (as some servers send), with a ``resource_not_found`` member.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import BaseModel

TOOL_FAILURE = "io.modelcontextprotocol/toolFailure"

server = MCPServer("tool-failure-server")


def _failed(text: str, failure: dict[str, Any], structured: dict[str, Any] | None = None) -> CallToolResult:
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": text}],
        "isError": True,
        "_meta": {TOOL_FAILURE: failure},
    }
    if structured is not None:
        result["structuredContent"] = structured
    return CallToolResult.model_validate(result)


@server.tool()
def reconnect() -> CallToolResult:
    """Refused until the user connects their account again."""
    return _failed(
        "Policy blocked: account not connected",
        {
            "class": "governance",
            "code": "auth_required",
            "correlationId": "req_8f2c1a-attempt-3",
            "agentGuidance": "Ask the user to reconnect their account, then retry the same call.",
        },
    )


@server.tool()
def busy(not_before_ms: int) -> CallToolResult:
    """Overloaded: try again after the given time."""
    return _failed(
        "Upstream overloaded.",
        {
            "class": "reliability",
            "code": "retryable_transient_error",
            "retryable": True,
            "retryNotBefore": not_before_ms,
            "correlationId": "busy-1",
        },
    )


@server.tool()
def quota() -> CallToolResult:
    """Out of quota for now."""
    return _failed(
        "Your plan's quota is used up.",
        {"class": "reliability", "code": "quota_exhausted", "retryable": True, "correlationId": "quota-1"},
    )


@server.tool()
def garbled() -> CallToolResult:
    """A failure whose classification lacks its correlation id."""
    return _failed(
        "ENOENT: no such file or directory, open '/srv/notes.txt'",
        {"class": "capability", "code": "resource_not_found"},
    )


class Forecast(BaseModel):
    city: str
    temp_c: float


@server.tool()
def forecast(city: str) -> Annotated[CallToolResult, Forecast]:
    """The weather in a city."""
    return _failed(
        f"No forecast for {city}.",
        {"class": "capability", "code": "resource_not_found", "correlationId": "fc-1"},
        structured={"error": "unknown city", "city": city},
    )


if __name__ == "__main__":
    server.run()
