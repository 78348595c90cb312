"""OpenTelemetry for tool calls and agent runs: GenAI spans and metrics (the extra ``toolresponse[otel]``).

``ToolResponseInstrumentor().instrument()`` (or ``opentelemetry-instrument``,
which finds it through its entry point) makes every ``ToolRegistry`` call an
``execute_tool`` span and every ``Agent`` run an ``invoke_agent`` span over its
``chat`` and tool spans, with the conventions' metrics (``SEMCONV_VERSION``).
Content is recorded only on opt-in (the conventions' environment variable), always masked;
``mcp_request`` adds the MCP attributes to the tool spans of one MCP request.
It needs only the OpenTelemetry API at run time, and ``mcp_request`` not even
that: each name is imported on first use; docs/observability.md says
what each span and metric holds.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
