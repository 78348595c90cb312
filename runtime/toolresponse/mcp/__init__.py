"""MCP both ways, through the official SDK (the ``mcp`` extra; ``docs/mcp-binding.md``).

- ``mcp_server(registry)``: the SDK ``Server`` serving the registry's tools through an
  ``McpToolService``; ``serve_stdio(registry)``; ``http_app(registry, access=...)`` the
  streamable-HTTP app (``/mcp``) behind the HTTP binding's access rules, run by ``serve_http``
  or ``serve_http_in_background``.
- ``attach(registry, target)`` (``aattach`` from an event loop): each tool of the server
  ``target`` (a stdio command or a URL) registered as an ``McpTool``, or none when the attach
  fails; returns the ``McpConnection``.

Results cross MCP through ``toolresponse.interop``'s ``to_mcp``/``from_mcp``. The classes import
without the SDK; making a connection without it raises ``ImportError`` naming the extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .._errors import McpConnectError as McpConnectError
    from ._attach import McpTool as McpTool
    from ._attach import aattach as aattach
    from ._attach import attach as attach
    from ._attach import connect as connect
    from ._attach import local_name as local_name
    from ._client import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S
    from ._client import MCP_EXTRA_HINT as MCP_EXTRA_HINT
    from ._client import McpConnection as McpConnection
    from ._client import require_sdk as require_sdk
    from ._server import MCP_PATH as MCP_PATH
    from ._server import endpoint_url as endpoint_url
    from ._server import http_app as http_app
    from ._server import mcp_server as mcp_server
    from ._server import serve_http as serve_http
    from ._server import serve_http_in_background as serve_http_in_background
    from ._server import serve_stdio as serve_stdio
    from ._service import STDIO_CALLER as STDIO_CALLER
    from ._service import McpToolCall as McpToolCall
    from ._service import McpToolService as McpToolService

_EXPORTS: dict[str, tuple[str, ...]] = {
    "toolresponse._errors": ("McpConnectError",),
    "._client": ("DEFAULT_TIMEOUT_S", "MCP_EXTRA_HINT", "McpConnection", "require_sdk"),
    "._attach": ("McpTool", "aattach", "attach", "connect", "local_name"),
    "._server": (
        "MCP_PATH",
        "endpoint_url",
        "http_app",
        "mcp_server",
        "serve_http",
        "serve_http_in_background",
        "serve_stdio",
    ),
    "._service": ("STDIO_CALLER", "McpToolCall", "McpToolService"),
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
