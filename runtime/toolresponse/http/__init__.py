"""The HTTP binding of ToolResponse v1 (``schema/v1/http-binding.openapi.json``).

``create_app(registry)`` serves a registry as an ASGI application (extra ``toolresponse[http]``),
``serve``/``serve_in_background`` run it under ``AccessRules`` and ``ConnectionLimits``, and
``run_conformance(url)`` checks any server against the binding (extra ``toolresponse[conformance]``).
Neither extra is imported until its function is used.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
