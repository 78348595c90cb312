"""MCP both ways, through the official SDK (the ``mcp`` extra; ``docs/mcp-binding.md``).

- ``serve_stdio(registry)``: the registry's tools served over stdin/stdout through an
  ``McpToolService`` (``tools/list`` shows the tools the caller may see, ``tools/call``
  goes through the registry's policies on behalf of the caller); ``http_app(registry,
  access=...)`` the streamable-HTTP app (``/mcp``) behind the HTTP binding's access rules
  (``toolresponse.http.AccessRules``); ``serve_http`` runs it with the binding's server
  and connection limits. These are ``toolresponse mcp serve``.
- ``attach(registry, target)`` (``aattach`` from an event loop): each tool of the MCP
  server ``target`` (a stdio command or a URL) registered as an ``McpTool``, or none
  when the attach fails; returns the ``McpConnection``.

Every result crosses MCP through ``toolresponse.interop``'s ``to_mcp`` /
``from_mcp`` (the binding: ``docs/mcp-binding.md``). The server and the client
need the SDK: install ``toolresponse[mcp]`` (``McpToolService``, ``McpTool`` and
``McpConnection`` import without it; the SDK is loaded when a connection is
made, and a missing SDK is an ``ImportError`` with one line naming the extra).
Its exception, ``McpConnectError``, is declared at the top level.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
