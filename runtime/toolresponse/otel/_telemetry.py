"""What an instrumented process records with: the tracer, the instruments, the content setting.

``ToolResponseInstrumentor.instrument`` builds one ``Telemetry`` and installs
it; the wrappers read it on every call and, once ``uninstrument`` has removed
it, call straight through (a wrapper someone kept a reference to stays harmless).
Content (arguments, results, messages, and the texts that may quote them: an
error's message, an exception's text, a tool name the caller chose) reaches a
span only with content capture on, and is always masked with the trace
writer's ``mask_secrets`` first.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit

from opentelemetry import context, metrics, trace
from opentelemetry.trace import Status, StatusCode

from ..tools import mask_secrets
from . import _conventions as names

__all__ = [
    "CallScope",
    "Telemetry",
    "content_json",
    "current",
    "end_in_error",
    "end_span",
    "install",
    "server_attributes",
    "status_description",
    "uninstall",
    "with_error_type",
]

_SCOPE = "toolresponse.otel"

_TEXT_LIMIT = 300

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Telemetry:
    tracer: trace.Tracer
    tool_duration: metrics.Histogram
    agent_duration: metrics.Histogram
    chat_duration: metrics.Histogram
    token_usage: metrics.Histogram
    capture_content: bool


_current: Telemetry | None = None


def current() -> Telemetry | None:
    """The installed telemetry, or None when not instrumented."""
    return _current


def install(
    *,
    tracer_provider: trace.TracerProvider | None,
    meter_provider: metrics.MeterProvider | None,
    capture_content: bool,
    version: str,
) -> Telemetry:
    """Build the tracer and instruments from the given providers (the global ones by default)."""
    global _current
    tracer = trace.get_tracer(_SCOPE, version, tracer_provider=tracer_provider)
    meter = metrics.get_meter(_SCOPE, version, meter_provider=meter_provider)
    telemetry = Telemetry(
        tracer=tracer,
        tool_duration=_duration(
            meter, names.EXECUTE_TOOL_DURATION, "The duration of a single tool execution."
        ),
        agent_duration=_duration(
            meter, names.INVOKE_AGENT_DURATION, "The end-to-end duration of a single agent invocation."
        ),
        chat_duration=_duration(meter, names.CLIENT_OPERATION_DURATION, "GenAI operation duration."),
        token_usage=meter.create_histogram(
            names.CLIENT_TOKEN_USAGE,
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=[float(bound) for bound in names.TOKEN_BUCKETS],
        ),
        capture_content=capture_content,
    )
    _current = telemetry
    return telemetry


class CallScope(Generic[R]):
    """One wrapped call's context variable, set while the call runs and reset before its span ends.

    ``with scope: return scope.ended(call())``: ``ended`` resets the variable and hands the
    result to ``returned``; a call that raises (cancellation too) resets it and hands the
    exception to ``raised``, then the exception goes on.
    """

    __slots__ = ("_marker", "_raised", "_returned", "_variable")

    def __init__(
        self,
        variable: ContextVar[Any],
        value: object,
        raised: Callable[[BaseException], None],
        returned: Callable[[R], None],
    ) -> None:
        self._variable = variable
        self._raised = raised
        self._returned = returned
        self._marker: Token[Any] | None = variable.set(value)

    def __enter__(self) -> CallScope[R]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if error is not None and self._marker is not None:
            self._reset()
            self._raised(error)

    def ended(self, result: R) -> R:
        """Reset the variable, report the result, and give it back."""
        self._reset()
        self._returned(result)
        return result

    def _reset(self) -> None:
        marker, self._marker = self._marker, None
        if marker is not None:
            self._variable.reset(marker)


def _duration(meter: metrics.Meter, name: str, description: str) -> metrics.Histogram:
    """A duration histogram in seconds with the conventions' buckets."""
    return meter.create_histogram(
        name,
        unit="s",
        description=description,
        explicit_bucket_boundaries_advisory=list(names.DURATION_BUCKETS),
    )


def end_span(span: trace.Span, token: object) -> None:
    """Take the span out of the current context and end it."""
    context.detach(token)  # type: ignore[arg-type]
    span.end()


def status_description(telemetry: Telemetry, error_type: str, message: str) -> str:
    """The description of an ERROR status: with content capture on, ``message`` (secrets masked,
    cut to 300 characters); off, ``error_type`` alone, since a message may quote an argument's
    value, an exception's text or a tool name the caller chose."""
    return _masked_text(message) if telemetry.capture_content else error_type


def end_in_error(
    telemetry: Telemetry, span: trace.Span, token: object, error_type: str, message: str
) -> None:
    """End the span with ``error.type`` and an ERROR status (``status_description``)."""
    try:
        if span.is_recording():
            span.set_attribute(names.ERROR_TYPE, error_type)
            span.set_status(Status(StatusCode.ERROR, status_description(telemetry, error_type, message)))
    finally:
        end_span(span, token)


def with_error_type(attributes: dict[str, Any], error_type: str | None) -> dict[str, Any]:
    """The attributes, with ``error.type`` when there is one."""
    if error_type is not None:
        attributes[names.ERROR_TYPE] = error_type
    return attributes


def uninstall() -> None:
    global _current
    _current = None


def content_json(value: Any) -> str:
    """``value`` with secrets masked, as compact JSON text (what is not JSON, as its repr)."""
    masked = mask_secrets(value)
    try:
        return json.dumps(masked, ensure_ascii=False, separators=(",", ":"), default=repr)
    except (TypeError, ValueError, RecursionError):
        return str(mask_secrets(repr(value)))


def _masked_text(text: str, limit: int = _TEXT_LIMIT) -> str:
    """``text`` with secrets masked, cut to ``limit`` characters (for a span status description)."""
    masked = str(mask_secrets(text))
    return masked if len(masked) <= limit else masked[: limit - 1] + "…"


def server_attributes(url: str) -> dict[str, Any]:
    """``server.address`` and ``server.port`` of ``url`` (the scheme's port when it names none);
    nothing for a URL without a host or with a port that is not a number."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return {}
    if not parts.hostname:
        return {}
    default = 443 if parts.scheme == "https" else 80
    return {names.SERVER_ADDRESS: parts.hostname, names.SERVER_PORT: port if port is not None else default}
