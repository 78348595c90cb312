"""Tool calls as ``execute_tool`` spans and the ``gen_ai.execute_tool.duration`` metric.

Every ``ToolRegistry.execute``/``aexecute`` is one INTERNAL span, in error exactly when the
response is; a circuit transition during the call is a span event (docs/observability.md,
"Tool calls").
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import weakref
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import SpanKind

from toolresponse_generated import ERROR_CODE_INFO

from .._response import ToolResponse
from ..tools._breaker import StateChange
from ..tools._trace import mask_secrets, masked_json_text
from . import _conventions as names
from ._mcp import MCP_ATTRIBUTES
from ._telemetry import Ending, Span, Telemetry, raised, shown

if TYPE_CHECKING:
    from ..tools._registry import ToolRegistry

UNKNOWN_TOOL = "_unknown"

_CURRENT_TOOL: contextvars.ContextVar[Span | None] = contextvars.ContextVar(
    "toolresponse_otel_tool", default=None
)


def start(
    telemetry: Telemetry,
    registry: ToolRegistry,
    name: Any,
    params: Any = None,
    *,
    call_id: Any = None,
    **_options: Any,
) -> Span:
    """The span of one ``execute``/``aexecute`` call (their arguments)."""
    known = type(name) is str and name in registry
    tool = name if known else shown(name) if telemetry.capture_content else UNKNOWN_TOOL
    common = {names.OPERATION_NAME: "execute_tool", names.TOOL_NAME: tool, names.TOOL_TYPE: "function"}
    attributes = {**common, **({} if call_id is None else {names.TOOL_CALL_ID: shown(call_id)})}
    spec = registry.spec(name) if known else None
    if spec is not None and spec.description:
        attributes[names.TOOL_DESCRIPTION] = spec.description
    attributes.update(MCP_ATTRIBUTES.get())
    _watch(registry)

    def ending(response: ToolResponse) -> Ending:
        code = response.code
        attributes: dict[str, Any] = {names.STATUS: response.status.value, names.PARTIAL: response.is_partial}
        time_ms = (response.stats or {}).get("time_ms")
        if isinstance(time_ms, int | float):
            attributes[names.TIME_MS] = float(time_ms)
        if code is not None:
            attributes[names.RETRYABLE] = response.is_retryable
            attributes[names.ERROR_CATEGORY] = ERROR_CODE_INFO[code].category.value
            if response.retry_after_ms is not None:
                attributes[names.RETRY_AFTER_MS] = response.retry_after_ms
        if registry.breaker is not None and known:
            with contextlib.suppress(Exception):  # a breaker that cannot say is no reason to lose the span
                attributes[names.BREAKER_STATE] = registry.breaker.state(name).value
        if telemetry.capture_content:
            recorded = (response.context or {}).get("params_input", params)
            if isinstance(recorded, str):
                attributes[names.TOOL_CALL_ARGUMENTS] = str(mask_secrets(recorded))
            elif recorded is not None:
                attributes[names.TOOL_CALL_ARGUMENTS] = masked_json_text(recorded)
            result = {key: value for key, value in response.to_dict().items() if key != "context"}
            attributes[names.TOOL_CALL_RESULT] = masked_json_text(result)
        error_type = None if code is None else code.value
        return Ending(attributes, error_type, response.text, {names.STATUS: response.status.value})

    # An unregistered name is whatever a model or a remote caller sent: it names no span and no
    # metric series (their number would be the caller's to choose), only the span's attribute.
    return Span(
        telemetry,
        f"execute_tool {tool}" if known else "execute_tool",
        SpanKind.INTERNAL,
        attributes,
        telemetry.tool_duration,
        {**common, names.TOOL_NAME: tool if known else UNKNOWN_TOOL},
        ending,
        failure=lambda error: raised(error)._replace(metric={names.STATUS: "error"}),
        variable=_CURRENT_TOOL,
        state=tool,
    )


# -- breaker transitions as span events ----------------------------------------------------------

# The registries whose breaker has been given the listener, each with its breaker. Weak, so that an
# instrumented process keeps no registry alive; the listener is one function, so that adding it
# again to a breaker shared by several registries (after removing it) never doubles it.
_watched: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_watched_lock = threading.Lock()


def _watch(registry: ToolRegistry) -> None:
    if registry in _watched:  # a ToolRegistry: weakly referable, its subclasses too
        return
    breaker: Any = registry.breaker
    with _watched_lock:
        if registry in _watched:
            return
        if breaker is not None and callable(getattr(breaker, "add_listener", None)):
            try:
                _unlisten(breaker)
                breaker.add_listener(on_breaker_change)
            except Exception:  # a breaker that refuses listeners: the spans lose only the events
                breaker = None
        _watched[registry] = breaker


def _unlisten(breaker: Any) -> None:
    with contextlib.suppress(AttributeError, TypeError, ValueError, KeyError):
        breaker.remove_listener(on_breaker_change)


def unwatch_breakers() -> None:
    """Take the listener off every breaker it was given (``uninstrument``)."""
    with _watched_lock:
        breakers = [breaker for breaker in _watched.values() if breaker is not None]
        _watched.clear()
    for breaker in breakers:
        _unlisten(breaker)


def on_breaker_change(change: StateChange) -> None:
    """A transition of the circuit of the tool being called, as an event on the call's span."""
    call = _CURRENT_TOOL.get()
    if call is None or call.state != change.tool_name:
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
