"""The HTTP binding of ToolResponse v1 as an ASGI application: a registry of tools, served.

Every fact of the binding comes from the constants generated from its OpenAPI document, and
every answer has a ToolResponse body, 500 INTERNAL_ERROR included.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import math
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from http import HTTPStatus
from typing import Any, Protocol

try:
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import Response
    from starlette.routing import Route
    from starlette.types import ASGIApp, Receive, Scope, Send
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"serving over HTTP needs the optional extra 'http' ({missing.name} is not installed):"
        " pip install 'toolresponse[http]'",
        name=missing.name,
    ) from None

from toolresponse_generated import ErrorCode, ToolStatus
from toolresponse_generated.http_binding import (
    ALLOW_HEADER,
    BODY_TOO_LARGE_CODE,
    BODY_TOO_LARGE_STATUS,
    CALL_ID_HEADER,
    CALL_ID_MAX_LENGTH,
    CALL_ID_MIN_LENGTH,
    CALL_ID_PATTERN,
    HTTP_STATUS,
    INVOKE_METHOD,
    INVOKE_PATH,
    LIST_TOOLS_METHOD,
    LIST_TOOLS_PATH,
    MAX_BODY_BYTES,
    MEDIA_TYPE,
    METHOD_NOT_ALLOWED_CODE,
    METHOD_NOT_ALLOWED_STATUS,
    REQUEST_TIMEOUT_CODE,
    REQUEST_TIMEOUT_STATUS,
    RETRY_AFTER_HEADER,
    RETRY_AFTER_STATUSES,
    SUCCESS_STATUS,
    TOOL_NAME_PARAMETER,
)

from .._errors import MalformedJsonError
from .._response import ToolResponse, loads_strict
from .._suggest import is_finite_number
from ..tools._prepared import ToolSpec
from ..validation import to_json_data
from ._access import AccessGuard, AccessRules
from ._serve import DEFAULT_BODY_TIMEOUT_S

_CALL_ID = re.compile(CALL_ID_PATTERN)
# How much of a refused body is read and dropped before the 413 (unless the client waits for
# 100 Continue): closing while the client still sends resets the connection, losing the answer.
_LINGER_BYTES = 16 * 1024 * 1024
_JSON_TYPES = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "a string"}
_JSON_TYPES[list] = "an array"
_log = logging.getLogger("toolresponse.http")


def http_status(response: ToolResponse) -> int:
    """The HTTP status of ``response`` in the binding: 200 for success and partial, else its code's."""
    code = response.code
    return HTTP_STATUS[code] if response.status is ToolStatus.ERROR and code is not None else SUCCESS_STATUS


class ServableRegistry(Protocol):
    """What the application needs of a registry; ``aexecute`` and ``list_tools`` that take a
    keyword ``caller`` get the request's (``AccessRules.caller``)."""

    async def aexecute(self, name: str, params: Any, *, call_id: str | None = None) -> ToolResponse: ...

    def list_tools(self) -> Sequence[ToolSpec]: ...


def _answer(response: ToolResponse, status: int | None = None, headers: Mapping[str, str] = {}) -> Response:
    """``response`` with ``status`` (default: its code's) and ``Retry-After`` where the binding has it."""
    status, headers = http_status(response) if status is None else status, dict(headers)
    after = response.retry_after_ms
    if after is not None and status in RETRY_AFTER_STATUSES:
        headers[RETRY_AFTER_HEADER] = str(math.ceil(after / 1000))
    return Response(response.to_json_bytes(), status_code=status, headers=headers, media_type=MEDIA_TYPE)


def _error(
    code: ErrorCode,
    message: str,
    *,
    status: int | None = None,
    headers: Mapping[str, str] = {},
    **members: Any,
) -> Response:
    """The answer of an error ToolResponse (``members``: its ``details`` and ``context``)."""
    return _answer(ToolResponse.error(code, message, **members), status, headers)


def _call_id_problem(call_id: str) -> str | None:
    """Why ``call_id`` is not a valid call id header, or None."""
    if len(call_id) < CALL_ID_MIN_LENGTH:
        return "is empty" if not call_id else f"is {len(call_id)} characters long, under {CALL_ID_MIN_LENGTH}"
    if len(call_id) > CALL_ID_MAX_LENGTH:
        return f"is {len(call_id)} characters long, over {CALL_ID_MAX_LENGTH}"
    if _CALL_ID.fullmatch(call_id) is None:
        return f"has a character that {CALL_ID_PATTERN} does not allow"
    return None


