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
  ``details`` (secrets in the message masked, see below). Only
  ``KeyboardInterrupt`` and ``SystemExit`` propagate (``INTERRUPTS``); any other
  ``BaseException`` a tool raises (``GeneratorExit``, an ``asyncio.CancelledError``
  of its own, a custom one) is its failure like any other;
* a ``Tool.run`` that returns something other than a real ToolResponse (a
  look-alike such as ``Mock(spec=ToolResponse)`` is not one), or data that
  breaks the output schema: ``EXECUTION_ERROR`` naming the problem;
* no answer within the timeout: ``TIMEOUT`` (retryable). The tool runs on one
  of its own daemon threads (``ToolThreads``, at most ``max_threads`` of them),
  so the caller is answered on time and the process can still exit; an
  asynchronous tool is then cancelled, a synchronous one cannot be stopped and
  keeps its thread until it returns. A call that finds all the tool's threads
  busy waits for one within its timeout; one still waiting when it passes never
  runs (``TIMEOUT`` with ``details.reason`` ``not_started``). So a tool that
  hangs holds at most ``max_threads`` threads, however often it is called;
* a bug in this runtime: ``INTERNAL_ERROR``.

The response gets ``stats.time_ms`` (measured with the injected monotonic
``clock``) and ``context`` (``tool_name``, ``params_input``, ``call_id`` when
given); other members the tool set are kept. ``params_input`` is a copy of the
parameters with secrets masked (``mask_params``: ``api_key``, ``password``,
``token``, ``Authorization`` ... and key formats inside strings), as is the
exception text the runtime writes into ``text``, ``message`` and ``details``;
``mask=False`` (``ToolRegistry(mask=False)``) echoes both verbatim.

