"""Agent runs as OpenTelemetry spans: ``invoke_agent`` with the run's ``chat`` and ``execute_tool``
spans as children, over real HTTP (the ``openai`` client and a scripted loopback server), on the
synchronous and the asynchronous path."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from conftest import OtelCapture
from opentelemetry.trace import SpanKind, StatusCode
from scripted_chat import (
    ScriptedChatServer,
    ScriptedHTTPError,
    ScriptedReply,
    ScriptedToolCall,
)

from toolresponse import ErrorCode, ModelError, ToolRegistry, ToolResponse
from toolresponse.agent import Agent, AgentResult, ModelReply, OpenAIChatModel, RetryPolicy, TokenUsage
from toolresponse.testing import FakeClock

NO_RETRY = RetryPolicy(max_retries=0)
SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
def servers() -> Iterator[list[ScriptedChatServer]]:
    started: list[ScriptedChatServer] = []
    yield started
    for server in started:
        server.close()


def _serve(servers: list[ScriptedChatServer], script: Any) -> ScriptedChatServer:
    server = ScriptedChatServer(script).start()
    servers.append(server)
    return server


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @registry.tool
    def login(user: str, api_key: str) -> ToolResponse:
        """Log in."""
        return ToolResponse.success(f"{user} logged in")

    return registry


def _agent(server: ScriptedChatServer, registry: ToolRegistry, **options: Any) -> Agent:
    model = OpenAIChatModel("scripted-model", base_url=server.base_url, timeout_s=5, max_retries=0, env={})
    clock = FakeClock()
    options.setdefault("model_retry", NO_RETRY)
    return Agent(registry, model, clock=clock, sleep=clock.sleep, asleep=clock.asleep, **options)


def _run(agent: Agent, task: str, mode: str) -> AgentResult:
    if mode == "sync":
        return agent.run(task)
    return asyncio.run(agent.arun(task))


def _port(server: ScriptedChatServer) -> int:
    return int(server.base_url.rsplit(":", 1)[1].split("/")[0])


def test_a_run_is_an_invoke_agent_span_over_its_chat_and_tool_spans(
    otel: OtelCapture, servers: list[ScriptedChatServer], mode: str
) -> None:
    """One tool call then an answer: invoke_agent is the root, two chat spans and one execute_tool
    span are its children, each with every attribute."""
    server = _serve(
        servers,
        [
            ScriptedReply(
                tool_calls=(ScriptedToolCall(name="add", arguments={"a": 2, "b": 3}, id="call-1"),),
                prompt_tokens=40,
                completion_tokens=7,
            ),
            ScriptedReply(content="5", prompt_tokens=60, completion_tokens=2),
        ],
    )
    result = _run(_agent(server, _registry()), "What is 2 + 3?", mode)
    assert result.answered

    agent = otel.span("invoke_agent")
    chats = [span for span in otel.spans() if span.name == "chat scripted-model"]
    tool = otel.span("execute_tool add")
    assert 2 == len(chats)
    assert None is agent.parent
    assert [agent.context.span_id] * 3 == [span.parent.span_id for span in (*chats, tool)]

    assert SpanKind.INTERNAL == agent.kind
    assert StatusCode.UNSET == agent.status.status_code
    assert {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "scripted-model",
        "gen_ai.usage.input_tokens": 100,
        "gen_ai.usage.output_tokens": 9,
        "gen_ai.response.finish_reasons": ("stop",),
        "toolresponse.agent.outcome": "answered",
        "toolresponse.agent.run_id": result.run_id,
        "toolresponse.agent.steps": 2,
    } == dict(agent.attributes)

    first, second = sorted(chats, key=lambda span: span.start_time)
    assert SpanKind.CLIENT == first.kind
    common = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "scripted-model",
        "server.address": "127.0.0.1",
        "server.port": _port(server),
        "gen_ai.response.model": "scripted-model",
    }
    assert {
        **common,
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 7,
        "gen_ai.response.finish_reasons": ("tool_calls",),
    } == dict(first.attributes)
    assert {
        **common,
        "gen_ai.usage.input_tokens": 60,
        "gen_ai.usage.output_tokens": 2,
        "gen_ai.response.finish_reasons": ("stop",),
    } == dict(second.attributes)
    assert "call-1" == tool.attributes["gen_ai.tool.call.id"]
    assert first.end_time <= tool.start_time


def test_parallel_tool_calls_are_all_children_of_the_run(
    otel: OtelCapture, servers: list[ScriptedChatServer], mode: str
) -> None:
    """Tool calls of one turn run concurrently (threads or tasks); every span keeps the run as parent."""
    turn = ScriptedReply(
        tool_calls=tuple(
            ScriptedToolCall(name="add", arguments={"a": n, "b": n}, id=f"c{n}") for n in range(4)
        )
    )
    server = _serve(servers, [turn, ScriptedReply(content="done")])
    _run(_agent(server, _registry(), max_parallel_tools=4), "Add.", mode)

    agent = otel.span("invoke_agent")
    tools = [span for span in otel.spans() if span.name == "execute_tool add"]
    assert ["c0", "c1", "c2", "c3"] == sorted(span.attributes["gen_ai.tool.call.id"] for span in tools)
    assert [agent.context.span_id] * 4 == [span.parent.span_id for span in tools]


def test_a_model_error_ends_the_chat_and_the_run_in_error(
    otel: OtelCapture, servers: list[ScriptedChatServer], mode: str
) -> None:
    """A 500 from the model: the chat span has error.type API_ERROR; so has the run, ended model_error."""
    server = _serve(servers, [ScriptedHTTPError(status=500, message="overloaded")])
    result = _run(_agent(server, _registry()), "Hello?", mode)
    assert "model_error" == result.outcome.value

    chat = otel.span("chat scripted-model")
    assert StatusCode.ERROR == chat.status.status_code
    assert "API_ERROR" == chat.attributes["error.type"]
    agent = otel.span("invoke_agent")
    assert StatusCode.ERROR == agent.status.status_code
    assert "API_ERROR" == agent.attributes["error.type"]
    assert "model_error" == agent.attributes["toolresponse.agent.outcome"]


def test_a_run_out_of_steps_is_an_error_run(
    otel: OtelCapture, servers: list[ScriptedChatServer], mode: str
) -> None:
    """max_steps: the run's span is in error with error.type max_steps."""
    turn = ScriptedReply(tool_calls=(ScriptedToolCall(name="add", arguments={"a": 1, "b": 1}),))
    server = _serve(servers, [turn, turn])
    _run(_agent(server, _registry(), max_steps=2), "Loop.", mode)

    agent = otel.span("invoke_agent")
    assert StatusCode.ERROR == agent.status.status_code
    assert "max_steps" == agent.attributes["error.type"]
    assert 2 == len([span for span in otel.spans() if span.name == "execute_tool add"])


