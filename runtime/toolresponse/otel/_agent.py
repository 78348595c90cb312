"""The agent: an ``invoke_agent`` span per run, a ``chat`` span per model call, tool spans under them.

``Agent.run`` and ``Agent.arun`` are wrapped: the run is one span named
``invoke_agent`` of kind INTERNAL (the agent has no name of its own), current
for the whole run, so that every model call and every tool call of the run
(the registry's ``execute_tool`` spans) is its child. Its attributes:
``gen_ai.operation.name`` (``invoke_agent``), ``gen_ai.provider.name``,
``gen_ai.request.model``, and at the end ``gen_ai.usage.input_tokens`` and
``gen_ai.usage.output_tokens`` (the run's totals), ``gen_ai.response.finish_reasons``
(the last reply's), ``toolresponse.agent.outcome``, ``toolresponse.agent.run_id``
and ``toolresponse.agent.steps``. A run that ends ``model_error`` or ``max_steps``
has status ERROR and ``error.type`` the model's error code (``RATE_LIMIT``,
``TIMEOUT``, ``NETWORK_ERROR``, ``API_ERROR``) or ``max_steps``. The description of
an ERROR status is its ``error.type``, and only with content capture on the run's
reason or the error's message (masked): a provider's message or an exception's
text may quote the conversation.

Each call of the model (every attempt: retries are separate calls) is a span
``chat {model}`` of kind CLIENT with ``gen_ai.operation.name`` (``chat``),
``gen_ai.provider.name``, ``gen_ai.request.model``, ``server.address`` and
``server.port`` (from the model's ``base_url``), and on the reply
``gen_ai.response.model``, ``gen_ai.response.finish_reasons`` and the token
usage; a failed call has status ERROR and ``error.type`` its ``ModelError``
code (another exception: its class name). With content capture on it also has
``gen_ai.input.messages`` and ``gen_ai.output.messages`` in the conventions'
message format, secrets masked. The chat spans come from wrapping the
``complete``/``acomplete`` of the model's class, done the first time an agent
runs with a model of that class, so that any ``ChatModel`` gets them; the
provider is the model's ``provider`` attribute when it has one (a string),
``openai`` for ``OpenAIChatModel``, else ``unknown``.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from opentelemetry import context, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from ..agent import ModelError, ModelReply, OpenAIChatModel
from . import _conventions as names
from ._telemetry import (
    CallScope,
    Telemetry,
    content_json,
    current,
    end_in_error,
    end_span,
    server_attributes,
    status_description,
    with_error_type,
)

if TYPE_CHECKING:
    from ..agent import Agent, AgentResult

__all__ = ["unwrap_models", "wrap_arun", "wrap_run"]

_log = logging.getLogger("toolresponse.otel")

_MARK = "__toolresponse_otel_original__"


@dataclass(slots=True)
class _Run:
    """What the chat spans of a run tell its ``invoke_agent`` span."""

    last_error: str | None = None


_CURRENT_RUN: contextvars.ContextVar[_Run | None] = contextvars.ContextVar(
    "toolresponse_otel_agent_run", default=None
)
_IN_CHAT: contextvars.ContextVar[bool] = contextvars.ContextVar("toolresponse_otel_in_chat", default=False)

Run = Callable[..., "AgentResult"]
AsyncRun = Callable[..., Coroutine[Any, Any, "AgentResult"]]


def wrap_run(original: Run) -> Run:
    @functools.wraps(original)
    def run(self: Agent, *args: Any, **kwargs: Any) -> AgentResult:
        telemetry = current()
        if telemetry is None:
            return original(self, *args, **kwargs)
        with _start_run(telemetry, self) as scope:
            return scope.ended(original(self, *args, **kwargs))

    return run


def wrap_arun(original: AsyncRun) -> AsyncRun:
    @functools.wraps(original)
    async def arun(self: Agent, *args: Any, **kwargs: Any) -> AgentResult:
        telemetry = current()
        if telemetry is None:
            return await original(self, *args, **kwargs)
        with _start_run(telemetry, self) as scope:
            return scope.ended(await original(self, *args, **kwargs))

    return arun


# -- the run -------------------------------------------------------------------------------


def _model_name(model: Any) -> str:
    name = getattr(model, "name", None)
    return name if isinstance(name, str) and name else type(model).__name__


def _provider(model: Any) -> str:
    provider = getattr(model, "provider", None)
    if isinstance(provider, str) and provider:
        return provider
    return "openai" if isinstance(model, OpenAIChatModel) else "unknown"


def _agent_attributes(agent: Agent) -> dict[str, Any]:
    return {
        names.OPERATION_NAME: "invoke_agent",
        names.PROVIDER_NAME: _provider(agent.model),
        names.REQUEST_MODEL: _model_name(agent.model),
    }


def _start_run(telemetry: Telemetry, agent: Agent) -> CallScope[AgentResult]:
    """The run's span, started and current, and the run's state current until the run ends."""
    _instrument_model_class(type(agent.model))
    span = telemetry.tracer.start_span(
        "invoke_agent", kind=SpanKind.INTERNAL, attributes=_agent_attributes(agent)
    )
    token = context.attach(trace.set_span_in_context(span))
    state, started = _Run(), time.perf_counter()
    return CallScope(
        _CURRENT_RUN,
        state,
        functools.partial(_end_run_raised, telemetry, agent, span, token, started),
        functools.partial(_end_run, telemetry, agent, span, token, started, state),
    )


def _end_run(
    telemetry: Telemetry,
    agent: Agent,
    span: trace.Span,
    token: object,
    started: float,
    state: _Run,
    result: AgentResult,
) -> None:
    duration = time.perf_counter() - started
    outcome = result.outcome.value
    error_type: str | None = None
    if outcome == "model_error":
        error_type = state.last_error or "_OTHER"
    elif outcome == "max_steps":
        error_type = "max_steps"
    try:
        if span.is_recording():
            attributes: dict[str, Any] = {
                names.USAGE_INPUT_TOKENS: result.usage.prompt_tokens,
                names.USAGE_OUTPUT_TOKENS: result.usage.completion_tokens,
                names.AGENT_OUTCOME: outcome,
                names.AGENT_RUN_ID: result.run_id,
                names.AGENT_STEPS: len(result.steps),
            }
            if result.steps and result.steps[-1].reply.finish_reason:
                attributes[names.RESPONSE_FINISH_REASONS] = [result.steps[-1].reply.finish_reason]
            if error_type is not None:
                attributes[names.ERROR_TYPE] = error_type
                span.set_status(
                    Status(StatusCode.ERROR, status_description(telemetry, error_type, result.reason))
                )
            span.set_attributes(attributes)
        telemetry.agent_duration.record(duration, _agent_metric_attributes(agent, error_type))
    except Exception:  # the telemetry never changes the run's result
        _log.exception("could not record an agent run")
    finally:
        end_span(span, token)


def _end_run_raised(
    telemetry: Telemetry, agent: Agent, span: trace.Span, token: object, started: float, error: BaseException
) -> None:
    duration = time.perf_counter() - started
    error_type = type(error).__qualname__
    end_in_error(telemetry, span, token, error_type, str(error) or error_type)
    telemetry.agent_duration.record(duration, _agent_metric_attributes(agent, error_type))


def _agent_metric_attributes(agent: Agent, error_type: str | None) -> dict[str, Any]:
    return with_error_type(_agent_attributes(agent), error_type)


# -- the model's calls ---------------------------------------------------------------------

# The model classes whose complete/acomplete are wrapped: for each attribute replaced, whether the
# class defined it itself and that definition, so that uninstrument puts back exactly what was there.
_wrapped: dict[type, dict[str, tuple[bool, Any]]] = {}
_wrapped_lock = threading.Lock()


def _instrument_model_class(cls: type) -> None:
    if cls in _wrapped:
        return
    with _wrapped_lock:
        if cls in _wrapped:
            return
        replaced: dict[str, tuple[bool, Any]] = {}
        for attribute, wrap in (("complete", _wrap_complete), ("acomplete", _wrap_acomplete)):
            method = getattr(cls, attribute, None)
            if not inspect.isfunction(method) or hasattr(method, _MARK):
                continue  # absent, not a plain method, or inherited from a class already wrapped
            wrapper = wrap(method)
            setattr(wrapper, _MARK, method)
            own = vars(cls).get(attribute)
            try:
                setattr(cls, attribute, wrapper)
            except (TypeError, AttributeError):  # a class that cannot be changed: no chat spans
                continue
            replaced[attribute] = (own is not None, own)
        _wrapped[cls] = replaced


def unwrap_models() -> None:
    """Put back every model class's own ``complete``/``acomplete`` (``uninstrument``)."""
    with _wrapped_lock:
        for cls, replaced in _wrapped.items():
            for attribute, (had_own, own) in replaced.items():
                if had_own:
                    setattr(cls, attribute, own)
                else:
                    delattr(cls, attribute)
        _wrapped.clear()


