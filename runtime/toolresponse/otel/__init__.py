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

from ._conventions import SEMCONV_VERSION
from ._instrumentor import ToolResponseInstrumentor
from ._mcp import mcp_request

__all__ = ["SEMCONV_VERSION", "ToolResponseInstrumentor", "mcp_request"]
