"""What an instrumented process records with: the tracer, the instruments, the content setting.

``ToolResponseInstrumentor.instrument`` builds one ``Telemetry`` and installs
it; the wrappers read it on every call and, once ``uninstrument`` has removed
it, call straight through (a wrapper someone kept a reference to stays harmless).
Content (arguments, results, messages) is always masked with the trace
writer's ``mask_secrets`` before it becomes an attribute.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import metrics, trace

from ..tools import mask_secrets
from . import _conventions as names

__all__ = [
    "Telemetry",
    "content_json",
    "current",
    "install",
    "masked_text",
    "server_attributes",
    "uninstall",
]

_SCOPE = "toolresponse.otel"

_TEXT_LIMIT = 300


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
        tool_duration=meter.create_histogram(
            names.EXECUTE_TOOL_DURATION,
            unit="s",
            description="The duration of a single tool execution.",
            explicit_bucket_boundaries_advisory=list(names.DURATION_BUCKETS),
        ),
        agent_duration=meter.create_histogram(
            names.INVOKE_AGENT_DURATION,
            unit="s",
            description="The end-to-end duration of a single agent invocation.",
            explicit_bucket_boundaries_advisory=list(names.DURATION_BUCKETS),
        ),
        chat_duration=meter.create_histogram(
            names.CLIENT_OPERATION_DURATION,
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=list(names.DURATION_BUCKETS),
        ),
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


def masked_text(text: str, limit: int = _TEXT_LIMIT) -> str:
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
