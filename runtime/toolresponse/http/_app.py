"""The HTTP binding of ToolResponse v1 as an ASGI application: a registry of tools, served.

The binding is ``schema/v1/http-binding.openapi.json``; this module follows it, and takes each
of the binding's facts (paths, the call-id header and its rules, the body limit, the statuses)
from the constants generated from that document (``toolresponse_generated.http_binding``).

==========================================  ====================================================
request                                     answer
==========================================  ====================================================
``GET /tools``                              200, a success ToolResponse whose ``data`` is
                                            ``{"tools": [...]}``: each tool's ``name``,
                                            ``description``, ``parameters`` and
                                            ``output_schema`` (JSON Schema, or null);
                                            ``text`` is ``"2 tools: add, div"``
``POST /tools/{name}/invoke``               the tool's ToolResponse: 200 for success and
                                            partial, else the code's HTTP status; the body is
                                            the JSON object of parameters, the optional
                                            ``X-Call-Id`` header the call's id
  a tool not served                         404 NOT_FOUND (the registry's answer)
  parameters that fail the tool's schema    400 INVALID_PARAM (the registry's answer)
  a body that is not I-JSON (empty,         400 INVALID_FORMAT
  a syntax error, NaN, not UTF-8, a
  duplicate member name)
  JSON that is not an object                400 INVALID_PARAM
  an ``X-Call-Id`` that is empty, over      400 INVALID_PARAM
  128 characters or not visible ASCII
  a body over ``max_body_bytes`` (1 MiB)    413 INVALID_PARAM, ``details.limit_bytes``
  a body not all there after                408 TIMEOUT, ``details.timeout_s``
  ``body_timeout_s`` (30 s)
  a tool that raises ``SystemExit``,        500 INTERNAL_ERROR (the registry lets these
  ``KeyboardInterrupt``, ``CancelledError``  through; the server goes on serving)
  or another ``BaseException``
a method a path does not have               405 NOT_FOUND, with ``Allow``
any other path                              404 NOT_FOUND
a ``Host`` or ``Origin`` the access rules   403 ACCESS_DENIED, ``details.reason``
refuse (any path)
no bearer token, or another one, when the   401 ACCESS_DENIED, with ``WWW-Authenticate``
rules require one (any path)
an exception in the application itself     500 INTERNAL_ERROR
==========================================  ====================================================

The access rules (``AccessRules``; loopback names and origins, no token, by default) are
checked before anything else (``AccessGuard``), so that a refused request reads no body and
runs nothing. A request let through calls the registry on behalf of ``AccessRules.caller``
(``"bearer"`` with a token, ``"anonymous"`` without), and ``GET /tools`` lists only the tools
that caller may see (``ToolRegistry.list_tools(caller=...)``; the registry answers a call of
a tool hidden from the caller as a call of a tool not served), when the registry takes a
``caller`` (a ``ToolRegistry`` does; a registry-like object without it is served as it is).

Every answer has a ToolResponse body; the Content-Type of a request is not
looked at (the body is read as JSON whatever it says). An error with
``retry_after_ms`` answered 429 or 503 also gets ``Retry-After`` (whole
seconds, rounded up). The body is read as a stream and kept only up to the
limit; a Content-Length over the limit is refused before any of it is kept (what
the client sends anyway is read and dropped, up to 16 MiB, so that it sees the
answer rather than a reset connection).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
import re
from collections.abc import Awaitable, Callable, Mapping, MutableMapping, Sequence
from http import HTTPStatus
from typing import Any, Protocol

try:
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import Response
    from starlette.routing import Route
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"serving over HTTP needs the optional extra 'http' ({missing.name} is not installed):"
        " pip install 'toolresponse[http]'"
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
from ..tools._tool import ToolSpec
from ..validation import to_json_data
from ._access import AccessGuard, AccessRules
from ._serve import DEFAULT_BODY_TIMEOUT_S

__all__ = ["ServableRegistry", "create_app", "http_status"]

_CALL_ID = re.compile(CALL_ID_PATTERN)
_log = logging.getLogger("toolresponse.http")


def http_status(response: ToolResponse) -> int:
    """The HTTP status of ``response`` in the binding: 200 for success and partial, else its code's."""
    code = response.code
    if response.status is not ToolStatus.ERROR or code is None:
        return SUCCESS_STATUS
    return HTTP_STATUS[code]


_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_ASGIApp = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


class ServableRegistry(Protocol):
    """What the application needs of a registry; ``ToolRegistry`` has it. When ``aexecute`` and
    ``list_tools`` also take a keyword ``caller`` (``ToolRegistry``'s do), they get the identity of
    the request (``AccessRules.caller``), for the registry's access policies."""

    async def aexecute(self, name: str, params: Any, *, call_id: str | None = None) -> ToolResponse: ...

    def list_tools(self) -> Sequence[ToolSpec]: ...


def _answer(
    response: ToolResponse, status: int | None = None, headers: Mapping[str, str] | None = None
) -> Response:
    status = http_status(response) if status is None else status
    all_headers = dict(headers or {})
    after = response.retry_after_ms
    if after is not None and status in RETRY_AFTER_STATUSES:
        all_headers[RETRY_AFTER_HEADER] = str(math.ceil(after / 1000))
    return Response(response.to_json_bytes(), status_code=status, headers=all_headers, media_type=MEDIA_TYPE)