How a call waits for an answer under a timeout is injected too: ``wait`` (a
``Wait``: a synchronous caller's wait for a worker thread's result) and
``async_wait`` (an ``AsyncWait``: an asynchronous caller's wait for it). The
defaults wait in real time; ``FakeClock.wait`` and ``FakeClock.async_wait``
(``toolresponse.testing``) wait on a fake clock, so that timeouts are tested
without real waiting.

Where a tool runs: a synchronous tool without a timeout, called synchronously,
runs in the caller's thread (the fast path: no thread hop). Every other call
runs on one of the tool's threads, under a copy of the caller's
``contextvars`` context (so tracing context such as an OpenTelemetry span
reaches the tool): a synchronous tool under a timeout or called by ``acall``,
and an asynchronous tool always, on that thread's own event loop. So an async
tool that blocks its loop (``time.sleep`` inside ``async def``) blocks only its
own thread: it gets TIMEOUT at its timeout, and neither the caller's event loop
(a server's) nor any other tool waits on it. The price is a thread hop per
such call (tens of microseconds; see ``benchmarks/registry_overhead.py``), and
an async tool must not rely on objects bound to the caller's event loop.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import dataclasses
import inspect
import logging
import re
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, Protocol, TypeGuard, TypeVar

import orjson

from toolresponse_generated import ErrorCode, ToolStatus

from .._errors import JsonValueError, MalformedJsonError, ToolDefinitionError
from .._response import ToolResponse, loads_strict, owned_response, trusted_response, with_call_info
from .._suggest import is_finite_number
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
from ._trace import mask_params, mask_secrets

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

    def __call__(self, future: Future[T], timeout_s: float, /) -> T: ...


class AsyncWait(Protocol):
    """How an asynchronous call waits for a tool's result under a timeout.

    ``await async_wait(awaitable, timeout_s)`` is the awaitable's result (or
    raises what it raised); when ``timeout_s`` seconds pass first, the awaitable
    is cancelled and ``TimeoutError`` is raised. The default, ``real_async_wait``,
    waits on the running event loop's clock.
    """

    def __call__(self, awaitable: Awaitable[T], timeout_s: float, /) -> Awaitable[T]: ...


def real_wait(future: Future[T], timeout_s: float, /) -> T:
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
    writes: bool = False
    """Whether the tool changes state (``ReadOnly`` policies refuse such tools); ``register(...,
    writes=True)`` marks one registration so without changing the class."""
    cooperative: bool = False
    """Whether the tool only waits on work done elsewhere (another process, another event loop)
    and keeps its own deadline, so that it never blocks the thread or loop it is called on: the
    registry then calls it there, without the hop to a thread of its own (an MCP tool, whose call
    runs on its connection's loop). Its ``timeout_s`` is then the tool's to keep."""

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


_RESPONSE_MEMBERS = frozenset(field.name for field in dataclasses.fields(ToolResponse))


def is_response(value: Any) -> TypeGuard[ToolResponse]:
    """Whether ``value`` is a real ToolResponse: an instance of the class or a subclass with
    every member set (not a look-alike such as ``Mock(spec=ToolResponse)``, which passes
    ``isinstance``, nor an instance made without its constructor)."""
    kind = type(value)
    if kind is not ToolResponse and not issubclass(kind, ToolResponse):
        return False
    members = getattr(value, "__dict__", None)
    return type(members) is dict and members.keys() == _RESPONSE_MEMBERS


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
    if kind is dict:
        # A copy, so that the function changing its dict later cannot change the answer.
        data = plain_object_copy(value)
        if data is not NOT_PLAIN:
            return orjson.dumps(data).decode("utf-8"), data
    return None


def wrap_value(value: Any) -> ToolResponse:
    """A plain function's value as a response: a ToolResponse as it is; a dict (any mapping)
    as success with that ``data``; anything else as success with ``data`` ``{"output": value}``.

    ``text`` is the value when it is a string, else its compact JSON. Values are
    converted by ``to_json_data``; one that cannot be raises ``JsonValueError``
    (pointer under ``/data``).
    """
    if is_response(value):
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


def _describe(error: BaseException, mask: bool) -> tuple[str, str]:
    """The exception's qualified type name and message, both safe to put in a response; with
    ``mask``, secrets in the message masked (``mask_secrets``)."""
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    try:
        message = str(error)
    except Exception:  # an exception whose __str__ itself fails
        message = ""
    if type(message) is not str:  # a str subclass from __str__
        message = str.__str__(message)
    message = _safe(message)
    return _safe(name, 200), mask_secrets(message) if mask else message


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


def execution_error(tool: str, error: BaseException, *, mask: bool = True) -> ToolResponse:
    """EXECUTION_ERROR for an exception the tool raised: its type and message in details (with
    ``mask``, secrets in the message masked)."""
    kind, message = _describe(error, mask)
    details: dict[str, Any] = {"exception": kind, "message": message}
    if isinstance(error, JsonValueError):
        details.update(reason="not_json", pointer=error.pointer)
    text = f"Tool {tool!r} failed: {kind}: {message}" if message else f"Tool {tool!r} failed: {kind}"
    return ToolResponse.error(ErrorCode.EXECUTION_ERROR, text, details=details)


def internal_error(tool: str, error: BaseException, *, mask: bool = True) -> ToolResponse:
    """INTERNAL_ERROR for a bug in this runtime (not in the tool); secrets masked as above."""
    kind, message = _describe(error, mask)
    _log.error("internal error while calling tool %r", tool, exc_info=error)
    return ToolResponse.error(
        ErrorCode.INTERNAL_ERROR,
        f"Internal error in the tool runtime while calling {tool!r}: {kind}: {message}".rstrip(": "),
        details={"exception": kind, "message": message},
    )


def timeout_error(tool: str, timeout_s: float, *, waiting_for_thread: int | None = None) -> ToolResponse:
    """TIMEOUT: the tool did not answer in time (retryable by the code's default). With
    ``waiting_for_thread`` (the tool's thread cap), the call never started: no thread of the
    tool was free for it (all busy, perhaps hung in earlier calls) during the whole timeout."""
    if waiting_for_thread is None:
        return ToolResponse.error(
            ErrorCode.TIMEOUT,
            f"Tool {tool!r} did not finish within {timeout_s:g} s.",
            details={"timeout_s": timeout_s},
        )
    return ToolResponse.error(
        ErrorCode.TIMEOUT,
        f"Tool {tool!r} did not start within {timeout_s:g} s: its threads (at most"
        f" {waiting_for_thread}) were busy with earlier calls. It will not run this call.",
        details={"timeout_s": timeout_s, "reason": "not_started", "max_threads": waiting_for_thread},
    )


def _not_a_response(tool: str, value: Any) -> ToolResponse:
    kind = type(value).__name__
    return ToolResponse.error(
        ErrorCode.EXECUTION_ERROR,
        f"Tool {tool!r} returned {kind}, not a ToolResponse.",
        details={"reason": "not_a_tool_response", "type": _safe(kind, 200)},
    )


def _changed_response(tool: str) -> ToolResponse:
    return ToolResponse.error(
        ErrorCode.EXECUTION_ERROR,
        f"Tool {tool!r} returned a ToolResponse whose values it changed after building it"
        " into values that are not JSON.",
        details={"reason": "changed_response"},
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
    if type(params) is dict:
        record = plain_object_copy(params)
        if record is not NOT_PLAIN:
            return record
    if isinstance(params, bytes | bytearray):
        params = bytes(params).decode("utf-8", "replace")
    if isinstance(params, str):
        return _safe(params, 10_000)
    try:
        return to_json_data(params)
    except JsonValueError:
        return None


# -- the threads a tool runs on ------------------------------------------------------------


DEFAULT_MAX_THREADS: Final = 8
"""How many threads one tool runs on at most (see ``ToolThreads``)."""

INTERRUPTS: Final = (KeyboardInterrupt, SystemExit)
"""The exceptions a tool may raise that end the call by propagating, not as a response."""

_THREAD_LOOP = threading.local()
"""The event loop of a worker thread, made the first time it runs an async tool."""


class _Job(Future[T]):
    """A call submitted to ``ToolThreads``; ``queued`` when no thread was free for it at once."""

    queued = False


class ToolThreads:
    """The daemon threads one tool runs on: at most ``limit`` at once, started on demand, each
    ending after ``idle_s`` seconds without work.

    A synchronous tool runs here under a timeout (and for an asynchronous caller); an
    asynchronous tool always runs here, on the worker thread's own event loop, so that a
    coroutine which blocks (``time.sleep`` in ``async def``) blocks neither the caller's loop
    nor any other tool. A call runs under a copy of its caller's ``contextvars`` context.

    A call whose caller stopped waiting (a timeout) cannot be stopped and keeps its thread
    until it returns; so does every call behind it when all ``limit`` threads hang. A call
    submitted while every thread is busy waits, in order, for one to become free; under a
    timeout that wait counts, and a call still waiting when the timeout passes never runs.
    The threads are daemon threads: a hung tool never keeps the process alive.
    """

    def __init__(self, name: str, limit: int = DEFAULT_MAX_THREADS, idle_s: float = 30.0) -> None:
        self.name = name
        self.limit = limit
        self._idle_s = idle_s
        self._ready = threading.Condition(threading.Lock())
        self._jobs: collections.deque[tuple[contextvars.Context, Callable[[], Any], Future[Any]]] = (
            collections.deque()
        )
        self._threads = 0
        self._idle = 0
        self._started = 0

    @property
    def alive(self) -> int:
        """How many threads this tool has now (busy or idle)."""
        return self._threads

    def submit(self, function: Callable[[], T]) -> Future[T]:
        """Run ``function`` on one of the threads, under a copy of the caller's context.

        ``queued(future)`` tells afterwards whether the call had to wait for a thread (every
        one was busy and the cap reached) rather than getting one at once.
        """
        future: _Job[T] = _Job()
        context = contextvars.copy_context()
        with self._ready:
            self._jobs.append((context, function, future))
            if self._idle >= len(self._jobs):
                self._ready.notify()
            elif self._threads < self.limit:
                self._threads += 1
                self._started += 1
                thread = threading.Thread(
                    target=self._work, name=f"toolresponse-{self.name}-{self._started}", daemon=True
                )
                try:
                    thread.start()
                except BaseException:
                    self._threads -= 1
                    self._jobs.pop()
                    raise
            else:
                future.queued = True
        return future

    @staticmethod
    def queued(future: Future[Any]) -> bool:
        """Whether the call behind ``future`` (from ``submit``) had to wait for a free thread."""
        return isinstance(future, _Job) and future.queued

    def _next(self) -> tuple[contextvars.Context, Callable[[], Any], Future[Any]] | None:
        """The next job, or None when none came for ``idle_s`` (the thread then ends)."""
        with self._ready:
            while not self._jobs:
                self._idle += 1
                try:
                    woken = self._ready.wait(self._idle_s)
                finally:
                    self._idle -= 1
                if not woken and not self._jobs:
                    self._threads -= 1
                    return None
            return self._jobs.popleft()

    def _work(self) -> None:
        try:
            while (job := self._next()) is not None:
                context, function, future = job
                if future.set_running_or_notify_cancel():
                    try:
                        result = context.run(function)
                    except BaseException as error:
                        # Handed to the caller as a value, who decides what propagates: some
                        # exceptions (GeneratorExit) cannot cross an ``await`` intact.
                        result = _Raised(error)
                    future.set_result(result)
                del job, context, function, future
        finally:
            loop: asyncio.AbstractEventLoop | None = getattr(_THREAD_LOOP, "loop", None)
            if loop is not None:
                loop.close()


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


async def _started(factory: Callable[[], Coroutine[Any, Any, T]]) -> T | _Raised:
    """``factory``'s coroutine, made only once the task runs: a task cancelled before its first
    step leaves no coroutine that was never awaited."""
    return await _captured(factory())


async def _function_call(function: Callable[..., Any], params: dict[str, Any]) -> Any:
    """A plain (coroutine) function's value, awaited when it is awaitable."""
    value = function(**params)
    if inspect.isawaitable(value):
        value = await value
    return value


class _Coroutine:
    """An async tool's run on a worker thread's own event loop, cancellable from any thread."""

    __slots__ = ("_cancelled", "_factory", "_lock", "_loop", "_task")

    def __init__(self, factory: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._cancelled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None

    def __call__(self) -> Any:
        """Run to the end on this thread's loop: the value or a ``_Raised``, never raising."""
        loop: asyncio.AbstractEventLoop | None = getattr(_THREAD_LOOP, "loop", None)
        if loop is None:
            loop = _THREAD_LOOP.loop = asyncio.new_event_loop()
        task = loop.create_task(_started(self._factory))
        with self._lock:
            self._loop, self._task = loop, task
            if self._cancelled:
                task.cancel()
        try:
            return loop.run_until_complete(task)
        except asyncio.CancelledError as error:  # cancelled after a timeout, or by the tool itself
            return _Raised(error)
        finally:
            self._loop = self._task = None

    def cancel(self) -> None:
        """Cancel the run (at its next ``await`` when it is running)."""
        with self._lock:
            self._cancelled = True
            loop, task = self._loop, self._task
            if loop is not None and task is not None:
                with contextlib.suppress(RuntimeError):  # the loop is closed: the run is over
                    loop.call_soon_threadsafe(task.cancel)


# -- a tool made ready to call -------------------------------------------------------------


def _check_timeout(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if not is_finite_number(value) or value <= 0 or value > threading.TIMEOUT_MAX:
        raise ToolDefinitionError(
            f"{where}: timeout_s must be a positive number of seconds up to {threading.TIMEOUT_MAX:g}"
            f" (the longest wait a thread can make) or None, not {value!r}"
        )
    return float(value)


def _check_max_threads(value: Any, where: str = "ToolRegistry") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolDefinitionError(f"{where}: max_threads_per_tool must be an int >= 1, not {value!r}")
    return value


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
        "cooperative",
        "description",
        "mask",
        "name",
        "output",
        "params",
        "spec",
        "threads",
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
        max_threads: int = DEFAULT_MAX_THREADS,
        mask: bool = True,
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
        self.threads = ToolThreads(self.name, _check_max_threads(max_threads, where))
        self.mask = bool(mask)
        self.cooperative = tool.cooperative is True
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
                # JSON, but not as it is (a str or int subclass ...): the plain values the tool
                # gets, as if it had been sent JSON text.
                params = to_json_data(params, strict=True)
            except JsonValueError as error:
                return invalid_params(self.name, error.errors)
        if self.params.is_valid(params):
            valid: dict[str, Any] = params
            return valid
        return invalid_params(self.name, self.params.violations(params, limit=_MAX_VIOLATIONS))

    def checked(self, result: Any) -> ToolResponse:
        """The tool's result as a response: a ToolResponse whose data fits the output schema."""
        if not is_response(result):
            return _not_a_response(self.name, result)
        # The tool may still hold the response and change its dicts: the answer gets a copy.
        owned = owned_response(result)
        if owned is None:
            return _changed_response(self.name)
        if self.output is not None and owned.status is not _ERROR:
            return self._output_error(owned.data) or owned
        return owned

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
        other members kept; a plain function's text and data become a success here.
        ``params_input`` is recorded with its secrets masked (``mask_params``) unless ``mask``
        is off."""
        if params_input is not None and self.mask:
            params_input = mask_params(params_input)
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

    def run_sync(self, params: dict[str, Any], timeout_s: float | None, wait: Wait) -> _Outcome:
        """Run the tool for a synchronous caller, ``wait`` waiting for it under ``timeout_s``;
        the result is checked, never raised (but for ``INTERRUPTS``)."""
        sync_run = self._sync_run
        if sync_run is not None:
            if timeout_s is None or self.cooperative:
                try:
                    result: Any = sync_run(params)
                except INTERRUPTS:
                    raise
                except BaseException as error:
                    return self.execution_error(error)
                return self.checked(result)
            future = self.threads.submit(lambda: sync_run(params))
            try:
                result = wait(future, timeout_s)
            except TimeoutError:
                return self._timed_out(future, timeout_s)
            return self._raised(result) if isinstance(result, _Raised) else self.checked(result)
        run = _Coroutine(self._coroutine_factory(params))
        future = self.threads.submit(run)
        try:
            outcome = future.result() if timeout_s is None else wait(future, timeout_s)
        except TimeoutError:
            assert timeout_s is not None
            run.cancel()
            return self._timed_out(future, timeout_s)
        return self._async_outcome(outcome)

    async def run_async(
        self, params: dict[str, Any], timeout_s: float | None, async_wait: AsyncWait
    ) -> _Outcome:
        """Run the tool for an asynchronous caller, ``async_wait`` waiting for it under
        ``timeout_s``, on one of the tool's threads (never on the caller's loop); the result is
        checked, never raised (but for ``INTERRUPTS``)."""
        if self.cooperative and self._async_run is not None:
            try:
                return self.checked(await self._async_run(params))
            except INTERRUPTS:
                raise
            except Exception as error:
                return self.execution_error(error)
        run: _Coroutine | None = None
        if self._sync_run is not None:
            sync_run = self._sync_run
            future = self.threads.submit(lambda: sync_run(params))
        else:
            run = _Coroutine(self._coroutine_factory(params))
            future = self.threads.submit(run)
        waited = asyncio.wrap_future(future)
        try:
            result = await (waited if timeout_s is None else async_wait(waited, timeout_s))
        except TimeoutError:
            assert timeout_s is not None
            if run is not None:
                run.cancel()
            return self._timed_out(future, timeout_s)
        except asyncio.CancelledError:  # the caller was cancelled: so is the tool
            future.cancel()
            if run is not None:
                run.cancel()
            raise
        if run is not None:
            return self._async_outcome(result)
        return self._raised(result) if isinstance(result, _Raised) else self.checked(result)

    def _coroutine_factory(self, params: dict[str, Any]) -> Callable[[], Coroutine[Any, Any, Any]]:
        function = self._async_function
        if function is not None:
            return lambda: _function_call(function, params)
        async_run = self._async_run
        assert async_run is not None
        return lambda: async_run(params)

    def _async_outcome(self, outcome: Any) -> _Outcome:
        """What an async tool's run gave, checked: a plain function's value as ``_function_value``
        takes it, a Tool's result as ``checked``; an exception it raised as EXECUTION_ERROR."""
        if isinstance(outcome, _Raised):
            return self._raised(outcome)
        if self._async_function is not None:
            return self._function_value(outcome, awaited=True)
        return self.checked(outcome)

    def _raised(self, raised: _Raised) -> ToolResponse:
        """EXECUTION_ERROR for what the tool raised (its own TimeoutError too); ``INTERRUPTS``
        propagate."""
        error = raised.error
        if isinstance(error, INTERRUPTS):
            raise error
        return self.execution_error(error)

    def _timed_out(self, future: Future[Any], timeout_s: float) -> ToolResponse:
        """TIMEOUT; a call that waited for a thread (all hung or busy) and never got one never
        runs, and says so. (One that got a thread at once may not have begun yet when a fake
        clock jumps: it runs, late, like a tool that hangs.)"""
        if self.threads.queued(future) and future.cancel():
            return timeout_error(self.name, timeout_s, waiting_for_thread=self.threads.limit)
        return timeout_error(self.name, timeout_s)

    def execution_error(self, error: BaseException) -> ToolResponse:
        """EXECUTION_ERROR for an exception the tool raised, secrets masked unless ``mask`` is off."""
        return execution_error(self.name, error, mask=self.mask)

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
                    except INTERRUPTS:
                        raise
                    except BaseException as error:
                        outcome: _Outcome = self.execution_error(error)
                    else:
                        outcome = self._function_value(value, awaited=False)
                    return self.finish(outcome, params_input, call_id, (clock() - start) * 1000.0)
            parsed, params_input = self.arguments(params)
            outcome = parsed if isinstance(parsed, ToolResponse) else self.run_sync(parsed, timeout_s, wait)
        except Exception as error:
            outcome = internal_error(self.name, error, mask=self.mask)
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
            outcome = internal_error(self.name, error, mask=self.mask)
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