def _wrap_complete(method: Callable[..., ModelReply]) -> Callable[..., ModelReply]:
    @functools.wraps(method)
    def complete(self: Any, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]) -> ModelReply:
        telemetry = current()
        if telemetry is None or _IN_CHAT.get():
            return method(self, messages, tools)
        with _start_chat(telemetry, self, messages) as scope:
            return scope.ended(method(self, messages, tools))

    return complete


def _wrap_acomplete(
    method: Callable[..., Coroutine[Any, Any, ModelReply]],
) -> Callable[..., Coroutine[Any, Any, ModelReply]]:
    @functools.wraps(method)
    async def acomplete(self: Any, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]) -> ModelReply:
        telemetry = current()
        if telemetry is None or _IN_CHAT.get():
            return await method(self, messages, tools)
        with _start_chat(telemetry, self, messages) as scope:
            return scope.ended(await method(self, messages, tools))

    return acomplete


def _chat_attributes(model: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        names.OPERATION_NAME: "chat",
        names.PROVIDER_NAME: _provider(model),
        names.REQUEST_MODEL: _model_name(model),
    }
    base_url = getattr(model, "base_url", None)
    if isinstance(base_url, str) and base_url:
        attributes.update(server_attributes(base_url))
    return attributes


def _start_chat(
    telemetry: Telemetry, model: Any, messages: Sequence[Mapping[str, Any]]
) -> CallScope[ModelReply]:
    """The chat span, started and current, and "in a chat" current until the call ends."""
    attributes = _chat_attributes(model)
    if telemetry.capture_content:
        attributes[names.INPUT_MESSAGES] = content_json(_input_messages(messages))
    span = telemetry.tracer.start_span(
        f"chat {attributes[names.REQUEST_MODEL]}", kind=SpanKind.CLIENT, attributes=attributes
    )
    token = context.attach(trace.set_span_in_context(span))
    started = time.perf_counter()
    return CallScope(
        _IN_CHAT,
        True,
        functools.partial(_end_chat_raised, telemetry, model, span, token, started),
        functools.partial(_end_chat, telemetry, model, span, token, started),
    )


