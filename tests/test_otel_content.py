"""Content reaches OpenTelemetry only on opt-in, on every face: canary values in a call's arguments,
in an exception's text and in a tool name the caller chose appear in no span name, status
description, attribute, event or metric attribute that the real SDK's in-memory exporters hold
when content capture is off, and where the documentation says when it is on.

The faces: the registry (sync and async, a breaker's events, a call that raises through it), the
agent (its chat and run spans, a model error, a model that raises) and MCP both ways (the official
SDK client against our server in this process, and our client's remote tool)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import OtelCapture
from mcp import Client
from mcp_peers import serve_http_in_background

from toolresponse import CircuitBreaker, ErrorCode, ModelError, ToolRegistry
from toolresponse.agent import Agent, ModelReply, RetryPolicy, ToolCall
from toolresponse.mcp import attach, http_app
from toolresponse.testing import FakeClock
from toolresponse.tools import load_registry

ARGUMENT = "canary_argument_5150"
EXCEPTION = "canary_exception_8675"
NAME = "canary_name_1999"
CANARY = "canary"
"""What every canary begins with: no recorded text may hold even part of one without the opt-in."""

MCP_APP = Path(__file__).resolve().parent / "mcp"


def _where(otel: OtelCapture, text: str) -> set[tuple[str, str]]:
    """Every place the exporters hold ``text``: (span name, "name" | "status" | an attribute's key |
    "event <name>"), and ("metric <name>", an attribute's key)."""
    found: set[tuple[str, str]] = set()
    for span in otel.spans():
        places = [("name", span.name), ("status", span.status.description or "")]
        places += [(key, str(value)) for key, value in span.attributes.items()]
        for event in span.events:
            places.append((f"event {event.name}", event.name))
            places += [(f"event {event.name}", f"{key}={value}") for key, value in event.attributes.items()]
        places += [("link", str(dict(link.attributes or {}))) for link in span.links]
        found |= {(span.name, place) for place, value in places if text in value}
    data = otel.reader.get_metrics_data()
    for resource in data.resource_metrics if data is not None else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    found |= {
                        (f"metric {metric.name}", key)
                        for key, value in (point.attributes or {}).items()
                        if text in f"{key}={value!s}"
                    }
    return found


def _quoted(span: str) -> set[tuple[str, str]]:
    """Where a span with content capture on holds a text its call's error quotes: the arguments (if
    the text was one), the result and the status description."""
    return {(span, "gen_ai.tool.call.arguments"), (span, "gen_ai.tool.call.result"), (span, "status")}


UNKNOWN_NAME = {
    ("execute_tool", "gen_ai.tool.name"),
    ("execute_tool", "gen_ai.tool.call.result"),
    ("execute_tool", "status"),
}
"""Where a span with content capture on holds the name of a tool the registry does not have."""


@pytest.fixture(params=[False, True], ids=["capture-off", "capture-on"])
def capture(request: pytest.FixtureRequest, otel: OtelCapture) -> bool:
    """Each test runs with content capture off, then on."""
    value: bool = request.param
    otel.instrument(capture_content=value)
    return value


# -- the registry --------------------------------------------------------------------------


def _registry() -> ToolRegistry:
    registry = ToolRegistry(breaker=CircuitBreaker(failure_threshold=1), clock=FakeClock())

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @registry.tool
    def fail(text: str) -> str:
        """Always fails."""
        raise RuntimeError(f"upstream said {EXCEPTION}")

    @registry.tool
    def interrupted() -> str:
        """Raises through the registry."""
        raise KeyboardInterrupt(EXCEPTION)

    return registry


def test_registry_calls_record_content_only_on_opt_in(otel: OtelCapture, capture: bool) -> None:
    """An argument quoted by INVALID_PARAM, a tool's exception (which opens the circuit: an event),
    an unknown name (sync and async) and an exception raised through the registry: nothing of
    them without the opt-in; with it, the arguments, the result and the status description."""
    registry = _registry()
    registry.execute("add", {"a": ARGUMENT, "b": 1})
    registry.execute("fail", {"text": "plain"})
    registry.execute(NAME, {"a": ARGUMENT})
    asyncio.run(registry.aexecute(NAME, {}))
    with pytest.raises(KeyboardInterrupt):
        registry.execute("interrupted")

    assert otel.span("execute_tool fail").events  # the breaker's transition was recorded, and read
    if not capture:
        assert set() == _where(otel, CANARY)
        assert ["INVALID_PARAM", "EXECUTION_ERROR", "NOT_FOUND", "NOT_FOUND", "KeyboardInterrupt"] == [
            span.status.description for span in otel.spans()
        ]
        return
    assert _quoted("execute_tool add") | {("execute_tool", "gen_ai.tool.call.arguments")} == _where(
        otel, ARGUMENT
    )
    assert {
        ("execute_tool fail", "gen_ai.tool.call.result"),
        ("execute_tool fail", "status"),
        ("execute_tool interrupted", "status"),
    } == _where(otel, EXCEPTION)
    assert UNKNOWN_NAME == _where(otel, NAME)


# -- the agent -----------------------------------------------------------------------------


class _Model:
    """A model of the application's own that plays a script: a reply, or an exception to raise."""

    name = "scripted"
    provider = "acme"

    def __init__(self, *script: ModelReply | BaseException) -> None:
        self._script = iter(script)

    def complete(self, messages: Sequence[Any], tools: Sequence[Any]) -> ModelReply:
        step = next(self._script)
        if isinstance(step, BaseException):
            raise step
        return step

    async def acomplete(self, messages: Sequence[Any], tools: Sequence[Any]) -> ModelReply:
        return self.complete(messages, tools)


def _agent(model: _Model) -> Agent:
    clock = FakeClock()
    return Agent(_registry(), model, model_retry=RetryPolicy(max_retries=0), clock=clock, sleep=clock.sleep)


def test_agent_runs_record_content_only_on_opt_in(otel: OtelCapture, capture: bool) -> None:
    """A run whose model asks for a call with the canary argument and one of an unknown tool, then
    fails with the canary in its error; and a run whose model raises with it: nothing of them
    without the opt-in; with it, the messages and the status descriptions."""
    calls = (
        ToolCall(id="c1", name="add", arguments=json.dumps({"a": ARGUMENT, "b": 1})),
        ToolCall(id="c2", name=NAME, arguments="{}"),
    )
    refused = ModelError(f"the provider refused: {EXCEPTION}", code=ErrorCode.API_ERROR)
    result = _agent(_Model(ModelReply(tool_calls=calls, finish_reason="tool_calls"), refused)).run("Add.")
    assert "model_error" == result.outcome.value
    with pytest.raises(KeyboardInterrupt):
        _agent(_Model(KeyboardInterrupt(EXCEPTION))).run("Add.")

    if not capture:
        assert set() == _where(otel, CANARY)
        assert [None, "API_ERROR", "API_ERROR", "KeyboardInterrupt", "KeyboardInterrupt"] == [
            span.status.description for span in otel.spans() if not span.name.startswith("execute_tool")
        ]
        return
    chat = {("chat scripted", "gen_ai.input.messages"), ("chat scripted", "gen_ai.output.messages")}
    assert chat | _quoted("execute_tool add") == _where(otel, ARGUMENT)
    assert chat | UNKNOWN_NAME == _where(otel, NAME)
    assert {("chat scripted", "status"), ("invoke_agent", "status")} == _where(otel, EXCEPTION)
    descriptions = [span.status.description for span in otel.spans() if span.name == "invoke_agent"]
    assert [f"the model failed: API_ERROR: the provider refused: {EXCEPTION}", EXCEPTION] == descriptions


# -- MCP, served and called ----------------------------------------------------------------


@pytest.fixture
def served_url(otel: OtelCapture) -> Iterator[str]:
    """Our MCP server over streamable HTTP, in this process (so its spans are recorded here)."""
    with serve_http_in_background(
        http_app(load_registry("registry:build_registry", app_dir=str(MCP_APP)))
    ) as url:
        yield url


async def test_served_mcp_calls_record_content_only_on_opt_in(
    otel: OtelCapture, capture: bool, served_url: str
) -> None:
    """The official SDK client calls our server with the canary argument (quoted by INVALID_PARAM)
    and the canary name: nothing of them without the opt-in; with it, where the registry's are."""
    async with Client(served_url, read_timeout_seconds=30) as client:
        invalid = await client.call_tool("lookup", {"key": [ARGUMENT]})
        unknown = await client.call_tool(NAME, {"key": ARGUMENT})
    assert (True, True) == (invalid.is_error, unknown.is_error)

    if not capture:
        assert set() == _where(otel, CANARY)
        return
    assert _quoted("execute_tool lookup") | {("execute_tool", "gen_ai.tool.call.arguments")} == _where(
        otel, ARGUMENT
    )
    assert UNKNOWN_NAME == _where(otel, NAME)


def test_remote_mcp_calls_record_content_only_on_opt_in(
    otel: OtelCapture, capture: bool, served_url: str
) -> None:
    """Our client's remote tool called with the canary argument, which the server's calculator
    refuses quoting it: neither the calling registry's span nor the server's holds it without the
    opt-in; with it, both spans' arguments, results and status descriptions do."""
    registry = ToolRegistry()
    with attach(registry, served_url, prefix="remote_"):
        response = registry.execute("remote_calculator", {"expression": f"1 + {ARGUMENT}"})
    assert ErrorCode.INVALID_FORMAT is response.code

    if not capture:
        assert set() == _where(otel, CANARY)
        return
    assert _quoted("execute_tool remote_calculator") | _quoted("execute_tool calculator") == _where(
        otel, ARGUMENT
    )