def test_chat_metrics_record_duration_and_tokens(
    otel: OtelCapture, servers: list[ScriptedChatServer]
) -> None:
    """gen_ai.client.operation.duration per chat, gen_ai.client.token.usage per token type,
    gen_ai.invoke_agent.duration per run."""
    server = _serve(servers, [ScriptedReply(content="hi", prompt_tokens=11, completion_tokens=3)])
    _agent(server, _registry()).run("Hi.")

    assert [1] == [point.count for point in otel.points("gen_ai.client.operation.duration")]
    tokens = {
        point.attributes["gen_ai.token.type"]: point.sum for point in otel.points("gen_ai.client.token.usage")
    }
    assert {"input": 11, "output": 3} == tokens
    for point in otel.points("gen_ai.client.token.usage"):  # the powers of four, 1 to 4**13
        assert (1, 4, 16, 4**13) == (*point.explicit_bounds[:3], point.explicit_bounds[-1])
    (run,) = otel.points("gen_ai.invoke_agent.duration")
    assert {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "scripted-model",
    } == dict(run.attributes)


def test_messages_are_recorded_only_on_opt_in_and_masked(
    otel: OtelCapture, servers: list[ScriptedChatServer]
) -> None:
    """Content capture off: no messages on the chat spans. On: input and output messages in the
    conventions' format, the secret the model passed masked."""
    script = [
        ScriptedReply(
            tool_calls=(
                ScriptedToolCall(name="login", arguments={"user": "ann", "api_key": SECRET}, id="l1"),
            )
        ),
        ScriptedReply(content="Logged in."),
    ]
    _agent(_serve(servers, script), _registry()).run("Log in as ann.")
    assert not [span for span in otel.spans() if "gen_ai.input.messages" in span.attributes]

    otel.exporter.clear()
    otel.instrument(capture_content=True)
    _agent(_serve(servers, script), _registry()).run("Log in as ann.")

    chats = sorted(
        (span for span in otel.spans() if span.name.startswith("chat")), key=lambda span: span.start_time
    )
    first_output = json.loads(chats[0].attributes["gen_ai.output.messages"])
    assert [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "l1",
                    "name": "login",
                    "arguments": {"user": "ann", "api_key": "***"},
                }
            ],
            "finish_reason": "tool_calls",
        }
    ] == first_output
    second_input = json.loads(chats[1].attributes["gen_ai.input.messages"])
    assert ["system", "user", "assistant", "tool"] == [message["role"] for message in second_input]
    assert {"type": "tool_call_response", "id": "l1", "response": "ann logged in"} == second_input[3][
        "parts"
    ][0]
    for span in otel.spans():
        assert not [value for value in span.attributes.values() if SECRET in str(value)], span.name