def _error_answer(
    code: ErrorCode,
    message: str,
    *,
    details: Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The answer of an error ToolResponse (``status``: the code's own unless given)."""
    return _answer(ToolResponse.error(code, message, details=details, context=context), status, headers)


def _context(name: str, call_id: str | None) -> dict[str, Any] | None:
    context: dict[str, Any] = {}
    if name:
        context["tool_name"] = name
    if call_id:
        context["call_id"] = call_id
    return context or None


def _call_id_problem(call_id: str) -> str | None:
    """Why ``call_id`` is not a valid call id header, or None."""
    if len(call_id) < CALL_ID_MIN_LENGTH:
        return "is empty" if not call_id else f"is {len(call_id)} characters long, under {CALL_ID_MIN_LENGTH}"
    if len(call_id) > CALL_ID_MAX_LENGTH:
        return f"is {len(call_id)} characters long, over {CALL_ID_MAX_LENGTH}"
    if _CALL_ID.fullmatch(call_id) is None:
        return f"has a character that {CALL_ID_PATTERN} does not allow"
    return None


_LINGER_BYTES = 16 * 1024 * 1024
"""How much of a refused body is still read (and dropped) before the 413 is sent.

A server that answers and closes while the client is still sending makes the
client's system reset the connection, and the client may lose the answer; so,
as HTTP servers do, the rest of the body is read and dropped, up to this bound,
unless the client waits for ``100 Continue`` and so has not sent it."""


class _BodyTooLarge(Exception):
    pass


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, read as a stream; raises ``_BodyTooLarge`` as soon as it passes ``limit``."""
    declared = request.headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > limit:
        if request.headers.get("expect", "").lower() != "100-continue":
            await _drop_body(request, _LINGER_BYTES)
        raise _BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect
        chunk: bytes = message.get("body", b"")
        more = bool(message.get("more_body", False))
        size += len(chunk)
        if size > limit:
            if more:
                await _drop_body(request, _LINGER_BYTES)
            raise _BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


async def _drop_body(request: Request, budget: int) -> None:
    """Read and drop the rest of the body, at most ``budget`` bytes of it."""
    while budget > 0:
        message = await request.receive()
        if message["type"] != "http.request":
            return
        budget -= len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def _tool_list_text(names: Sequence[str]) -> str:
    """The tool list's ``text``: how many tools, and their names (``"2 tools: add, div"``)."""
    count = f"{len(names)} {'tool' if len(names) == 1 else 'tools'}"
    return f"{count}: {', '.join(names)}" if names else count


def _cancelled_from_outside() -> bool:
    """Whether the running task is being cancelled (a ``CancelledError`` then is no tool's doing)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _takes_caller(function: Callable[..., Any]) -> bool:
    """Whether ``function`` takes a keyword argument ``caller`` (by name, or in ``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        (parameter.name == "caller" and parameter.kind is not inspect.Parameter.POSITIONAL_ONLY)
        or parameter.kind is inspect.Parameter.VAR_KEYWORD
        for parameter in parameters
    )


class _Binding:
    """The two operations, over one registry, on behalf of ``caller``."""

    def __init__(
        self, registry: ServableRegistry, max_body_bytes: int, body_timeout_s: float, caller: str
    ) -> None:
        self.registry = registry
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s
        self.as_caller: dict[str, Any] = {"caller": caller} if _takes_caller(registry.aexecute) else {}
        self.list_as_caller: dict[str, Any] = {"caller": caller} if _takes_caller(registry.list_tools) else {}

    def _refuse_unread_body(self, unread: Exception, name: str, call_id: str | None) -> Response:
        """408 for a body not all there in time, 413 for one over the limit; the connection is then closed.

        The call id goes into the context only when it is a valid one (it is checked after the body)."""
        details: dict[str, Any]
        if isinstance(unread, TimeoutError):
            limit_s = self.body_timeout_s
            code, status, details = REQUEST_TIMEOUT_CODE, REQUEST_TIMEOUT_STATUS, {"timeout_s": limit_s}
            message = f"The request body did not arrive within {limit_s:g} s; send it at once."
        else:
            limit = self.max_body_bytes
            code, status, details = BODY_TOO_LARGE_CODE, BODY_TOO_LARGE_STATUS, {"limit_bytes": limit}
            message = f"The request body is over the limit of {limit} bytes; send smaller parameters."
        context = _context(name, call_id if call_id and not _call_id_problem(call_id) else None)
        return _error_answer(
            code, message, details=details, context=context, status=status, headers={"Connection": "close"}
        )

    async def list_tools(self, request: Request) -> Response:
        specs = self.registry.list_tools(**self.list_as_caller)
        tools = [
            {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
                "output_schema": spec.output_schema,
            }
            for spec in specs
        ]
        data = {"tools": to_json_data(tools, pointer="/data/tools")}
        return _answer(ToolResponse.success(_tool_list_text([spec.name for spec in specs]), data))

    async def invoke(self, request: Request) -> Response:
        name: str = request.path_params[TOOL_NAME_PARAMETER]
        call_id = request.headers.get(CALL_ID_HEADER)
        try:
            async with asyncio.timeout(self.body_timeout_s):
                body = await _read_body(request, self.max_body_bytes)
        except (TimeoutError, _BodyTooLarge) as unread:
            return self._refuse_unread_body(unread, name, call_id)
        if call_id is not None:
            problem = _call_id_problem(call_id)
            if problem is not None:
                return _error_answer(
                    ErrorCode.INVALID_PARAM,
                    f"The {CALL_ID_HEADER} header {problem}; send {CALL_ID_MIN_LENGTH} to"
                    f" {CALL_ID_MAX_LENGTH} characters matching {CALL_ID_PATTERN}, or no header.",
                    details={"header": CALL_ID_HEADER},
                    context=_context(name, None),
                )
        context = _context(name, call_id)
        try:
            params = loads_strict(body)
        except MalformedJsonError as error:
            reason = "the body is empty" if not body.strip() else error.reason
            return _error_answer(
                ErrorCode.INVALID_FORMAT,
                f"The request body is not JSON: {reason}.",
                details={"reason": reason},
                context=context,
            )
        if not isinstance(params, dict):
            kind = _json_type(params)
            return _error_answer(
                ErrorCode.INVALID_PARAM,
                f"The request body must be a JSON object of parameters, not {kind}.",
                details={"type": kind},
                context=context,
            )
        try:
            response = await self.registry.aexecute(name, params, call_id=call_id, **self.as_caller)
        except Exception:
            raise
        except BaseException as error:  # SystemExit, KeyboardInterrupt, CancelledError ... from a tool
            if isinstance(error, asyncio.CancelledError) and _cancelled_from_outside():
                raise
            _log.error(
                "the tool %r raised %s, which the registry let through",
                name,
                type(error).__name__,
                exc_info=error,
            )
            return _error_answer(
                ErrorCode.INTERNAL_ERROR,
                f"The tool {name} stopped with {type(error).__name__}, which no tool may raise;"
                " the server goes on serving.",
                details={"exception": type(error).__name__},
                context=context,
            )
        if not isinstance(response, ToolResponse):
            raise TypeError(f"the registry answered {type(response).__name__}, not a ToolResponse")
        return _answer(response)


async def _http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own answers (no such path, a method the path lacks) as ToolResponses."""
    assert isinstance(exc, HTTPException)
    path = request.url.path
    if exc.status_code == HTTPStatus.METHOD_NOT_ALLOWED:
        allow = (exc.headers or {}).get("Allow", "")  # Starlette's own answer, in HTTP's terms
        methods = sorted(method.strip() for method in allow.split(",") if method.strip())
        return _error_answer(
            METHOD_NOT_ALLOWED_CODE,
            f"{path} has no method {request.method}; it has {', '.join(methods)}.",
            details={"path": path, "method": request.method, "allow": methods},
            status=METHOD_NOT_ALLOWED_STATUS,
            headers={ALLOW_HEADER: ", ".join(methods)},
        )
    if exc.status_code == HTTPStatus.NOT_FOUND:
        return _error_answer(
            ErrorCode.NOT_FOUND,
            f"There is nothing at {path}: the binding has {LIST_TOOLS_METHOD} {LIST_TOOLS_PATH} and"
            f" {INVOKE_METHOD} {INVOKE_PATH}.",
            details={"path": path},
        )
    return _error_answer(
        ErrorCode.INVALID_PARAM,
        f"The request was refused: {exc.detail}.",
        status=exc.status_code,
        headers=exc.headers,
    )


_INTERNAL_ERROR = ToolResponse.error(
    ErrorCode.INTERNAL_ERROR, "The server failed while answering this request; this is a bug in the server."
)


class _Guard:
    """Outermost middleware: an exception anywhere below becomes a 500 INTERNAL_ERROR ToolResponse.

    The exception (any ``BaseException`` but the cancellation of the request's own task) is
    logged (logger ``toolresponse.http``) and goes no further, so the server never writes a body
    of its own. Once an answer has started nothing can be mended: the exception goes on, and
    the server drops the connection.
    """

    def __init__(self, app: _ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: _Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
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
    """An ASGI application serving ``registry`` over the ToolResponse v1 HTTP binding.

    ``access`` says which requests it answers (default ``AccessRules()``: Host a loopback name,
    Origin absent or loopback, no token); ``body_timeout_s`` how long it waits for a body.
    """
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 0:
        raise ValueError(f"max_body_bytes must be an integer >= 0, not {max_body_bytes!r}")
    if (
        isinstance(body_timeout_s, bool)
        or not isinstance(body_timeout_s, int | float)
        or not body_timeout_s > 0
    ):
        raise ValueError(f"body_timeout_s must be a number of seconds > 0, not {body_timeout_s!r}")
    if not math.isfinite(body_timeout_s):
        raise ValueError(f"body_timeout_s must be finite, not {body_timeout_s!r}")
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
