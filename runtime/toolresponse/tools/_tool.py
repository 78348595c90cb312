"""``Tool``: the base class of tools, plain functions as tools, and the guarded, timed call.

A tool is a subclass of ``Tool`` that overrides ``run(params)`` (a synchronous
tool) or ``async arun(params)`` (an asynchronous one) and returns a
``ToolResponse``; it declares ``name``, ``description``, ``parameters`` (a JSON
Schema object) and optionally ``output_schema`` (a JSON Schema of ``data``) and
``timeout_s``. A plain function becomes a ``FunctionTool``: its parameters
schema comes from its signature, it is called with keyword arguments, and its
value is wrapped (see ``wrap_value``).

``Tool.call(params)`` and ``await Tool.acall(params)`` are the timed, guarded
entry points the registry uses; they always return a valid ToolResponse:

* parameters that are not a JSON object (or JSON text of one) or that break the
  parameters schema: ``INVALID_PARAM`` naming each violation;
* an exception from the tool: ``EXECUTION_ERROR`` with its type and message in
  ``details`` (``KeyboardInterrupt``, ``SystemExit`` and other exceptions that
  are not ``Exception`` propagate);
* a ``Tool.run`` that returns something other than a ToolResponse, or data that
  breaks the output schema: ``EXECUTION_ERROR`` naming the problem;
* no answer within the timeout: ``TIMEOUT`` (retryable). An asynchronous tool
  is cancelled; a synchronous one runs in a daemon worker thread, so the
  caller is answered on time and the process can still exit (the thread
  itself cannot be stopped and finishes, or not, on its own);
* a bug in this runtime: ``INTERNAL_ERROR``.

The response gets ``stats.time_ms`` (measured with the injected monotonic
``clock``) and ``context`` (``tool_name``, ``params_input``, ``call_id`` when
given); other members the tool set are kept.

How a call waits for an answer under a timeout is injected too: ``wait`` (a
``Wait``: a synchronous caller's wait for a worker thread's or the background
loop's result) and ``async_wait`` (an ``AsyncWait``: an asynchronous caller's
wait for a task). The defaults wait in real time; ``FakeClock.wait`` and
``FakeClock.async_wait`` (``toolresponse.testing``) wait on a fake clock, so
that timeouts are tested without real waiting.

A synchronous call of an asynchronous tool runs it on one background event
loop (a daemon thread); an asynchronous call of a synchronous tool runs it in a
daemon worker thread, so the event loop is never blocked.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import logging
import math
import queue
import re
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, Protocol, TypeVar

import orjson

from toolresponse_generated import ErrorCode, ToolStatus

from .._errors import JsonValueError, MalformedJsonError, ToolDefinitionError
from .._response import ToolResponse, loads_strict, trusted_response, with_call_info
from .._violation import SchemaViolation
from ..validation import (
    MAX_VALUE_DEPTH,
    NOT_PLAIN,
    is_json_data,
    is_plain,
    plain_object_copy,
    to_json_data,
)
from ._params import ParameterValidator, docstring_summary, parameters_schema, return_schema

__all__ = ["AsyncWait", "FunctionTool", "Tool", "ToolSpec", "Wait", "wrap_value"]

_log = logging.getLogger("toolresponse")

Clock = Callable[[], float]
T = TypeVar("T")


class Wait(Protocol):
    """How a synchronous call waits for a tool's result under a timeout.

    ``wait(future, timeout_s)`` returns the future's result (or raises what the
    tool raised) once it is done, and raises ``TimeoutError`` when ``timeout_s``
    seconds pass first; it does not cancel the future. The default,
    ``real_wait``, is ``future.result(timeout_s)``.
    """

    def __call__(self, future: concurrent.futures.Future[T], timeout_s: float, /) -> T: ...


class AsyncWait(Protocol):
    """How an asynchronous call waits for a tool's result under a timeout.

    ``await async_wait(awaitable, timeout_s)`` is the awaitable's result (or
    raises what it raised); when ``timeout_s`` seconds pass first, the awaitable
    is cancelled and ``TimeoutError`` is raised. The default, ``real_async_wait``,
    waits on the running event loop's clock.
    """

    def __call__(self, awaitable: Awaitable[T], timeout_s: float, /) -> Awaitable[T]: ...


def real_wait(future: concurrent.futures.Future[T], timeout_s: float, /) -> T:
    """The ``Wait`` in real time: ``future.result(timeout_s)``."""
    return future.result(timeout_s)


async def real_async_wait(awaitable: Awaitable[T], timeout_s: float, /) -> T:
    """The ``AsyncWait`` in real time: ``awaitable`` under ``asyncio.timeout(timeout_s)``."""
    async with asyncio.timeout(timeout_s):
        return await awaitable


NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Tool names usable by every provider format (OpenAI, Anthropic and MCP alike)."""

