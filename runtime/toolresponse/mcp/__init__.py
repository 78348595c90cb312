"""MCP both ways, through the official SDK (the ``mcp`` extra): serve a ToolRegistry to MCP
clients, and attach MCP servers' tools to a ToolRegistry.

- ``mcp_server(registry)``: the SDK ``Server`` serving the registry's tools;
  ``serve_stdio(registry)`` over stdin/stdout; ``http_app(registry, token=...)``
  the streamable-HTTP app (``/mcp``) behind ``AccessGuard`` (loopback Host and
  Origin, optional bearer token); ``serve_http`` / ``serve_http_in_background``.
- ``attach(registry, target)``: each tool of the MCP server ``target`` (a stdio
  command or a URL) registered as an ``McpTool``; returns the ``McpConnection``.

Every result crosses MCP through ``toolresponse.interop``'s ``to_mcp`` /
``from_mcp`` (the binding: ``docs/mcp-binding.md``). Importing this package
imports the SDK: install ``toolresponse[mcp]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._client import (
        DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S,
    )
    from ._client import (
        McpConnectError as McpConnectError,
    )
    from ._client import (
        McpConnection as McpConnection,
    )
    from ._client import (
        McpTool as McpTool,
    )
    from ._client import (
        attach as attach,
    )
    from ._client import (
        connect as connect,
    )
    from ._client import (
        local_name as local_name,
    )
    from ._server import (
        MCP_PATH as MCP_PATH,
    )
    from ._server import (
        AccessGuard as AccessGuard,
    )
    from ._server import (
        http_app as http_app,
    )
    from ._server import (
        is_loopback as is_loopback,
    )
    from ._server import (
        listen as listen,
    )
    from ._server import (
        mcp_server as mcp_server,
    )
    from ._server import (
        serve_http as serve_http,
    )
    from ._server import (
        serve_http_in_background as serve_http_in_background,
    )
    from ._server import (
        serve_stdio as serve_stdio,
    )
    from ._server import (
        url_of as url_of,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._client": (
        "DEFAULT_TIMEOUT_S",
        "McpConnectError",
        "McpConnection",
        "McpTool",
        "attach",
        "connect",
        "local_name",
    ),
    "._server": (
        "MCP_PATH",
        "AccessGuard",
        "http_app",
        "is_loopback",
        "listen",
        "mcp_server",
        "serve_http",
        "serve_http_in_background",
        "serve_stdio",
        "url_of",
    ),
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
