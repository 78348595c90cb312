"""Tool calls as ``execute_tool`` spans and the ``gen_ai.execute_tool.duration`` metric.

``ToolRegistry.execute`` and ``aexecute`` are wrapped: each call, whatever its
answer (an unknown tool's NOT_FOUND, the breaker's CIRCUIT_OPEN, TIMEOUT, the
tool's own result), is one span named ``execute_tool {tool}`` of kind
INTERNAL, current while the registry runs the call, so that spans the tool
makes nest under it. Its status is ERROR exactly when the response's status
is error (the description is the error code, or with content capture on the
error message, secrets masked: a message may quote an argument's value, an
exception's text or the name asked for); success and partial leave it unset,
as instrumentations should.

Attributes (see ``_conventions`` for the names):

* at the start: ``gen_ai.operation.name`` (``execute_tool``), ``gen_ai.tool.name``
  (for a name the registry does not have, ``_unknown``, or with content capture on the
  name as asked, masked), ``gen_ai.tool.type`` (``function``), ``gen_ai.tool.call.id`` and
  ``gen_ai.tool.description`` when known, and the MCP attributes of ``mcp_request``;
* at the end: ``toolresponse.status``, ``toolresponse.partial``,
  ``toolresponse.time_ms`` (``stats.time_ms``), the circuit's
  ``toolresponse.breaker.state``, and for an error ``error.type`` (the error
  code), ``toolresponse.retryable``, ``toolresponse.error.category`` and
  ``toolresponse.retry_after_ms`` when the error says;
* only with content capture on: ``gen_ai.tool.call.arguments`` (the parameters as
  the response's ``context.params_input`` records them) and
  ``gen_ai.tool.call.result`` (the response without its context), both JSON
  text with secrets masked.

A circuit transition during the call (the breaker opening on this failure,
half-opening for this probe, closing on its success) is a span event
``toolresponse.breaker.state_change``. The duration histogram has the
dimensions ``gen_ai.operation.name``, ``gen_ai.tool.name``, ``gen_ai.tool.type``,
``toolresponse.status`` and, for errors, ``error.type``.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import threading
import time
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from opentelemetry import context, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from toolresponse_generated import ERROR_CODE_INFO

from ..tools import StateChange, mask_secrets
from . import _conventions as names
from ._mcp import MCP_ATTRIBUTES
from ._telemetry import (
    CallScope,
    Telemetry,
    content_json,
    current,
    end_in_error,
    end_span,
    status_description,
    with_error_type,
)

if TYPE_CHECKING:
    from .. import ToolResponse
    from ..tools import ToolRegistry

__all__ = ["unwatch_breakers", "wrap_aexecute", "wrap_execute"]

_log = logging.getLogger("toolresponse.otel")

_NAME_LIMIT = 200

Execute = Callable[..., "ToolResponse"]
AsyncExecute = Callable[..., Coroutine[Any, Any, "ToolResponse"]]


@dataclass(slots=True)
class _ToolCall:
    """One traced call: its span, the name it is known by, when it started, and what it was
    (the registry, the name as given, the parameters) for the attributes of its end."""

    span: trace.Span
    tool: str
    known: bool
    started: float
    token: object
    registry: ToolRegistry
    name: Any
    params: Any


_CURRENT_TOOL: contextvars.ContextVar[_ToolCall | None] = contextvars.ContextVar(
    "toolresponse_otel_tool_call", default=None
)


def wrap_execute(original: Execute) -> Execute:
    """``ToolRegistry.execute`` with a span around each call."""

    @functools.wraps(original)
    def execute(
        self: ToolRegistry, name: Any, params: Any = None, *, call_id: Any = None, **options: Any
    ) -> ToolResponse:
        telemetry = current()
        if telemetry is None:
            return original(self, name, params, call_id=call_id, **options)
        scope = _started(telemetry, self, name, params, call_id)
        if scope is None:
            return original(self, name, params, call_id=call_id, **options)
        with scope:
            return scope.ended(original(self, name, params, call_id=call_id, **options))

    return execute


def wrap_aexecute(original: AsyncExecute) -> AsyncExecute:
    """``ToolRegistry.aexecute`` with a span around each call."""

    @functools.wraps(original)
    async def aexecute(
        self: ToolRegistry, name: Any, params: Any = None, *, call_id: Any = None, **options: Any
    ) -> ToolResponse:
        telemetry = current()
        if telemetry is None:
            return await original(self, name, params, call_id=call_id, **options)
        scope = _started(telemetry, self, name, params, call_id)
        if scope is None:
            return await original(self, name, params, call_id=call_id, **options)
        with scope:
            return scope.ended(await original(self, name, params, call_id=call_id, **options))

    return aexecute


# -- one call ------------------------------------------------------------------------------


UNKNOWN_TOOL = "_unknown"
"""The tool name of the duration metric for a call of a tool the registry does not have, and of
its span without content capture (the name is whatever the caller sent)."""


def _shown(name: Any) -> str:
    """An unregistered name as the span shows it: text, secrets masked, at most 200 characters."""
    text = name if isinstance(name, str) else repr(name)
    text = str(mask_secrets(text))
    return text if len(text) <= _NAME_LIMIT else text[: _NAME_LIMIT - 1] + "…"


def _started(
    telemetry: Telemetry, registry: ToolRegistry, name: Any, params: Any, call_id: Any
) -> CallScope[ToolResponse] | None:
    """The call's span, started and current until the call ends; None (untraced) if that failed."""
    try:
        call = _start(telemetry, registry, name, params, call_id)
    except Exception:
        _log.exception("could not start the span of a call of tool %r", name)
        return None
    return CallScope(
        _CURRENT_TOOL,
        call,
        functools.partial(_raised, telemetry, call),
        functools.partial(_finish, telemetry, call),
    )