class _BodyTooLarge(Exception):
    pass


async def _drop(chunks: AsyncIterator[bytes]) -> None:
    """Read and drop the rest of a body, ``_LINGER_BYTES`` of it at most."""
    budget = _LINGER_BYTES
    with contextlib.suppress(ClientDisconnect):
        async for chunk in chunks:
            budget -= len(chunk)
            if budget <= 0:
                return


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body; raises ``_BodyTooLarge`` as soon as it is over ``limit``, or is declared so."""
    chunks = request.stream()
    declared = request.headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > limit:
        if request.headers.get("expect", "").lower() != "100-continue":
            await _drop(chunks)
        raise _BodyTooLarge
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            await _drop(chunks)
            raise _BodyTooLarge
    return bytes(body)


def _cancelled_from_outside() -> bool:
    """Whether the running task is being cancelled (then a ``CancelledError`` is no tool's doing)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _as_caller(function: Callable[..., Any], caller: str) -> dict[str, Any]:
    """``{"caller": caller}`` when ``function`` takes a keyword ``caller`` (or ``**kwargs``), else ``{}``."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return {}
    takes = any(
        (p.name == "caller" and p.kind is not p.POSITIONAL_ONLY) or p.kind is p.VAR_KEYWORD
        for p in parameters
    )
    return {"caller": caller} if takes else {}


class _Binding:
    """The two operations, over one registry, on behalf of ``caller``."""

    def __init__(
        self, registry: ServableRegistry, max_body_bytes: int, body_timeout_s: float, caller: str
    ) -> None:
        self.registry = registry
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s
        self.execute_as = _as_caller(registry.aexecute, caller)
        self.list_as = _as_caller(registry.list_tools, caller)

    def _refuse_unread(self, unread: Exception, context: dict[str, Any]) -> Response:
        """408 for a body not all there in time, 413 for one over the limit; the connection then closes."""
        timeout, limit = self.body_timeout_s, self.max_body_bytes
        details: dict[str, Any]
        if isinstance(unread, TimeoutError):
            code, status, details = REQUEST_TIMEOUT_CODE, REQUEST_TIMEOUT_STATUS, {"timeout_s": timeout}
            message = f"The request body did not arrive within {timeout:g} s; send it at once."
        else:
            code, status, details = BODY_TOO_LARGE_CODE, BODY_TOO_LARGE_STATUS, {"limit_bytes": limit}
            message = f"The request body is over the limit of {limit} bytes; send smaller parameters."
        close = {"Connection": "close"}
        return _error(code, message, status=status, headers=close, details=details, context=context)

    async def list_tools(self, request: Request) -> Response:
        specs = self.registry.list_tools(**self.list_as)
        members = ("name", "description", "parameters", "output_schema")
        tools = [{member: getattr(spec, member) for member in members} for spec in specs]
        count = f"{len(specs)} {'tool' if len(specs) == 1 else 'tools'}"
        text = f"{count}: {', '.join(spec.name for spec in specs)}" if specs else count
        return _answer(ToolResponse.success(text, {"tools": to_json_data(tools, pointer="/data/tools")}))

    async def invoke(self, request: Request) -> Response:
        name: str = request.path_params[TOOL_NAME_PARAMETER]
        call_id = request.headers.get(CALL_ID_HEADER)
        problem = None if call_id is None else _call_id_problem(call_id)
        context: dict[str, Any] = {"tool_name": name}
        if call_id is not None and problem is None:
            context["call_id"] = call_id
        try:
            async with asyncio.timeout(self.body_timeout_s):
                body = await _read_body(request, self.max_body_bytes)
        except (TimeoutError, _BodyTooLarge) as unread:
            return self._refuse_unread(unread, context)
        if problem is not None:
            message = (
                f"The {CALL_ID_HEADER} header {problem}; send {CALL_ID_MIN_LENGTH} to {CALL_ID_MAX_LENGTH}"
                f" characters matching {CALL_ID_PATTERN}, or no header."
            )
            return _error(
                ErrorCode.INVALID_PARAM, message, details={"header": CALL_ID_HEADER}, context=context
            )
        try:
            params = loads_strict(body)
        except MalformedJsonError as error:
            reason = "the body is empty" if not body.strip() else error.reason
            message = f"The request body is not JSON: {reason}."
            return _error(ErrorCode.INVALID_FORMAT, message, details={"reason": reason}, context=context)
        if not isinstance(params, dict):
            kind = _JSON_TYPES.get(type(params), type(params).__name__)
            message = f"The request body must be a JSON object of parameters, not {kind}."
            return _error(ErrorCode.INVALID_PARAM, message, details={"type": kind}, context=context)
        try:
            response = await self.registry.aexecute(name, params, call_id=call_id, **self.execute_as)
        except Exception:
            raise
        except BaseException as error:  # SystemExit, KeyboardInterrupt, CancelledError ... from a tool
            if isinstance(error, asyncio.CancelledError) and _cancelled_from_outside():
                raise
            raised = type(error).__name__
            _log.error("the tool %r raised %s, which the registry let through", name, raised, exc_info=error)
            message = (
                f"The tool {name} stopped with {raised}, which no tool may raise; the server goes on serving."
            )
            return _error(ErrorCode.INTERNAL_ERROR, message, details={"exception": raised}, context=context)
        if not isinstance(response, ToolResponse):
            raise TypeError(f"the registry answered {type(response).__name__}, not a ToolResponse")
        return _answer(response)


async def _http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own answers (no such path, a method the path lacks) as ToolResponses."""
    assert isinstance(exc, HTTPException)
    path = request.url.path
    if exc.status_code == HTTPStatus.METHOD_NOT_ALLOWED:
        allow = (exc.headers or {}).get("Allow", "")
        methods = sorted(method.strip() for method in allow.split(",") if method.strip())
        message = f"{path} has no method {request.method}; it has {', '.join(methods)}."
        details = {"path": path, "method": request.method, "allow": methods}
        headers, status = {ALLOW_HEADER: ", ".join(methods)}, METHOD_NOT_ALLOWED_STATUS
        return _error(METHOD_NOT_ALLOWED_CODE, message, status=status, headers=headers, details=details)
    if exc.status_code == HTTPStatus.NOT_FOUND:
        message = (
            f"There is nothing at {path}: the binding has {LIST_TOOLS_METHOD} {LIST_TOOLS_PATH} and"
            f" {INVOKE_METHOD} {INVOKE_PATH}."
        )
        return _error(ErrorCode.NOT_FOUND, message, details={"path": path})
    message = f"The request was refused: {exc.detail}."
    return _error(ErrorCode.INVALID_PARAM, message, status=exc.status_code, headers=exc.headers or {})


_INTERNAL_ERROR = ToolResponse.error(
    ErrorCode.INTERNAL_ERROR, "The server failed while answering this request; this is a bug in the server."
)


class _Guard:
    """Outermost middleware: an exception below is logged and answered 500 INTERNAL_ERROR, unless
    an answer has started (then the server drops the connection)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except ClientDisconnect:
            return
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError) and _cancelled_from_outside():
                raise
            _log.error("error while answering %s %s", scope.get("method"), scope.get("path"), exc_info=error)
            if started:
                raise
            await _answer(_INTERNAL_ERROR)(scope, receive, send)


def create_app(
    registry: ServableRegistry,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S,
    access: AccessRules | None = None,
) -> Starlette:
    """An ASGI application serving ``registry`` over the ToolResponse v1 HTTP binding; ``access``:
    which requests it answers (default: Host and Origin loopback, no token)."""
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 0:
        raise ValueError(f"max_body_bytes must be an integer >= 0, not {max_body_bytes!r}")
    if not is_finite_number(body_timeout_s) or not body_timeout_s > 0:
        raise ValueError(f"body_timeout_s must be a finite number of seconds > 0, not {body_timeout_s!r}")
    rules = access or AccessRules()
    binding = _Binding(registry, max_body_bytes, float(body_timeout_s), rules.caller)
    app = Starlette(
        routes=[
            Route(LIST_TOOLS_PATH, binding.list_tools, methods=[LIST_TOOLS_METHOD]),
            Route(INVOKE_PATH, binding.invoke, methods=[INVOKE_METHOD]),
        ],
        middleware=[Middleware(_Guard), Middleware(AccessGuard, rules=rules)],
        exception_handlers={HTTPException: _http_exception},
    )
    app.router.redirect_slashes = False
    return app
