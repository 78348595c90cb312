"""The HTTP binding of ToolResponse v1 (``schema/v1/http-binding.openapi.json``).

``create_app(registry)`` serves a registry as an ASGI application (the optional
extra ``toolresponse[http]``: Starlette, and uvicorn for ``toolresponse serve``);
``run_conformance(url)`` checks any server against the binding (the optional
extra ``toolresponse[conformance]``: schemathesis and httpx). Neither extra is
imported until its function is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolresponse_generated import ERROR_CODE_INFO, ToolStatus

if TYPE_CHECKING:
    from .._response import ToolResponse
    from ._app import ServableRegistry, create_app
    from ._conformance import ConformanceReport, run_conformance

__all__ = [
    "CALL_ID_HEADER",
    "MAX_BODY_BYTES",
    "ConformanceReport",
    "ServableRegistry",
    "create_app",
    "http_status",
    "run_conformance",
]

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body a server accepts (1 MiB); one byte more is answered 413."""

CALL_ID_HEADER = "X-Call-Id"
"""The request header that carries the caller's id for a call (1 to 128 visible ASCII characters)."""


def http_status(response: ToolResponse) -> int:
    """The HTTP status of ``response`` in the binding: 200 for success and partial, else its code's."""
    code = response.code
    if response.status is not ToolStatus.ERROR or code is None:
        return 200
    return ERROR_CODE_INFO[code].http_status


_LAZY = {
    "create_app": "._app",
    "ServableRegistry": "._app",
    "run_conformance": "._conformance",
    "ConformanceReport": "._conformance",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name, __name__), name)