def _start(telemetry: Telemetry, registry: ToolRegistry, name: Any, params: Any, call_id: Any) -> _ToolCall:
    known = type(name) is str and name in registry
    tool = name if known else _shown(name) if telemetry.capture_content else UNKNOWN_TOOL
    attributes: dict[str, Any] = {
        names.OPERATION_NAME: "execute_tool",
        names.TOOL_NAME: tool,
        names.TOOL_TYPE: "function",
    }
    if call_id is not None:
        attributes[names.TOOL_CALL_ID] = _shown(call_id)
    if known:
        spec = registry.spec(name)
        if spec is not None and spec.description:
            attributes[names.TOOL_DESCRIPTION] = spec.description
    mcp = MCP_ATTRIBUTES.get()
    if mcp:
        attributes.update(mcp)
    _watch(registry)
    # An unregistered name is whatever a model or a remote caller sent: it names no span and no
    # metric series (their number would be the caller's to choose), only the span's attribute.
    span_name = f"execute_tool {tool}" if known else "execute_tool"
    span = telemetry.tracer.start_span(span_name, kind=SpanKind.INTERNAL, attributes=attributes)
    token = context.attach(trace.set_span_in_context(span))
    return _ToolCall(span, tool, known, time.perf_counter(), token, registry, name, params)


def _metric_attributes(call: _ToolCall, status: str, error_type: str | None) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        names.OPERATION_NAME: "execute_tool",
        names.TOOL_NAME: call.tool if call.known else UNKNOWN_TOOL,
        names.TOOL_TYPE: "function",
        names.STATUS: status,
    }
    return with_error_type(attributes, error_type)


def _finish(telemetry: Telemetry, call: _ToolCall, response: ToolResponse) -> None:
    duration = time.perf_counter() - call.started
    span = call.span
    status = response.status.value
    code = response.code
    try:
        if span.is_recording():
            span.set_attributes(_end_attributes(telemetry, call, response))
            if code is not None:
                span.set_status(
                    Status(StatusCode.ERROR, status_description(telemetry, code.value, response.text))
                )
        telemetry.tool_duration.record(
            duration, _metric_attributes(call, status, None if code is None else code.value)
        )
    except Exception:  # the telemetry never changes the call's answer
        _log.exception("could not record the call of tool %r", call.tool)
    finally:
        end_span(span, call.token)


