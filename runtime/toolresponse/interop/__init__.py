"""ToolResponse as the hub: other frameworks' tool results converted in and out.

One private module per dialect (MCP ``CallToolResult``, OpenAI tool messages,
Anthropic ``tool_result``, LangChain ``ToolMessage``, HelloAgents dicts), each
a pair ``to_<dialect>(response, ...)`` / ``from_<dialect>(record)`` written
once and used by every face (CLI, agent, MCP server and client). A record that
is not valid in its own dialect raises ``DialectError`` (a
``ResponseValidationError`` naming the dialect, each violation with its JSON
pointer). The mappings are plain data in and out: no framework library is
imported unless a function that needs one is called.
"""

from __future__ import annotations

from .._lazy import lazy_exports

# module -> the public names it defines; each imported on first use.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "._mcp": (
        "CONTENT_MEMBER",
        "INFERENCE_TABLE",
        "MCP_META_KEY",
        "MCP_RESULT_SHAPE",
        "PARTIAL_MARKER",
        "STRUCTURED_MEMBER",
        "TOOL_FAILURE_KEY",
        "from_mcp",
        "from_mcp_error",
        "infer_code",
        "to_mcp",
    ),
}

__getattr__, __dir__, _names = lazy_exports(__name__, _EXPORTS)
__all__ = list(_names)