EMPTY_PARAMETERS: Final[Mapping[str, Any]] = MappingProxyType(
    {"type": "object", "properties": {}, "additionalProperties": False}
)
_ERROR = ToolStatus.ERROR
_SUCCESS = ToolStatus.SUCCESS
_NOT_AWAITABLE = frozenset({type(None), bool, int, float, str, dict, list, tuple, ToolResponse})
_MESSAGE_LIMIT = 2000
_MAX_VIOLATIONS = 20


# -- what a tool is ------------------------------------------------------------------------


class Tool:
    """Base class of tools: override ``run`` (synchronous) or ``arun`` (asynchronous).

    Class attributes declare the tool; the constructor's keyword arguments
    override them per instance. ``parameters`` defaults to an object with no
    members. The definition is checked and its schemas compiled the first time
    the tool is called or registered.
    """

    name: str = ""
    description: str = ""
    parameters: Mapping[str, Any] = EMPTY_PARAMETERS
    output_schema: Mapping[str, Any] | None = None
    timeout_s: float | None = None

    def __init__(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        if name is not None:
            self.name = name
        if description is not None:
            self.description = description
        if parameters is not None:
            self.parameters = parameters
        if output_schema is not None:
            self.output_schema = output_schema
        if timeout_s is not None:
            self.timeout_s = timeout_s

    def run(self, params: dict[str, Any]) -> ToolResponse:
        """Do the work synchronously; ``params`` satisfies ``parameters``."""
        raise NotImplementedError(f"{type(self).__name__} overrides neither run nor arun")

    async def arun(self, params: dict[str, Any]) -> ToolResponse:
        """Do the work asynchronously; ``params`` satisfies ``parameters``."""
        raise NotImplementedError(f"{type(self).__name__} overrides neither run nor arun")

    @property
    def is_async(self) -> bool:
        """Whether the tool's own implementation is ``arun`` (rather than ``run``)."""
        return type(self).run is Tool.run and type(self).arun is not Tool.arun

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # -- the guarded, timed entry points ------------------------------------------------

    def call(
        self,
        params: Any = None,
        *,
        call_id: str | None = None,
        timeout_s: float | None = None,
        clock: Clock = time.monotonic,
        wait: Wait = real_wait,
    ) -> ToolResponse:
        """Run the tool on ``params`` (a dict, or JSON text of an object) and always answer
        with a valid ToolResponse; ``timeout_s`` defaults to the tool's own. ``clock`` times
        the call; ``wait`` waits for the answer under the timeout (see ``Wait``)."""
        prepared, call_id, timeout = _call_settings(self, call_id, timeout_s)
        return prepared.call(params, call_id, timeout, clock, wait)

    async def acall(
        self,
        params: Any = None,
        *,
        call_id: str | None = None,
        timeout_s: float | None = None,
        clock: Clock = time.monotonic,
        async_wait: AsyncWait = real_async_wait,
    ) -> ToolResponse:
        """The asynchronous form of ``call``; ``async_wait`` waits for the answer under the
        timeout (see ``AsyncWait``)."""
        prepared, call_id, timeout = _call_settings(self, call_id, timeout_s)
        return await prepared.acall(params, call_id, timeout, clock, async_wait)


class FunctionTool(Tool):
    """A plain function (or coroutine function) as a tool.

    Its parameters schema is derived from the signature (``parameters_schema``),
    its description from the docstring's first paragraph, and its output schema
    from the return annotation (``return_schema``). It is called with keyword
    arguments; its value is wrapped by ``wrap_value``.
    """

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        if not callable(function):
            raise ToolDefinitionError(f"a tool must be a Tool or a callable, not {type(function).__name__}")
        tool_name = name if name is not None else getattr(function, "__name__", "")
        super().__init__(
            name=tool_name,
            description=description if description is not None else docstring_summary(function),
            parameters=parameters_schema(function, name=tool_name),
            output_schema=return_schema(function, name=tool_name),
            timeout_s=timeout_s,
        )
        self.function = function
        self._is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
            getattr(function, "__call__", None)  # noqa: B004
        )

    @property
    def is_async(self) -> bool:
        return self._is_async

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return _wrap_sync(self.name, self.function(**params))

    async def arun(self, params: dict[str, Any]) -> ToolResponse:
        value = self.function(**params)
        if inspect.isawaitable(value):
            value = await value
        return wrap_value(value)


