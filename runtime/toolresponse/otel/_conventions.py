"""The names this instrumentation writes, and the content-capture setting.

They follow the GenAI semantic conventions (``SEMCONV_VERSION``), of "development" stability, so
they are kept here, in one place. Names under ``toolresponse.`` are this protocol's own.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Final
from urllib.parse import urlsplit

_log = logging.getLogger("toolresponse.otel")

SEMCONV_VERSION: Final = "semantic-conventions-genai v0.1.0"
"""The version of the GenAI semantic conventions this instrumentation follows."""

CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The conventions' opt-in for recording content (tool arguments and results, chat messages)."""

# Values of CAPTURE_CONTENT_ENV that put content on spans: the boolean form of the first GenAI
# instrumentations and the span modes of the current one (this instrumentation writes no events,
# so EVENT_ONLY records nothing, like NO_CONTENT).
_CAPTURE_ON: Final = frozenset({"true", "1", "yes", "span_only", "span_and_event"})
_CAPTURE_OFF: Final = frozenset({"", "false", "0", "no", "no_content", "event_only"})

# -- attribute names -----------------------------------------------------------------------

OPERATION_NAME: Final = "gen_ai.operation.name"
PROVIDER_NAME: Final = "gen_ai.provider.name"
ERROR_TYPE: Final = "error.type"

TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
TOOL_TYPE: Final = "gen_ai.tool.type"
TOOL_DESCRIPTION: Final = "gen_ai.tool.description"
TOOL_CALL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
TOOL_CALL_RESULT: Final = "gen_ai.tool.call.result"

REQUEST_MODEL: Final = "gen_ai.request.model"
RESPONSE_MODEL: Final = "gen_ai.response.model"
RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
TOKEN_TYPE: Final = "gen_ai.token.type"  # noqa: S105 - an attribute name, not a secret
INPUT_MESSAGES: Final = "gen_ai.input.messages"
OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
SERVER_ADDRESS: Final = "server.address"
SERVER_PORT: Final = "server.port"

MCP_METHOD_NAME: Final = "mcp.method.name"
MCP_SESSION_ID: Final = "mcp.session.id"
MCP_PROTOCOL_VERSION: Final = "mcp.protocol.version"
JSONRPC_REQUEST_ID: Final = "jsonrpc.request.id"
NETWORK_TRANSPORT: Final = "network.transport"
NETWORK_PROTOCOL_NAME: Final = "network.protocol.name"

STATUS: Final = "toolresponse.status"
PARTIAL: Final = "toolresponse.partial"
RETRYABLE: Final = "toolresponse.retryable"
RETRY_AFTER_MS: Final = "toolresponse.retry_after_ms"
ERROR_CATEGORY: Final = "toolresponse.error.category"
TIME_MS: Final = "toolresponse.time_ms"
BREAKER_STATE: Final = "toolresponse.breaker.state"
AGENT_OUTCOME: Final = "toolresponse.agent.outcome"
AGENT_RUN_ID: Final = "toolresponse.agent.run_id"
AGENT_STEPS: Final = "toolresponse.agent.steps"

BREAKER_EVENT: Final = "toolresponse.breaker.state_change"
BREAKER_FROM: Final = "toolresponse.breaker.from"
BREAKER_TO: Final = "toolresponse.breaker.to"
BREAKER_REASON: Final = "toolresponse.breaker.reason"
BREAKER_FAILURES: Final = "toolresponse.breaker.consecutive_failures"

# -- metric names --------------------------------------------------------------------------

EXECUTE_TOOL_DURATION: Final = "gen_ai.execute_tool.duration"
INVOKE_AGENT_DURATION: Final = "gen_ai.invoke_agent.duration"
CLIENT_OPERATION_DURATION: Final = "gen_ai.client.operation.duration"
CLIENT_TOKEN_USAGE: Final = "gen_ai.client.token.usage"  # noqa: S105 - a metric name

# The conventions' advice for the duration histograms (seconds, 0.01 doubled up to 81.92) and the
# token histogram (the powers of four up to 4**13).
DURATION_BUCKETS: Final = tuple(0.01 * 2**power for power in range(14))
TOKEN_BUCKETS: Final = tuple(float(4**power) for power in range(14))


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
    return {SERVER_ADDRESS: parts.hostname, SERVER_PORT: default if port is None else port}


def capture_content_from_env() -> bool:
    """Whether ``CAPTURE_CONTENT_ENV`` asks for content on spans; off when unset or unknown."""
    raw = os.environ.get(CAPTURE_CONTENT_ENV, "")
    value = raw.strip().lower()
    if value in _CAPTURE_ON:
        return True
    if value not in _CAPTURE_OFF:
        _log.warning(
            "%s=%r is not one of true, false, NO_CONTENT, SPAN_ONLY, EVENT_ONLY, SPAN_AND_EVENT: "
            "content is not recorded",
            CAPTURE_CONTENT_ENV,
            raw,
        )
    return False
