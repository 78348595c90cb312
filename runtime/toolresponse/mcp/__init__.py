"""MCP both ways, through the official SDK (the ``mcp`` extra; ``docs/mcp-binding.md``).

``serve_stdio``, ``http_app`` and ``serve_http`` serve a registry's tools; ``attach`` registers
each tool of an MCP server in a registry. Every result crosses MCP through ``to_mcp`` /
``from_mcp``. The classes import without the SDK; a connection made without it is an
``ImportError`` naming the extra.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