def _end_attributes(telemetry: Telemetry, call: _ToolCall, response: ToolResponse) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        names.STATUS: response.status.value,
        names.PARTIAL: response.is_partial,
    }
    stats = response.stats
    if stats is not None and isinstance(stats.get("time_ms"), int | float):
        attributes[names.TIME_MS] = float(stats["time_ms"])
    code = response.code
    if code is not None:
        attributes[names.ERROR_TYPE] = code.value
        attributes[names.RETRYABLE] = response.is_retryable
        attributes[names.ERROR_CATEGORY] = ERROR_CODE_INFO[code].category.value
        after = response.retry_after_ms
        if after is not None:
            attributes[names.RETRY_AFTER_MS] = after
    breaker = call.registry.breaker
    if breaker is not None and call.known:
        # A breaker that cannot say is no reason to lose the span.
        with contextlib.suppress(Exception):
            attributes[names.BREAKER_STATE] = breaker.state(call.name).value
    if telemetry.capture_content:
        recorded = (response.context or {}).get("params_input", call.params)
        if recorded is not None:
            attributes[names.TOOL_CALL_ARGUMENTS] = (
                str(mask_secrets(recorded)) if isinstance(recorded, str) else content_json(recorded)
            )
        result = response.to_dict()
        result.pop("context", None)
        attributes[names.TOOL_CALL_RESULT] = content_json(result)
    return attributes


def _raised(telemetry: Telemetry, call: _ToolCall, error: BaseException) -> None:
    """The call raised (KeyboardInterrupt, SystemExit, cancellation): the span ends in error."""
    duration = time.perf_counter() - call.started
    error_type = type(error).__qualname__
    end_in_error(telemetry, call.span, call.token, error_type, str(error) or error_type)
    telemetry.tool_duration.record(duration, _metric_attributes(call, "error", error_type))


# -- breaker transitions as span events ----------------------------------------------------

# The registries whose breaker has been given the listener, each with its breaker. Weak, so an
# instrumented process keeps no registry alive; the listener is one function, so that adding it
# again to a breaker shared by several registries (after removing it) never doubles it.
_watched: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_watched_lock = threading.Lock()


def _watch(registry: ToolRegistry) -> None:
    try:
        if registry in _watched:
            return
    except TypeError:  # a registry that cannot be weakly referenced: no breaker events
        return
    breaker: Any = registry.breaker
    with _watched_lock:
        if registry in _watched:
            return
        if breaker is not None and callable(getattr(breaker, "add_listener", None)):
            try:
                _remove_listener(breaker)
                breaker.add_listener(on_breaker_change)
            except Exception:  # a breaker that refuses listeners: the spans lose only the events
                breaker = None
        _watched[registry] = breaker


def _remove_listener(breaker: Any) -> None:
    remove = getattr(breaker, "remove_listener", None)
    if callable(remove):
        with contextlib.suppress(ValueError, KeyError):
            remove(on_breaker_change)


def unwatch_breakers() -> None:
    """Take the listener off every breaker it was given (``uninstrument``)."""
    with _watched_lock:
        breakers = [breaker for breaker in _watched.values() if breaker is not None]
        _watched.clear()
    for breaker in breakers:
        _remove_listener(breaker)


def on_breaker_change(change: StateChange) -> None:
    """A transition of the circuit of the tool being called, as an event on the call's span."""
    call = _CURRENT_TOOL.get()
    if call is None or call.tool != change.tool_name:
        return
    call.span.add_event(
        names.BREAKER_EVENT,
        {
            names.TOOL_NAME: change.tool_name,
            names.BREAKER_FROM: change.old_state.value,
            names.BREAKER_TO: change.new_state.value,
            names.BREAKER_REASON: change.reason,
            names.BREAKER_FAILURES: change.consecutive_failures,
        },
    )