class _OwnModel:
    """A ChatModel of the application's own, with a provider name."""

    name = "own-model"
    provider = "acme"

    def complete(self, messages: Sequence[Any], tools: Sequence[Any]) -> ModelReply:
        return ModelReply(
            content="fine", finish_reason="stop", usage=TokenUsage(prompt_tokens=5, completion_tokens=1)
        )

    async def acomplete(self, messages: Sequence[Any], tools: Sequence[Any]) -> ModelReply:
        return self.complete(messages, tools)


class _FailingModel(_OwnModel):
    def complete(self, messages: Sequence[Any], tools: Sequence[Any]) -> ModelReply:
        raise ModelError("slow down", code=ErrorCode.RATE_LIMIT)


def test_any_chat_model_gets_chat_spans_and_keeps_its_class(otel: OtelCapture, mode: str) -> None:
    """A model class of the application's own gets chat spans, its provider attribute named, and
    its class is left as it was."""
    own = _OwnModel.__dict__["complete"]
    _run(Agent(_registry(), _OwnModel()), "Hi.", mode)

    chat = otel.span("chat own-model")
    assert {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "acme",
        "gen_ai.request.model": "own-model",
        "gen_ai.usage.input_tokens": 5,
        "gen_ai.usage.output_tokens": 1,
        "gen_ai.response.finish_reasons": ("stop",),
    } == dict(chat.attributes)
    assert otel.span("invoke_agent").context.span_id == chat.parent.span_id
    assert own is _OwnModel.__dict__["complete"]


class _MiscountingModel(_OwnModel):
    def complete(self, messages: Sequence[Any], tools: Sequence[Any]) -> ModelReply:
        usage: Any = TokenUsage(prompt_tokens=10**30, completion_tokens=2.5)  # type: ignore[arg-type]
        return ModelReply(content="fine", finish_reason="stop", usage=usage)


def test_a_chat_span_counts_the_tokens_the_run_counts(otel: OtelCapture, mode: str) -> None:
    """A usage count the agent repairs (clamped, or not a count) is the chat span's as repaired."""
    result = _run(Agent(_registry(), _MiscountingModel()), "Hi.", mode)

    chat = otel.span("chat own-model")
    assert (2**53 - 1, 0) == (result.usage.prompt_tokens, result.usage.completion_tokens)
    assert 2**53 - 1 == chat.attributes["gen_ai.usage.input_tokens"]
    assert 0 == chat.attributes["gen_ai.usage.output_tokens"]


def test_a_subclass_that_calls_its_base_makes_one_chat_span(otel: OtelCapture) -> None:
    """A subclass of a model already used: one chat span per call, not two; a failure's
    ModelError code is the chat span's error.type."""
    Agent(_registry(), _OwnModel()).run("Hi.")
    otel.exporter.clear()

    Agent(_registry(), _FailingModel(), model_retry=NO_RETRY).run("Hi.")

    chat = otel.span("chat own-model")
    assert "RATE_LIMIT" == chat.attributes["error.type"]
    assert "RATE_LIMIT" == otel.span("invoke_agent").attributes["error.type"]


def test_a_run_that_raises_ends_its_span_in_error(otel: OtelCapture) -> None:
    """An empty task raises ValueError: the run's span ends, in error, and the error propagates."""
    with pytest.raises(ValueError, match="non-empty"):
        Agent(_registry(), _OwnModel()).run("  ")

    agent = otel.span("invoke_agent")
    assert StatusCode.ERROR == agent.status.status_code
    assert "ValueError" == agent.attributes["error.type"]
