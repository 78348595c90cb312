"""The agent: an ``invoke_agent`` span per run, a ``chat {model}`` span per model call.

The run's span is current for the whole run, so that its chat spans (``Agent._complete`` and
``_acomplete``, whatever the model) and the registry's tool spans are its children
(docs/observability.md, "The agent").
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import SpanKind

from .._errors import ModelError
from ..agent import ModelReply, OpenAIChatModel
from ..tools._trace import masked_json_text
from . import _conventions as names
from ._telemetry import Ending, Span, Telemetry, raised

if TYPE_CHECKING:
    from ..agent import Agent, AgentResult

_RUN: contextvars.ContextVar[Span | None] = contextvars.ContextVar("toolresponse_otel_run", default=None)


def _common(model: Any, operation: str) -> dict[str, Any]:
    provider = getattr(model, "provider", None)
    if not (isinstance(provider, str) and provider):
        provider = "openai" if isinstance(model, OpenAIChatModel) else "unknown"
    name = getattr(model, "name", None)
    return {
        names.OPERATION_NAME: operation,
        names.PROVIDER_NAME: provider,
        names.REQUEST_MODEL: name if isinstance(name, str) and name else type(model).__name__,
    }


def start_run(telemetry: Telemetry, agent: Agent, *args: Any, **kwargs: Any) -> Span:
    """The span of one ``run``/``arun``."""
    attributes = _common(agent.model, "invoke_agent")

    def ending(result: AgentResult) -> Ending:
        outcome = result.outcome.value
        error_type = {"model_error": span.state or "_OTHER", "max_steps": "max_steps"}.get(outcome)
        ended: dict[str, Any] = {
            names.USAGE_INPUT_TOKENS: result.usage.prompt_tokens,
            names.USAGE_OUTPUT_TOKENS: result.usage.completion_tokens,
            names.AGENT_OUTCOME: outcome,
            names.AGENT_RUN_ID: result.run_id,
            names.AGENT_STEPS: len(result.steps),
        }
        if result.steps and result.steps[-1].reply.finish_reason:
            ended[names.RESPONSE_FINISH_REASONS] = [result.steps[-1].reply.finish_reason]
        return Ending(ended, error_type, result.reason)

    # Its state is the error type of the run's last failed model call, which its chat spans set.
    duration = telemetry.agent_duration
    span = Span(
        telemetry, "invoke_agent", SpanKind.INTERNAL, attributes, duration, attributes, ending, variable=_RUN
    )
    return span


def start_chat(telemetry: Telemetry, agent: Agent, messages: Sequence[Mapping[str, Any]], *args: Any) -> Span:
    """The span of one model call of a run (``Agent._complete``/``_acomplete``)."""
    common = _common(agent.model, "chat")
    base_url = getattr(agent.model, "base_url", None)
    if isinstance(base_url, str) and base_url:
        common.update(names.server_attributes(base_url))
    attributes = dict(common)
    if telemetry.capture_content:
        attributes[names.INPUT_MESSAGES] = masked_json_text(_input_messages(messages))

    def ending(reply: ModelReply) -> Ending:
        usage = {"input": reply.usage.prompt_tokens, "output": reply.usage.completion_tokens}
        ended: dict[str, Any] = {
            names.USAGE_INPUT_TOKENS: usage["input"],
            names.USAGE_OUTPUT_TOKENS: usage["output"],
        }
        metric = {names.RESPONSE_MODEL: reply.model} if reply.model else {}
        ended.update(metric)
        if reply.finish_reason:
            ended[names.RESPONSE_FINISH_REASONS] = [reply.finish_reason]
        if telemetry.capture_content:
            ended[names.OUTPUT_MESSAGES] = masked_json_text([_output_message(reply)])
        for kind, count in usage.items():
            telemetry.token_usage.record(count, {**common, **metric, names.TOKEN_TYPE: kind})
        return Ending(ended, metric=metric)

    def failure(error: BaseException) -> Ending:
        ending = (
            Ending({}, error.code.value, error.message) if isinstance(error, ModelError) else raised(error)
        )
        run = _RUN.get()
        if run is not None:
            run.state = ending.error_type
        return ending

    name = f"chat {common[names.REQUEST_MODEL]}"
    return Span(
        telemetry, name, SpanKind.CLIENT, attributes, telemetry.chat_duration, common, ending, failure
    )


# -- messages in the conventions' format -----------------------------------------------------------


def _tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):
        value = arguments
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": value}


def _input_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The agent's messages (OpenAI format) as the conventions' input messages (role and parts)."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if message["role"] == "tool":
            parts = [{"type": "tool_call_response", "id": message["tool_call_id"], "response": content}]
        else:
            parts = [{"type": "text", "content": content}] if content else []
        for call in message.get("tool_calls", ()):
            parts.append(_tool_call(call["id"], call["function"]["name"], call["function"]["arguments"]))
        converted.append({"role": message["role"], "parts": parts})
    return converted


def _output_message(reply: ModelReply) -> dict[str, Any]:
    parts = [{"type": "text", "content": reply.content}] if reply.content else []
    parts += [_tool_call(call.id, call.name, call.arguments) for call in reply.tool_calls]
    return {"role": "assistant", "parts": parts, "finish_reason": reply.finish_reason or ""}