def _wrap_sync(tool: str, value: Any) -> ToolResponse:
    """The value of a synchronous call of function ``tool`` as a response (``wrap_value``); an
    awaitable, which a synchronous call cannot wait for, is closed and refused with ``TypeError``."""
    if type(value) not in _NOT_AWAITABLE and inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:
            close()
        raise TypeError(f"{tool} returned an awaitable from a synchronous call")
    return wrap_value(value)


_Success = tuple[str, dict[str, Any]]
"""The ``text`` and ``data`` of a plain function's success, not built yet (see ``PreparedTool.finish``)."""
_Outcome = ToolResponse | _Success
"""What running a tool gives: its response, or the text and data of a plain function's success."""


def _plain_success(value: Any) -> _Success | None:
    """The text and data ``wrap_value`` gives a value that is JSON as it is and needs no conversion
    (None, a bool, a str, an int, a dict of JSON: what functions mostly return), else None."""
    kind = type(value)
    if value is None:
        return "null", {"output": None}
    if kind is bool:
        return "true" if value else "false", {"output": value}
    if (kind is str or kind is int) and is_plain(value, 0, 1):
        return value if kind is str else str(value), {"output": value}
    if kind is dict and is_plain(value, 0, MAX_VALUE_DEPTH):
        return orjson.dumps(value).decode("utf-8"), value
    return None


def wrap_value(value: Any) -> ToolResponse:
    """A plain function's value as a response: a ToolResponse as it is; a dict (any mapping)
    as success with that ``data``; anything else as success with ``data`` ``{"output": value}``.

    ``text`` is the value when it is a string, else its compact JSON. Values are
    converted by ``to_json_data``; one that cannot be raises ``JsonValueError``
    (pointer under ``/data``).
    """
    if isinstance(value, ToolResponse):
        return value
    plain = _plain_success(value)
    if plain is not None:
        return trusted_response(ToolResponse, _SUCCESS, *plain)
    if isinstance(value, Mapping):
        data = to_json_data(value, pointer="/data")
        return ToolResponse.success(orjson.dumps(data).decode("utf-8"), data)
    output = to_json_data(value, pointer="/data/output")
    text = output if type(output) is str else orjson.dumps(output).decode("utf-8")
    return ToolResponse.success(text, {"output": output})


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """What a registered tool looks like from outside: for tool listings and model descriptions."""

    name: str
    description: str
    parameters: dict[str, Any]
    output_schema: dict[str, Any] | None
    timeout_s: float | None
    is_async: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON data: ``name``, ``description``, ``parameters``, and ``output_schema`` and
        ``timeout_s`` when set."""
        result: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        if self.output_schema is not None:
            result["output_schema"] = self.output_schema
        if self.timeout_s is not None:
            result["timeout_s"] = self.timeout_s
        return result


# -- the responses the runtime itself writes -----------------------------------------------


def _safe(text: str, limit: int = _MESSAGE_LIMIT) -> str:
    """``text`` as valid Unicode, at most ``limit`` characters."""
    if not text.isascii():
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(error: BaseException) -> tuple[str, str]:
    """The exception's qualified type name and message, both safe to put in a response."""
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    try:
        message = str(error)
    except Exception:  # an exception whose __str__ itself fails
        message = ""
    return _safe(name, 200), _safe(message)


