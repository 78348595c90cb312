"""OpenTelemetry for tool calls and agent runs: GenAI spans and metrics (the extra ``toolresponse[otel]``).

``ToolResponseInstrumentor().instrument()`` (or running under
``opentelemetry-instrument``, which finds it through the
``opentelemetry_instrumentor`` entry point) makes

* every ``ToolRegistry`` call an ``execute_tool {tool}`` span, current while the
  tool runs (so spans the tool makes nest under it, in worker threads and async
  tasks alike), with the error code as ``error.type`` and status ERROR exactly
  for an error response; breaker transitions as span events; and the
  ``gen_ai.execute_tool.duration`` histogram with status and code dimensions;
* every ``Agent`` run an ``invoke_agent`` span with the run's ``chat {model}``
  spans (model, token usage, finish reasons) and tool spans as children.

Arguments, results and messages, and the texts that may quote them (error
messages and exception texts as status descriptions, an unknown tool's name),
are recorded only when ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
(or ``instrument(capture_content=True)``) asks for them, and always with
secrets masked. ``mcp_request`` adds the MCP conventions' attributes to the tool
spans of one MCP request. The conventions followed: ``SEMCONV_VERSION``.

The instrumentation needs only ``opentelemetry-api`` and
``opentelemetry-instrumentation`` at run time; configuring an SDK and an
exporter is the application's business (or ``opentelemetry-instrument``'s).
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
