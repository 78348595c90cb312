"""What an instrumented process records with, and how one call is traced.

``instrument`` installs one ``Telemetry``; the ``traced`` wrappers read it on every call and call
straight through once it is removed. Recording never changes what a call returns or raises.
Content (and any text that may quote it) reaches a span only with content capture on, masked.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from opentelemetry import context, metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from .._suggest import shortened
from ..tools._trace import mask_secrets
from . import _conventions as names
from ._mcp import McpRequest

_log = logging.getLogger("toolresponse.otel")


@dataclass(frozen=True, slots=True)
class Telemetry:
    tracer: trace.Tracer
    tool_duration: metrics.Histogram
    agent_duration: metrics.Histogram
    chat_duration: metrics.Histogram
    token_usage: metrics.Histogram
    capture_content: bool


_current: Telemetry | None = None
_VERSION = "1.0.0"  # of the instrumentation scope


def install(
    *,
    tracer_provider: trace.TracerProvider | None,
    meter_provider: metrics.MeterProvider | None,
    capture_content: bool,
) -> None:
    """Build the tracer and instruments from the given providers (the global ones by default)."""
    global _current
    meter = metrics.get_meter("toolresponse.otel", _VERSION, meter_provider=meter_provider)

    def duration(name: str, description: str) -> metrics.Histogram:
        bounds = list(names.DURATION_BUCKETS)
        return meter.create_histogram(name, "s", description, explicit_bucket_boundaries_advisory=bounds)

    _current = Telemetry(
        tracer=trace.get_tracer("toolresponse.otel", _VERSION, tracer_provider=tracer_provider),
        tool_duration=duration(names.EXECUTE_TOOL_DURATION, "The duration of a single tool execution."),
        agent_duration=duration(
            names.INVOKE_AGENT_DURATION, "The end-to-end duration of a single agent invocation."
        ),
        chat_duration=duration(names.CLIENT_OPERATION_DURATION, "GenAI operation duration."),
        token_usage=meter.create_histogram(
            names.CLIENT_TOKEN_USAGE,
            "{token}",
            "Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=list(names.TOKEN_BUCKETS),
        ),
        capture_content=capture_content,
    )


def uninstall() -> None:
    global _current
    _current = None


class Ending(NamedTuple):
    """How a traced call ended: the span's last attributes, its ``error.type`` (None: no error),
    the message an ERROR status may show, and what the duration's attributes add."""

    attributes: dict[str, Any]
    error_type: str | None = None
    message: str = ""
    metric: dict[str, Any] | None = None


def raised(error: BaseException) -> Ending:
    """A call that raised: its exception's class is the ``error.type``, its text the message."""
    kind = type(error).__qualname__
    return Ending({}, kind, str(error) or kind)


@dataclass(eq=False)
class Span:
    """One traced call, current while it runs: ``with span: return span.ended(call())``. A call that
    raises (cancellation too) ends as ``failure`` says. ``variable`` holds this Span (and ``state``
    for the calls made inside) until the span ends."""

    telemetry: Telemetry
    name: str
    kind: SpanKind
    attributes: dict[str, Any]
    histogram: metrics.Histogram
    metric_attributes: dict[str, Any]
    ending: Callable[[Any], Ending]
    failure: Callable[[BaseException], Ending] = raised
    variable: ContextVar[Span | None] | None = None
    state: Any = None
    span: trace.Span = field(init=False)

    def __post_init__(self) -> None:
        self.span = self.telemetry.tracer.start_span(self.name, kind=self.kind, attributes=self.attributes)
        self._context = context.attach(trace.set_span_in_context(self.span))
        self._marker = None if self.variable is None else self.variable.set(self)
        self._started, self._open = time.perf_counter(), True

    def __enter__(self) -> Span:
        return self

    def __exit__(self, _kind: object, error: BaseException | None, _traceback: object, /) -> None:
        if error is not None and self._open:
            self._end(lambda: self.failure(error))

    def ended(self, result: Any) -> Any:
        self._end(lambda: self.ending(result))
        return result

    def _end(self, how: Callable[[], Ending]) -> None:
        duration, self._open = time.perf_counter() - self._started, False
        if self._marker is not None and self.variable is not None:
            self.variable.reset(self._marker)
        try:
            ending = how()
            error = {} if ending.error_type is None else {names.ERROR_TYPE: ending.error_type}
            if self.span.is_recording():
                self.span.set_attributes({**ending.attributes, **error})
                if error:
                    description = (
                        shown(ending.message, 300) if self.telemetry.capture_content else ending.error_type
                    )
                    self.span.set_status(Status(StatusCode.ERROR, description))
            self.histogram.record(duration, {**self.metric_attributes, **(ending.metric or {}), **error})
        except Exception:  # the telemetry never changes the call's answer
            _log.exception("could not record the end of span %r", self.name)
        finally:
            context.detach(self._context)
            self.span.end()


def traced(
    original: Callable[..., Any], start: Callable[..., Span | McpRequest | None]
) -> Callable[..., Any]:
    """``original`` (a method, plain or async) run inside ``start(telemetry, self, *args, **kwargs)``;
    the call goes straight through when not instrumented, when ``start`` gives None, or when it
    fails (said in the log: the telemetry never changes a call)."""

    def begin(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Span | McpRequest | None:
        if _current is None:
            return None
        try:
            return start(_current, self, *args, **kwargs)
        except Exception:
            _log.exception("could not start the span of a call of %s", original.__qualname__)
            return None

    if inspect.iscoroutinefunction(original):

        @functools.wraps(original)
        async def traced_async(self: Any, *args: Any, **kwargs: Any) -> Any:
            span = begin(self, args, kwargs)
            if span is None:
                return await original(self, *args, **kwargs)
            with span:
                return span.ended(await original(self, *args, **kwargs))

        return traced_async

    @functools.wraps(original)
    def traced(self: Any, *args: Any, **kwargs: Any) -> Any:
        span = begin(self, args, kwargs)
        if span is None:
            return original(self, *args, **kwargs)
        with span:
            return span.ended(original(self, *args, **kwargs))

    return traced


def shown(value: Any, limit: int = 200) -> str:
    """Text the caller chose (a name, a message) as a span shows it: a repr if it is not text,
    secrets masked, cut to ``limit`` characters."""
    return shortened(str(mask_secrets(value if isinstance(value, str) else repr(value))), limit)
