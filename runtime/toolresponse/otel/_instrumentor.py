"""``ToolResponseInstrumentor``: a ``BaseInstrumentor`` (entry point ``opentelemetry_instrumentor``).

``instrument`` wraps the methods of ``_TARGETS`` in place, so that objects made before are
instrumented too; ``uninstrument`` puts them back.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, ClassVar

try:
    from opentelemetry.instrumentation.instrumentor import (  # type: ignore[attr-defined]
        BaseInstrumentor,
    )
except ModuleNotFoundError as missing:  # pragma: no cover - the extra is installed in development
    raise ModuleNotFoundError(
        f"toolresponse.otel needs OpenTelemetry ({missing.name} is missing): "
        "install the optional extra: pip install 'toolresponse[otel]'",
        name=missing.name,
    ) from missing

from ..agent import Agent
from ..mcp import McpConnection, McpToolService
from ..tools._registry import ToolRegistry
from . import _agent, _mcp, _telemetry, _tools
from ._conventions import capture_content_from_env

_TARGETS: tuple[tuple[type, str, Callable[..., Any]], ...] = (
    (ToolRegistry, "execute", _tools.start),
    (ToolRegistry, "aexecute", _tools.start),
    (Agent, "run", _agent.start_run),
    (Agent, "arun", _agent.start_run),
    (Agent, "_complete", _agent.start_chat),
    (Agent, "_acomplete", _agent.start_chat),
    (McpToolService, "aexecute", _mcp.start_served),
    (McpConnection, "aexecute", _mcp.mark_remote),
    (McpConnection, "execute", _mcp.mark_remote),
)
"""(class, method, what each call runs inside): what instrument replaces."""


class ToolResponseInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Every registry call an ``execute_tool`` span and every agent run an ``invoke_agent`` span."""

    _originals: ClassVar[dict[tuple[type, str], Any]] = {}

    def instrumentation_dependencies(self) -> Collection[str]:
        # The instrumentation ships inside the library it instruments: nothing else to require.
        return ()

    def _instrument(self, **kwargs: Any) -> None:
        capture = kwargs.get("capture_content")
        if capture is not None and not isinstance(capture, bool):
            raise TypeError(f"capture_content must be True, False or None, not {capture!r}")
        _telemetry.install(
            tracer_provider=kwargs.get("tracer_provider"),
            meter_provider=kwargs.get("meter_provider"),
            capture_content=capture_content_from_env() if capture is None else capture,
        )
        for cls, attribute, start in _TARGETS:
            original = type(self)._originals[(cls, attribute)] = vars(cls)[attribute]
            setattr(cls, attribute, _telemetry.traced(original, start))

    def _uninstrument(self, **kwargs: Any) -> None:
        _telemetry.uninstall()
        for (cls, attribute), original in type(self)._originals.items():
            setattr(cls, attribute, original)
        type(self)._originals = {}
        _tools.unwatch_breakers()