def _chat_metric_attributes(model: Any, reply: ModelReply | None, error_type: str | None) -> dict[str, Any]:
    attributes = _chat_attributes(model)
    if reply is not None and reply.model:
        attributes[names.RESPONSE_MODEL] = reply.model
    return with_error_type(attributes, error_type)


def _end_chat(
    telemetry: Telemetry,
    model: Any,
    span: trace.Span,
    token: object,
    started: float,
    reply: Any,
) -> None:
    duration = time.perf_counter() - started
    if not isinstance(reply, ModelReply):  # the agent answers it as a model error; the span says so too
        _finish_chat_error(telemetry, model, span, token, duration, "API_ERROR", "not a ModelReply")
        return
    try:
        if span.is_recording():
            attributes: dict[str, Any] = {
                names.USAGE_INPUT_TOKENS: _count(reply.usage.prompt_tokens),
                names.USAGE_OUTPUT_TOKENS: _count(reply.usage.completion_tokens),
            }
            if reply.model:
                attributes[names.RESPONSE_MODEL] = reply.model
            if reply.finish_reason:
                attributes[names.RESPONSE_FINISH_REASONS] = [reply.finish_reason]
            if telemetry.capture_content:
                attributes[names.OUTPUT_MESSAGES] = content_json([_output_message(reply)])
            span.set_attributes(attributes)
        metric_attributes = _chat_metric_attributes(model, reply, None)
        telemetry.chat_duration.record(duration, metric_attributes)
        usage = reply.usage
        for kind, count in (("input", usage.prompt_tokens), ("output", usage.completion_tokens)):
            telemetry.token_usage.record(_count(count), {**metric_attributes, names.TOKEN_TYPE: kind})
    except Exception:  # the telemetry never changes the model's reply
        _log.exception("could not record a chat call")
    finally:
        end_span(span, token)


def _end_chat_raised(
    telemetry: Telemetry,
    model: Any,
    span: trace.Span,
    token: object,
    started: float,
    error: BaseException,
) -> None:
    duration = time.perf_counter() - started
    if isinstance(error, ModelError):
        error_type = str(getattr(error.code, "value", error.code))
        message = str(error.message)
    else:
        error_type = type(error).__qualname__
        message = str(error) or error_type
    _finish_chat_error(telemetry, model, span, token, duration, error_type, message)


def _finish_chat_error(
    telemetry: Telemetry,
    model: Any,
    span: trace.Span,
    token: object,
    duration: float,
    error_type: str,
    message: str,
) -> None:
    run = _CURRENT_RUN.get()
    if run is not None:
        run.last_error = error_type
    end_in_error(telemetry, span, token, error_type, message)
    telemetry.chat_duration.record(duration, _chat_metric_attributes(model, None, error_type))


def _count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


# -- messages in the conventions' format ---------------------------------------------------


def _arguments(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _input_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format messages as the conventions' input messages (role and parts)."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        parts: list[dict[str, Any]] = []
        content = message.get("content")
        if role == "tool":
            call_id = message.get("tool_call_id")
            parts.append({"type": "tool_call_response", "id": call_id, "response": content})
        elif isinstance(content, str) and content:
            parts.append({"type": "text", "content": content})
        for call in message.get("tool_calls") or ():
            function = call.get("function", {}) if isinstance(call, Mapping) else {}
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.get("id") if isinstance(call, Mapping) else None,
                    "name": function.get("name"),
                    "arguments": _arguments(function.get("arguments")),
                }
            )
        converted.append({"role": role, "parts": parts})
    return converted


def _output_message(reply: ModelReply) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if reply.content:
        parts.append({"type": "text", "content": reply.content})
    parts.extend(
        {"type": "tool_call", "id": call.id, "name": call.name, "arguments": _arguments(call.arguments)}
        for call in reply.tool_calls
    )
    return {"role": "assistant", "parts": parts, "finish_reason": reply.finish_reason or ""}
