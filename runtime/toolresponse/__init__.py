"""ToolResponse v1: a structured contract for the results that AI agents' tools return.

The schema in ``schema/v1`` is the source of truth; the models and enums here
are generated from it, and ``validate`` checks any decoded JSON value against it.

The package is built in layers, each importing only those below it (the
import-linter contracts in ``pyproject.toml`` hold them; ``docs/architecture.md``
draws them). This module is the core of the public API, declared once in
``__init__.pyi``: each name is imported on first use (``lazy_loader``), so that a
command such as ``toolresponse validate`` loads only what it needs. Each face
(``toolresponse.interop``, ``.http``, ``.mcp`` ...) declares its own names.
"""

import lazy_loader

__version__ = "1.0.0"
"""The package's version; the protocol's is ``v1`` (the schema's ``$id``), a different number."""

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
