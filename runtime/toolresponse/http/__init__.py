"""The HTTP binding of ToolResponse v1 (``schema/v1/http-binding.openapi.json``).

``create_app`` serves a registry (extra ``http``), ``run_conformance`` checks any server against
the binding (extra ``conformance``); neither extra is imported until its function is used.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
