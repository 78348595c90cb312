"""ToolResponse v1: a structured contract for the results that AI agents' tools return.

The core of the public API, declared once in ``__init__.pyi``: each name is imported on first
use (``lazy_loader``), so that a command such as ``toolresponse validate`` loads only what it
needs. Each face (``toolresponse.interop``, ``.http``, ``.mcp`` ...) declares its own names;
``docs/architecture.md`` draws the layers.
"""

import lazy_loader

__version__ = "1.0.0"
"""The package's version; the protocol's is ``v1`` (the schema's ``$id``), a different number."""

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
