"""``ToolResponseInstrumentor``: the instrumentation packaged the way OpenTelemetry's are.

A ``BaseInstrumentor`` (a singleton) registered under the
``opentelemetry_instrumentor`` entry point as ``toolresponse``, so that
``opentelemetry-instrument toolresponse ...`` or ``opentelemetry-instrument
python app.py`` turns it on without a code change, and
``OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=toolresponse`` turns it off. In code::

    ToolResponseInstrumentor().instrument()          # the global providers
    ToolResponseInstrumentor().instrument(tracer_provider=tp, meter_provider=mp,
                                          capture_content=True)
    ToolResponseInstrumentor().uninstrument()

``instrument`` wraps ``ToolRegistry.execute``/``aexecute``,
``Agent.run``/``arun``, and the MCP face's ``McpToolService.call`` (a served
``tools/call``) and ``McpConnection.acall``/``call`` (a remote tool's call), so that tool spans
of MCP calls carry the MCP attributes, in place (so registries and agents made
before it are instrumented too); ``uninstrument`` puts the originals back and takes the
breaker listener off every breaker it was given. ``capture_content`` left as
None follows ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``.
"""

from __future__ import annotations

from collections.abc import Collection
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
from ..tools import ToolRegistry
from . import _agent, _mcp_face, _telemetry, _tools
from ._conventions import capture_content_from_env

__all__ = ["ToolResponseInstrumentor"]

_VERSION = "1.0.0"

# (class, attribute, wrapper factory): what instrument replaces.
_TARGETS: tuple[tuple[type, str, Any], ...] = (
    (ToolRegistry, "execute", _tools.wrap_execute),
    (ToolRegistry, "aexecute", _tools.wrap_aexecute),
    (Agent, "run", _agent.wrap_run),
    (Agent, "arun", _agent.wrap_arun),
    (McpToolService, "call", _mcp_face.wrap_served_call),
    (McpConnection, "acall", _mcp_face.wrap_remote_acall),
    (McpConnection, "call", _mcp_face.wrap_remote_call),
)


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
            version=_VERSION,
        )
        originals: dict[tuple[type, str], Any] = {}
        for cls, attribute, wrap in _TARGETS:
            original = vars(cls)[attribute]
            originals[(cls, attribute)] = original
            setattr(cls, attribute, wrap(original))
        type(self)._originals = originals

    def _uninstrument(self, **kwargs: Any) -> None:
        _telemetry.uninstall()
        for (cls, attribute), original in type(self)._originals.items():
            setattr(cls, attribute, original)
        type(self)._originals = {}
        _tools.unwatch_breakers()
        _agent.unwrap_models()