def _violation_dicts(violations: tuple[SchemaViolation, ...]) -> list[dict[str, Any]]:
    return [{**v.to_dict(), "message": _safe(v.message, 500)} for v in violations]


def _violation_text(violations: tuple[SchemaViolation, ...], root: str) -> str:
    shown = "; ".join(f"{v.pointer or root}: {_safe(v.message, 300)}" for v in violations[:5])
    more = len(violations) - 5
    return shown + (f"; and {more} more" if more > 0 else "")


def invalid_params(tool: str, violations: tuple[SchemaViolation, ...]) -> ToolResponse:
    """INVALID_PARAM naming each violation of the parameters schema."""
    text = (
        f"Invalid arguments for tool {tool!r}: {_violation_text(violations, '(arguments)')}."
        " Fix the arguments and call again."
    )
    return ToolResponse.error(
        ErrorCode.INVALID_PARAM,
        text,
        details={"reason": "schema", "violations": _violation_dicts(violations)},
    )


def _unreadable_params(tool: str, reason: str, detail: str) -> ToolResponse:
    text = f"Invalid arguments for tool {tool!r}: {detail}. Send the arguments as one JSON object."
    return ToolResponse.error(ErrorCode.INVALID_PARAM, _safe(text), details={"reason": reason})


def execution_error(tool: str, error: BaseException) -> ToolResponse:
    """EXECUTION_ERROR for an exception the tool raised: its type and message in details."""
    kind, message = _describe(error)
    details: dict[str, Any] = {"exception": kind, "message": message}
    if isinstance(error, JsonValueError):
        details.update(reason="not_json", pointer=error.pointer)
    text = f"Tool {tool!r} failed: {kind}: {message}" if message else f"Tool {tool!r} failed: {kind}"
    return ToolResponse.error(ErrorCode.EXECUTION_ERROR, text, details=details)


def internal_error(tool: str, error: BaseException) -> ToolResponse:
    """INTERNAL_ERROR for a bug in this runtime (not in the tool)."""
    kind, message = _describe(error)
    _log.error("internal error while calling tool %r", tool, exc_info=error)
    return ToolResponse.error(
        ErrorCode.INTERNAL_ERROR,
        f"Internal error in the tool runtime while calling {tool!r}: {kind}: {message}".rstrip(": "),
        details={"exception": kind, "message": message},
    )


def timeout_error(tool: str, timeout_s: float) -> ToolResponse:
    """TIMEOUT: the tool did not answer in time (retryable by the code's default)."""
    return ToolResponse.error(
        ErrorCode.TIMEOUT,
        f"Tool {tool!r} did not finish within {timeout_s:g} s.",
        details={"timeout_s": timeout_s},
    )


def _not_a_response(tool: str, value: Any) -> ToolResponse:
    kind = type(value).__name__
    return ToolResponse.error(
        ErrorCode.EXECUTION_ERROR,
        f"Tool {tool!r} returned {kind}, not a ToolResponse.",
        details={"reason": "not_a_tool_response", "type": _safe(kind, 200)},
    )


def _output_violation(tool: str, violations: tuple[SchemaViolation, ...]) -> ToolResponse:
    located = tuple(
        SchemaViolation(pointer="/data" + v.pointer, keyword=v.keyword, message=v.message) for v in violations
    )
    return ToolResponse.error(
        ErrorCode.EXECUTION_ERROR,
        f"Tool {tool!r} returned data that breaks its output schema: {_violation_text(located, '/data')}.",
        details={"reason": "output_schema", "violations": _violation_dicts(located)},
    )


def params_input_of(params: Any) -> Any:
    """``params`` as JSON for ``context.params_input``, or None when it cannot be."""
    if params is None:
        return {}
    if type(params) is dict and is_json_data(params):
        return params
    if isinstance(params, bytes | bytearray):
        params = bytes(params).decode("utf-8", "replace")
    if isinstance(params, str):
        return _safe(params, 10_000)
    try:
        return to_json_data(params)
    except JsonValueError:
        return None


# -- daemon workers and the background event loop ------------------------------------------


