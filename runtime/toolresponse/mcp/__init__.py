"""MCP both ways, through the official SDK (the ``mcp`` extra; ``docs/mcp-binding.md``).

``serve_stdio(registry)``, ``http_app(registry, access=...)`` and ``serve_http`` serve a
registry's tools (``toolresponse mcp serve``); ``attach(registry, target)`` (``aattach`` from an
event loop) registers each tool of the MCP server ``target`` (a command or a URL) as an
``McpTool`` and returns the ``McpConnection``. Every result crosses MCP through
``toolresponse.interop``'s ``to_mcp`` / ``from_mcp``. The classes import without the SDK; a
connection made without it is an ``ImportError`` naming the extra.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
