"""OpenTelemetry for tool calls and agent runs: GenAI spans and metrics (the extra ``toolresponse[otel]``).

``ToolResponseInstrumentor().instrument()`` (or ``opentelemetry-instrument``,
which finds it through its entry point) makes every ``ToolRegistry`` call an
``execute_tool`` span and every ``Agent`` run an ``invoke_agent`` span over its
``chat`` and tool spans, with the conventions' metrics (``SEMCONV_VERSION``).
Content is recorded only on opt-in (``CAPTURE_CONTENT_ENV``), always masked;
``mcp_request`` adds the MCP attributes to the tool spans of one MCP request.
It needs only the OpenTelemetry API at run time; docs/observability.md says
what each span and metric holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._conventions import CAPTURE_CONTENT_ENV as CAPTURE_CONTENT_ENV
    from ._conventions import SEMCONV_VERSION as SEMCONV_VERSION
    from ._instrumentor import ToolResponseInstrumentor as ToolResponseInstrumentor
    from ._mcp import mcp_request as mcp_request

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._conventions": ("CAPTURE_CONTENT_ENV", "SEMCONV_VERSION"),
    "._instrumentor": ("ToolResponseInstrumentor",),
    "._mcp": ("mcp_request",),
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
