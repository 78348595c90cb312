"""The agent: a chat model calling ToolRegistry tools, with each response's status deciding what next.

``Agent(registry, model).run(task)`` (or ``await ... .arun(task)``) returns an
``AgentResult``: the answer, how the run ended (``answered``, ``max_steps``,
``model_error``), every step and every ToolResponse with its data.

``OpenAIChatModel`` works with any OpenAI-compatible server through the
official ``openai`` client, the optional extra ``toolresponse[agent]``;
importing this package does not import ``openai``.

Its exceptions (``AgentError`` and below) are drawn with the rest of the
package's in ``toolresponse._errors``.
"""

from .._errors import AgentError, ModelConfigError, ModelError, TraceFormatError
from ._agent import (
    DEFAULT_MODEL_RETRY,
    DEFAULT_SYSTEM_PROMPT,
    DEFAULT_TOOL_RETRY,
    Agent,
    AgentResult,
    AgentStep,
    RunOutcome,
    ToolCallRecord,
)
from ._feedback import feedback_text
from ._models import ChatModel, ModelReply, OpenAIChatModel, TokenUsage, ToolCall
from ._report import render_html, render_text, summarise
from ._retry import RetryPolicy
from ._trace import TRACE_VERSION, TraceWriter, read_trace

__all__ = [
    "DEFAULT_MODEL_RETRY",
    "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_TOOL_RETRY",
    "TRACE_VERSION",
    "Agent",
    "AgentError",
    "AgentResult",
    "AgentStep",
    "ChatModel",
    "ModelConfigError",
    "ModelError",
    "ModelReply",
    "OpenAIChatModel",
    "RetryPolicy",
    "RunOutcome",
    "TokenUsage",
    "ToolCall",
    "ToolCallRecord",
    "TraceFormatError",
    "TraceWriter",
    "feedback_text",
    "read_trace",
    "render_html",
    "render_text",
    "summarise",
]