class _Workers:
    """Daemon threads for synchronous tools under a timeout: a hung tool never keeps the
    process alive. Threads are started on demand and end after ``idle_s`` without work."""

    def __init__(self, idle_s: float = 30.0) -> None:
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._idle = 0
        self._idle_s = idle_s
        self._started = 0

    def submit(self, function: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self._idle:
                self._idle -= 1
            else:
                self._started += 1
                thread = threading.Thread(
                    target=self._work, name=f"toolresponse-worker-{self._started}", daemon=True
                )
                thread.start()
        context = contextvars.copy_context()  # the caller's context (its current span) goes with the call
        self._queue.put((lambda: context.run(function), future))
        return future

    def _work(self) -> None:
        while True:
            try:
                function, future = self._queue.get(timeout=self._idle_s)
            except queue.Empty:
                with self._lock:
                    if self._idle:
                        self._idle -= 1
                        return
                continue
            if future.set_running_or_notify_cancel():
                try:
                    result = function()
                except BaseException as error:  # handed to the caller, who decides what propagates
                    future.set_exception(error)
                else:
                    future.set_result(result)
            del function, future
            with self._lock:
                self._idle += 1


class _Portal:
    """One background event loop (a daemon thread) that runs async tools for synchronous callers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def loop(self) -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="toolresponse-loop", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop, self._thread


_WORKERS = _Workers()
_PORTAL = _Portal()


@dataclass(frozen=True, slots=True)
class _Raised:
    """An exception a tool raised, carried out of a thread or task as a value."""

    error: BaseException


async def _captured(awaitable: Awaitable[T]) -> T | _Raised:
    try:
        return await awaitable
    except asyncio.CancelledError:
        raise
    except BaseException as error:
        return _Raised(error)


async def _in_context(context: contextvars.Context, awaitable: Awaitable[T]) -> T | _Raised:
    """``awaitable`` run with the context variables of ``context`` (the caller's, on another loop)."""
    for variable, value in context.items():
        variable.set(value)
    return await _captured(awaitable)


def _run_coroutine(
    factory: Callable[[], Coroutine[Any, Any, Any]], timeout_s: float | None, wait: Wait
) -> Any:
    """Run an async tool for a synchronous caller; raises TimeoutError when ``wait`` gives up
    after ``timeout_s``."""

    loop, thread = _PORTAL.loop()
    if threading.current_thread() is thread:  # a tool on the loop calling back in: use a fresh loop
        future = _WORKERS.submit(lambda: asyncio.run(_captured(factory())))
        return future.result() if timeout_s is None else wait(future, timeout_s)
    task = asyncio.run_coroutine_threadsafe(_in_context(contextvars.copy_context(), factory()), loop)
    if timeout_s is None:
        return task.result()
    try:
        return wait(task, timeout_s)
    except TimeoutError:
        task.cancel()
        raise


# -- a tool made ready to call -------------------------------------------------------------


def _check_timeout(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ToolDefinitionError(
            f"{where}: timeout_s must be a positive number of seconds or None, not {value!r}"
        )
    return float(value)


def _object_schema(schema: Any, where: str, what: str) -> ParameterValidator:
    validator = ParameterValidator.compile(schema, where=f"{where}, {what}")
    if validator.schema.get("type") != "object":
        raise ToolDefinitionError(f'{where}: the {what} must be a JSON Schema with "type": "object"')
    return validator


class PreparedTool:
    """A tool checked and compiled for calling: its name, schemas, timeout and how to run it."""

    __slots__ = (
        "_async_function",
        "_async_run",
        "_params_valid",
        "_sync_function",
        "_sync_run",
        "call_timeout_s",
        "description",
        "name",
        "output",
        "params",
        "spec",
        "timeout_s",
        "tool",
    )

    def __init__(
        self,
        tool: Tool,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_s: float | None = None,
        default_timeout_s: float | None = None,
    ) -> None:
        if not isinstance(tool, Tool):
            raise ToolDefinitionError(f"a tool must be a Tool or a callable, not {type(tool).__name__}")
        self.tool = tool
        self.name = tool.name if name is None else name
        where = f"tool {self.name!r}"
        if not isinstance(self.name, str) or not NAME_PATTERN.match(self.name):
            raise ToolDefinitionError(
                f"{where}: a tool name is 1 to 64 letters, digits, '_' or '-' (pass name= for this one)"
            )
        self.description = tool.description if description is None else description
        if not isinstance(self.description, str) or not is_json_data(self.description):
            raise ToolDefinitionError(f"{where}: the description must be a string")
        self.params = _object_schema(tool.parameters, where, "parameters schema")
        self._params_valid: Callable[[Any], bool] = self.params._validator.is_valid
        self.output = (
            None if tool.output_schema is None else _object_schema(tool.output_schema, where, "output schema")
        )
        self.timeout_s = _check_timeout(tool.timeout_s if timeout_s is None else timeout_s, where)
        # The timeout of a call that names none: the tool's own, else the registry's default.
        self.call_timeout_s = default_timeout_s if self.timeout_s is None else self.timeout_s
        kind = type(tool)
        has_run = kind.run is not Tool.run
        has_arun = kind.arun is not Tool.arun
        if isinstance(tool, FunctionTool):
            has_run, has_arun = not tool.is_async, tool.is_async
        if not (has_run or has_arun):
            raise ToolDefinitionError(f"{where}: {kind.__name__} overrides neither run nor arun")
        self._sync_run = tool.run if has_run else None
        self._async_run = tool.arun if has_arun else None
        # A plain function that FunctionTool's own run/arun would call: the call paths call it
        # directly, so that a plain value is built into the answer once (see _function_value).
        function = tool.function if isinstance(tool, FunctionTool) else None
        plain_run = type(tool).run is FunctionTool.run and has_run
        plain_arun = type(tool).arun is FunctionTool.arun and has_arun
        self._sync_function = function if plain_run else None
        self._async_function = function if plain_arun else None
        self.spec = ToolSpec(
            name=self.name,
            description=self.description,
            parameters=self.params.schema,
            output_schema=None if self.output is None else self.output.schema,
            timeout_s=self.timeout_s,
            is_async=self._sync_run is None,
        )

    # -- parameters and results ----------------------------------------------------------

    def arguments(self, params: Any) -> tuple[dict[str, Any] | ToolResponse, Any]:
        """The call's parameters checked against the schema (or the INVALID_PARAM answer), and
        what ``context.params_input`` records: a copy the tool cannot change, or None when the
        parameters cannot be shown as JSON."""
        if type(params) is dict:
            # The common case, a dict of plain JSON: checked and copied for the record in one
            # walk, then checked against the schema.
            record = plain_object_copy(params)
            if record is not NOT_PLAIN and self._params_valid(params):
                return params, record
        parsed = self.parse(params)
        if isinstance(parsed, ToolResponse):
            return parsed, params_input_of(params)
        record = plain_object_copy(parsed)
        if record is NOT_PLAIN:  # JSON but not plain (a str subclass ...): converting builds a copy
            record = to_json_data(parsed)
        return parsed, record

    def parse(self, params: Any) -> dict[str, Any] | ToolResponse:
        """The call's parameters as a dict that satisfies the schema, or the INVALID_PARAM answer."""
        if type(params) is not dict:
            if params is None:
                params = {}
            elif isinstance(params, str | bytes | bytearray):
                try:
                    params = loads_strict(params)
                except MalformedJsonError as error:
                    return _unreadable_params(self.name, "not_json", f"the text is not JSON ({error.reason})")
                if type(params) is not dict:
                    what = type(params).__name__
                    return _unreadable_params(
                        self.name, "not_object", f"the JSON text holds {what}, not an object"
                    )
            elif isinstance(params, Mapping):
                params = dict(params)
            else:
                what = type(params).__name__
                return _unreadable_params(self.name, "not_object", f"they are {what}, not an object")
        if not is_plain(params, 0, MAX_VALUE_DEPTH):
            try:
                to_json_data(params, strict=True)
            except JsonValueError as error:
                return invalid_params(self.name, error.errors)
        if self.params.is_valid(params):
            valid: dict[str, Any] = params
            return valid
        return invalid_params(self.name, self.params.violations(params, limit=_MAX_VIOLATIONS))

    def checked(self, result: Any) -> ToolResponse:
        """The tool's result as a response: a ToolResponse whose data fits the output schema."""
        if not isinstance(result, ToolResponse):
            return _not_a_response(self.name, result)
        if self.output is not None and result.status is not _ERROR:
            return self._output_error(result.data) or result
        return result

    def _output_error(self, data: dict[str, Any]) -> ToolResponse | None:
        """The error answer when ``data`` breaks the output schema, else None."""
        output = self.output
        if output is None or output.is_valid(data):
            return None
        return _output_violation(self.name, output.violations(data, limit=_MAX_VIOLATIONS))

    def _function_value(self, value: Any, *, awaited: bool) -> _Outcome:
        """A plain function's value, checked: when it is JSON as it is, its text and data (the
        response is built once, by ``finish``); else the response ``wrap_value`` makes of it
        (refusing an awaitable from a synchronous call), checked like any result."""
        plain = _plain_success(value)
        if plain is None:
            try:
                result = wrap_value(value) if awaited else _wrap_sync(self.name, value)
            except Exception as error:
                return execution_error(self.name, error)
            return self.checked(result)
        if self.output is not None:
            return self._output_error(plain[1]) or plain
        return plain

    def finish(
        self, outcome: _Outcome, params_input: Any, call_id: str | None, time_ms: float
    ) -> ToolResponse:
        """The answer: ``outcome`` with ``stats.time_ms`` and ``context`` filled in, the tool's
        other members kept; a plain function's text and data become a success here."""
        context: dict[str, Any] = {"tool_name": self.name, "params_input": params_input}
        if params_input is None:
            del context["params_input"]
        if call_id is not None:
            context["call_id"] = call_id
        stats = {"time_ms": time_ms if time_ms > 0.0 else 0.0}
        if isinstance(outcome, tuple):
            # Every member is valid by construction: the text and data from _plain_success,
            # a tool name that matched NAME_PATTERN, parameters recorded as JSON, a str call_id.
            return trusted_response(ToolResponse, _SUCCESS, outcome[0], outcome[1], stats, context)
        return with_call_info(outcome, stats, context)

    # -- running --------------------------------------------------------------------------

    def run_sync(self, params: dict[str, Any], timeout_s: float | None, wait: Wait) -> ToolResponse:
        """Run the tool for a synchronous caller, ``wait`` waiting for it under ``timeout_s``;
        the result is checked, never raised."""
        sync_run = self._sync_run
        if sync_run is not None:
            if timeout_s is None:
                try:
                    result: Any = sync_run(params)
                except Exception as error:
                    return execution_error(self.name, error)
                return self.checked(result)
            future = _WORKERS.submit(lambda: sync_run(params))
            try:
                result = wait(future, timeout_s)
            except TimeoutError as error:
                if future.done():  # the tool's own TimeoutError, not the wait's
                    return execution_error(self.name, error)
                return timeout_error(self.name, timeout_s)
            except Exception as error:
                return execution_error(self.name, error)
            return self.checked(result)
        async_run = self._async_run
        assert async_run is not None
        try:
            outcome = _run_coroutine(lambda: async_run(params), timeout_s, wait)
        except TimeoutError:
            assert timeout_s is not None
            return timeout_error(self.name, timeout_s)
        return self._outcome(outcome)

    async def run_async(
        self, params: dict[str, Any], timeout_s: float | None, async_wait: AsyncWait
    ) -> _Outcome:
        """Run the tool for an asynchronous caller, ``async_wait`` waiting for it under
        ``timeout_s``; the result is checked, never raised."""
        function = self._async_function
        if function is not None and timeout_s is None:
            # The commonest async tool, a plain coroutine function without a timeout, awaited directly.
            try:
                value = function(**params)
                if inspect.isawaitable(value):
                    value = await value
            except Exception as error:
                return execution_error(self.name, error)
            return self._function_value(value, awaited=True)
        async_run = self._async_run
        if async_run is not None:
            if timeout_s is None:
                return self._outcome(await _captured(async_run(params)))
            try:
                outcome = await async_wait(_captured(async_run(params)), timeout_s)
            except TimeoutError:
                return timeout_error(self.name, timeout_s)
            return self._outcome(outcome)
        sync_run = self._sync_run
        assert sync_run is not None
        future = asyncio.wrap_future(_WORKERS.submit(lambda: sync_run(params)))
        try:
            result = await (future if timeout_s is None else async_wait(future, timeout_s))
        except TimeoutError as error:
            if future.done() and not future.cancelled():  # the tool's own TimeoutError
                return execution_error(self.name, error)
            assert timeout_s is not None
            return timeout_error(self.name, timeout_s)
        except Exception as error:
            return execution_error(self.name, error)
        return self.checked(result)

    def _outcome(self, outcome: Any) -> ToolResponse:
        if isinstance(outcome, _Raised):
            error = outcome.error
            if not isinstance(error, Exception):
                raise error
            return execution_error(self.name, error)
        return self.checked(outcome)

    # -- the whole call -------------------------------------------------------------------

    def call(
        self, params: Any, call_id: str | None, timeout_s: float | None, clock: Clock, wait: Wait
    ) -> ToolResponse:
        """One synchronous call: the parameters checked, the tool run under ``timeout_s`` (waited
        for by ``wait``), the answer timed with ``clock`` and its context filled in; always a
        valid ToolResponse."""
        start = clock()
        params_input: Any = None
        try:
            function = self._sync_function
            if function is not None and timeout_s is None and type(params) is dict:
                # The hot path, kept flat because it runs on most calls and every call level
                # costs: a plain function without a timeout, given a dict that is plain JSON
                # (checked and copied for the record in one walk) and valid. Anything else
                # takes the general path below (arguments, run_sync), to the same answers.
                record = plain_object_copy(params)
                if record is not NOT_PLAIN and self._params_valid(params):
                    params_input = record
                    try:
                        value = function(**params)
                    except Exception as error:
                        outcome: _Outcome = execution_error(self.name, error)
                    else:
                        outcome = self._function_value(value, awaited=False)
                    return self.finish(outcome, params_input, call_id, (clock() - start) * 1000.0)
            parsed, params_input = self.arguments(params)
            outcome = parsed if isinstance(parsed, ToolResponse) else self.run_sync(parsed, timeout_s, wait)
        except Exception as error:
            outcome = internal_error(self.name, error)
        return self.finish(outcome, params_input, call_id, (clock() - start) * 1000.0)

    async def acall(
        self,
        params: Any,
        call_id: str | None,
        timeout_s: float | None,
        clock: Clock,
        async_wait: AsyncWait,
    ) -> ToolResponse:
        """The asynchronous form of ``call``, ``async_wait`` waiting for the tool."""
        start = clock()
        params_input: Any = None
        try:
            parsed, params_input = self.arguments(params)
            if isinstance(parsed, ToolResponse):
                outcome: _Outcome = parsed
            else:
                outcome = await self.run_async(parsed, timeout_s, async_wait)
        except Exception as error:
            outcome = internal_error(self.name, error)
        return self.finish(outcome, params_input, call_id, (clock() - start) * 1000.0)


def call_id_of(call_id: Any) -> str | None:
    """The caller's ``call_id`` as ``context.call_id`` takes it: a string of valid Unicode."""
    if call_id is None or (type(call_id) is str and call_id.isascii()):
        return call_id
    return _safe(str(call_id), 1000)


def _call_settings(
    tool: Tool, call_id: Any, timeout_s: float | None
) -> tuple[PreparedTool, str | None, float | None]:
    """What ``Tool.call`` and ``Tool.acall`` run with: the prepared tool, the call's id and the
    timeout (the tool's own unless given)."""
    prepared = _prepared_of(tool)
    return prepared, call_id_of(call_id), prepared.call_timeout_s if timeout_s is None else timeout_s


def _prepared_of(tool: Tool) -> PreparedTool:
    prepared: PreparedTool | None = tool.__dict__.get("_toolresponse_prepared")
    if prepared is None:
        prepared = PreparedTool(tool)
        tool.__dict__["_toolresponse_prepared"] = prepared
    return prepared
