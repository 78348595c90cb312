"""OpenTelemetry for tool calls and agent runs: GenAI spans and metrics (the extra ``toolresponse[otel]``).

``ToolResponseInstrumentor().instrument()`` (or ``opentelemetry-instrument``) turns them on;
``mcp_request`` adds the MCP attributes to the tool spans of one MCP request. Content is recorded
only on opt-in, always masked (docs/observability.md).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
