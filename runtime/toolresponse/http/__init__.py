"""The HTTP binding of ToolResponse v1 (``schema/v1/http-binding.openapi.json``).

``create_app(registry)`` serves a registry as an ASGI application (the optional
extra ``toolresponse[http]``: Starlette, and uvicorn for ``toolresponse serve``);
``run_conformance(url)`` checks any server against the binding (the optional
extra ``toolresponse[conformance]``: schemathesis and httpx). Neither extra is
imported until its function is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolresponse_generated import ToolStatus
from toolresponse_generated.http_binding import CALL_ID_HEADER, HTTP_STATUS, MAX_BODY_BYTES, SUCCESS_STATUS

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .._response import ToolResponse as ToolResponse
    from ._access import ANONYMOUS_CALLER as ANONYMOUS_CALLER
    from ._access import ANY as ANY
    from ._access import BEARER_CALLER as BEARER_CALLER
    from ._access import LOOPBACK_HOSTS as LOOPBACK_HOSTS
    from ._access import TOKEN_ENV as TOKEN_ENV
    from ._access import AccessGuard as AccessGuard
    from ._access import AccessRules as AccessRules
    from ._access import TokenError as TokenError
    from ._access import is_loopback as is_loopback
    from ._access import load_token as load_token
    from ._app import ServableRegistry as ServableRegistry
    from ._app import create_app as create_app
    from ._conformance import DEFAULT_MAX_EXAMPLES as DEFAULT_MAX_EXAMPLES
    from ._conformance import DEFAULT_SEED as DEFAULT_SEED
    from ._conformance import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S
    from ._conformance import ConformanceReport as ConformanceReport
    from ._conformance import report_conformance as report_conformance
    from ._conformance import run_conformance as run_conformance
    from ._serve import DEFAULT_BODY_TIMEOUT_S as DEFAULT_BODY_TIMEOUT_S
    from ._serve import DEFAULT_HOST as DEFAULT_HOST
    from ._serve import DEFAULT_PORT as DEFAULT_PORT
    from ._serve import ConnectionLimits as ConnectionLimits
    from ._serve import listen as listen
    from ._serve import serve as serve
    from ._serve import serve_in_background as serve_in_background
    from ._serve import url_of as url_of

# MAX_BODY_BYTES (the largest request body a server accepts; one byte more is refused) and
# CALL_ID_HEADER (the request header of the caller's id for a call) are the generated
# constants of the binding document, re-exported.


def http_status(response: ToolResponse) -> int:
    """The HTTP status of ``response`` in the binding: 200 for success and partial, else its code's."""
    code = response.code
    if response.status is not ToolStatus.ERROR or code is None:
        return SUCCESS_STATUS
    return HTTP_STATUS[code]


_EXPORTS: dict[str, tuple[str, ...]] = {
    "._access": (
        "ANONYMOUS_CALLER",
        "ANY",
        "BEARER_CALLER",
        "LOOPBACK_HOSTS",
        "TOKEN_ENV",
        "AccessGuard",
        "AccessRules",
        "TokenError",
        "is_loopback",
        "load_token",
    ),
    "._app": ("ServableRegistry", "create_app"),
    "._conformance": (
        "DEFAULT_MAX_EXAMPLES",
        "DEFAULT_SEED",
        "DEFAULT_TIMEOUT_S",
        "ConformanceReport",
        "report_conformance",
        "run_conformance",
    ),
    "._serve": (
        "DEFAULT_BODY_TIMEOUT_S",
        "DEFAULT_HOST",
        "DEFAULT_PORT",
        "ConnectionLimits",
        "listen",
        "serve",
        "serve_in_background",
        "url_of",
    ),
}

__getattr__, __dir__, _names = lazy_exports(__name__, _EXPORTS)
__all__ = ["CALL_ID_HEADER", "MAX_BODY_BYTES", "http_status", *_names]
