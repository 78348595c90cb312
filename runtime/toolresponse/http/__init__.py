"""The HTTP binding of ToolResponse v1 (``schema/v1/http-binding.openapi.json``).

``create_app(registry)`` serves a registry as an ASGI application (the optional
extra ``toolresponse[http]``: Starlette, and uvicorn for ``toolresponse serve``);
``run_conformance(url)`` checks any server against the binding (the optional
extra ``toolresponse[conformance]``: schemathesis and httpx). Neither extra is
imported until its function is used.

``serve(registry)`` / ``serve_in_background(registry)`` run the server (what
``toolresponse serve`` runs), under ``AccessRules`` (Host and Origin allow-lists,
bearer token; a caller is ``ANONYMOUS_CALLER`` or ``BEARER_CALLER``) and
``ConnectionLimits``; ``http_status(response)`` is a response's status in the
binding. The MCP face serves under the same rules through this package's private
modules (``pyproject.toml`` lists each such import).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
