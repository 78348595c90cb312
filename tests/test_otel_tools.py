"""Registry calls as OpenTelemetry ``execute_tool`` spans and the ``gen_ai.execute_tool.duration``
metric, recorded by the SDK into in-memory exporters: every attribute of every kind of answer,
breaker transitions as events, nesting across threads and tasks, content only on opt-in."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import threading
from typing import Any

import pytest
from conftest import AdvanceWhenWaiting, OtelCapture
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode

from toolresponse import CircuitBreaker, ToolRegistry, ToolResponse
from toolresponse.otel import SEMCONV_VERSION, ToolResponseInstrumentor, mcp_request
from toolresponse.otel._conventions import CAPTURE_CONTENT_ENV, capture_content_from_env
from toolresponse.testing import FakeClock

MCP_NAMESPACES = ("mcp", "jsonrpc", "network")

SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"


def _registry(clock: FakeClock | None = None, breaker: CircuitBreaker | None = None) -> ToolRegistry:
    registry = ToolRegistry(breaker=breaker, clock=clock or FakeClock())

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @registry.tool
    def head(n: int) -> ToolResponse:
        """The first lines of a long listing."""
        return ToolResponse.partial(f"First {n} of 500 lines.", data={"returned": n, "total": 500})

    @registry.tool
    def fail(api_key: str) -> int:
        """Always fails."""
        raise RuntimeError(f"upstream refused the key {api_key}")

    return registry


def _common(tool: str, description: str | None = None, call_id: str | None = None) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool,
        "gen_ai.tool.type": "function",
    }
    if description is not None:
        attributes["gen_ai.tool.description"] = description
    if call_id is not None:
        attributes["gen_ai.tool.call.id"] = call_id
    return attributes


def test_the_conventions_version_is_named() -> None:
    """The instrumentation says which GenAI conventions it follows."""
    assert "semantic-conventions-genai v0.1.0" == SEMCONV_VERSION


def test_a_success_is_one_internal_span_with_every_attribute(otel: OtelCapture) -> None:
    """A successful call: span name, kind, unset status and every attribute, exactly."""
    registry = _registry(breaker=CircuitBreaker())
    registry.execute("add", {"a": 2, "b": 3}, call_id="call-1")

    span = otel.span("execute_tool add")
    assert SpanKind.INTERNAL == span.kind
    assert StatusCode.UNSET == span.status.status_code
    assert {
        **_common("add", "Add two integers.", "call-1"),
        "toolresponse.status": "success",
        "toolresponse.partial": False,
        "toolresponse.time_ms": 0.0,
        "toolresponse.breaker.state": "closed",
    } == dict(span.attributes)
    assert () == tuple(span.events)


def test_a_partial_result_is_marked_partial_and_not_an_error(otel: OtelCapture) -> None:
    """A partial answer: status partial, partial true, span status unset, no error.type."""
    _registry().execute("head", {"n": 100})

    span = otel.span("execute_tool head")
    assert StatusCode.UNSET == span.status.status_code
    assert {
        **_common("head", "The first lines of a long listing."),
        "toolresponse.status": "partial",
        "toolresponse.partial": True,
        "toolresponse.time_ms": 0.0,
    } == dict(span.attributes)


def test_a_tool_error_is_an_error_span_with_its_code(otel: OtelCapture) -> None:
    """A failing tool: status ERROR described by the code alone (the message quotes the exception),
    error.type the code, retryability and category."""
    response = _registry().execute("fail", {"api_key": SECRET})

    span = otel.span("execute_tool fail")
    assert (StatusCode.ERROR, "EXECUTION_ERROR") == (span.status.status_code, span.status.description)
    assert {
        **_common("fail", "Always fails."),
        "toolresponse.status": "error",
        "toolresponse.partial": False,
        "toolresponse.time_ms": 0.0,
        "error.type": "EXECUTION_ERROR",
        "toolresponse.retryable": response.is_retryable,
        "toolresponse.error.category": "execution",
    } == dict(span.attributes)


def test_invalid_parameters_are_an_error_span(otel: OtelCapture) -> None:
    """INVALID_PARAM answers are spans with that code."""
    _registry().execute("add", {"a": "two"})

    span = otel.span("execute_tool add")
    assert StatusCode.ERROR == span.status.status_code
    assert "INVALID_PARAM" == span.attributes["error.type"]
    assert False is span.attributes["toolresponse.retryable"]


def test_an_unknown_tool_is_a_span_too(otel: OtelCapture) -> None:
    """A name no tool has: a span (named execute_tool alone: the name is the caller's to choose)
    with the fixed tool name _unknown (the name asked for is recorded only with content capture),
    NOT_FOUND, no description and no breaker state."""
    _registry(breaker=CircuitBreaker()).execute("ad", {"a": 1}, call_id="c9")

    span = otel.span("execute_tool")
    assert (StatusCode.ERROR, "NOT_FOUND") == (span.status.status_code, span.status.description)
    assert {
        **_common("_unknown", call_id="c9"),
        "toolresponse.status": "error",
        "toolresponse.partial": False,
        "toolresponse.time_ms": 0.0,
        "error.type": "NOT_FOUND",
        "toolresponse.retryable": False,
        "toolresponse.error.category": "resource",
    } == dict(span.attributes)


def test_a_name_that_is_not_text_is_shown_as_its_repr(otel: OtelCapture) -> None:
    """A tool name that is not a string still gets a span, its repr as the tool attribute (with
    content capture on)."""
    otel.instrument(capture_content=True)
    _registry().execute(42, {})  # type: ignore[arg-type]

    attributes = otel.span("execute_tool").attributes
    assert ("NOT_FOUND", "42") == (attributes["error.type"], attributes["gen_ai.tool.name"])


def test_breaker_transitions_are_events_and_circuit_open_is_a_span(otel: OtelCapture) -> None:
    """The failure that opens the circuit carries the transition; the refused call is a CIRCUIT_OPEN
    span; the probe that closes it again carries both of its transitions."""
    clock = FakeClock()
    breaker = CircuitBreaker(failure_threshold=1, recovery_timeout_s=30, clock=clock)
    registry = ToolRegistry(breaker=breaker, clock=clock)
    healthy = threading.Event()

    @registry.tool
    def flaky() -> str:
        """Fails until healthy."""
        if not healthy.is_set():
            raise ConnectionError("down")
        return "up"

    registry.execute("flaky")
    registry.execute("flaky")
    clock.advance(30)
    healthy.set()
    registry.execute("flaky")

    opened, refused, probed = otel.spans()
    assert [
        (
            "toolresponse.breaker.state_change",
            {
                "gen_ai.tool.name": "flaky",
                "toolresponse.breaker.from": "closed",
                "toolresponse.breaker.to": "open",
                "toolresponse.breaker.reason": "failure_threshold",
                "toolresponse.breaker.consecutive_failures": 1,
            },
        )
    ] == [(event.name, dict(event.attributes)) for event in opened.events]
    assert "open" == opened.attributes["toolresponse.breaker.state"]

    assert StatusCode.ERROR == refused.status.status_code
    assert {
        **_common("flaky", "Fails until healthy."),
        "toolresponse.status": "error",
        "toolresponse.partial": False,
        "toolresponse.time_ms": 0.0,
        "error.type": "CIRCUIT_OPEN",
        "toolresponse.retryable": True,
        "toolresponse.error.category": "state",
        "toolresponse.retry_after_ms": 30000,
        "toolresponse.breaker.state": "open",
    } == dict(refused.attributes)
    assert () == tuple(refused.events)

    assert [("open", "half_open", "recovery_timeout"), ("half_open", "closed", "probe_succeeded")] == [
        (
            event.attributes["toolresponse.breaker.from"],
            event.attributes["toolresponse.breaker.to"],
            event.attributes["toolresponse.breaker.reason"],
        )
        for event in probed.events
    ]
    assert StatusCode.UNSET == probed.status.status_code


def test_a_timeout_is_an_error_span(
    otel: OtelCapture, advance_when_waiting: AdvanceWhenWaiting, release: threading.Event
) -> None:
    """A tool that outlives its timeout (on a fake clock): TIMEOUT, retryable, stats.time_ms kept."""
    clock = FakeClock()
    registry = ToolRegistry(clock=clock, wait=clock.wait)

    @registry.tool(timeout_s=0.2)
    def hang() -> str:
        """Waits for the test to end."""
        release.wait()
        return "late"

    advance_when_waiting(clock, 0.2)
    registry.execute("hang")

    span = otel.span("execute_tool hang")
    assert StatusCode.ERROR == span.status.status_code
    assert "TIMEOUT" == span.attributes["error.type"]
    assert True is span.attributes["toolresponse.retryable"]
    assert 200.0 == span.attributes["toolresponse.time_ms"]


# -- nesting -------------------------------------------------------------------------------


def _nesting_registry(otel: OtelCapture) -> ToolRegistry:
    """Tools that each make a span of their own (as an instrumented client would)."""
    tracer = otel.tracer_provider.get_tracer("a-client-library")
    registry = ToolRegistry()

    def inner() -> str:
        with tracer.start_as_current_span("client call"):
            return "ok"

    @registry.tool
    def plain() -> str:
        return inner()

    @registry.tool(timeout_s=30)
    def threaded() -> str:
        return inner()

    @registry.tool
    async def coroutine() -> str:
        await asyncio.sleep(0)
        return inner()

    @registry.tool(timeout_s=30)
    async def coroutine_timed() -> str:
        await asyncio.sleep(0)
        return inner()

    return registry


def _assert_nested(otel: OtelCapture, tool: str) -> None:
    spans = {span.name: span for span in otel.spans()}
    assert {f"execute_tool {tool}", "client call"} == set(spans)
    outer, client = spans[f"execute_tool {tool}"], spans["client call"]
    assert outer.context.span_id == client.parent.span_id
    assert outer.context.trace_id == client.context.trace_id


@pytest.mark.parametrize("tool", ["plain", "threaded", "coroutine", "coroutine_timed"])
def test_spans_a_tool_makes_nest_under_its_span_when_called_synchronously(
    otel: OtelCapture, tool: str
) -> None:
    """execute: in the calling thread, a worker thread (timeout) and the background event loop."""
    response = _nesting_registry(otel).execute(tool)

    assert response.is_success, response.text
    _assert_nested(otel, tool)


@pytest.mark.parametrize("tool", ["plain", "threaded", "coroutine", "coroutine_timed"])
def test_spans_a_tool_makes_nest_under_its_span_when_awaited(otel: OtelCapture, tool: str) -> None:
    """aexecute: awaited coroutines, tasks under a timeout and sync tools in worker threads."""
    response = asyncio.run(_nesting_registry(otel).aexecute(tool))

    assert response.is_success, response.text
    _assert_nested(otel, tool)


def test_a_tool_span_is_a_child_of_the_callers_span(otel: OtelCapture) -> None:
    """A call made inside the application's own span is its child."""
    tracer = otel.tracer_provider.get_tracer("the-application")
    with tracer.start_as_current_span("handle request") as parent:
        _registry().execute("add", {"a": 1, "b": 1})

    assert parent.get_span_context().span_id == otel.span("execute_tool add").parent.span_id


def test_concurrent_calls_each_get_their_own_span(otel: OtelCapture) -> None:
    """Calls from many threads at once: one span each, none nested in another."""
    registry = _registry()
    threads = [
        threading.Thread(target=registry.execute, args=("add", {"a": n, "b": n}), kwargs={"call_id": str(n)})
        for n in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    spans = otel.spans()
    assert sorted(str(n) for n in range(8)) == sorted(
        span.attributes["gen_ai.tool.call.id"] for span in spans
    )
    assert all(span.parent is None for span in spans)


def test_a_call_that_raises_through_the_registry_ends_its_span(otel: OtelCapture) -> None:
    """KeyboardInterrupt propagates through the registry: the span still ends, in error."""
    registry = ToolRegistry()

    @registry.tool
    def interrupted() -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        registry.execute("interrupted")

    span = otel.span("execute_tool interrupted")
    assert StatusCode.ERROR == span.status.status_code
    assert "KeyboardInterrupt" == span.attributes["error.type"]


# -- metrics -------------------------------------------------------------------------------


def test_the_duration_metric_has_status_and_code_dimensions(otel: OtelCapture) -> None:
    """gen_ai.execute_tool.duration: one histogram series per tool, status and code, in seconds."""
    registry = _registry()
    registry.execute("add", {"a": 1, "b": 2})
    registry.execute("add", {"a": 3, "b": 4})
    registry.execute("head", {"n": 1})
    registry.execute("fail", {"api_key": "k"})
    registry.execute("nothing")

    series = {
        tuple(sorted(point.attributes.items())): point.count
        for point in otel.points("gen_ai.execute_tool.duration")
    }
    base = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function"}
    expected = {
        tuple(sorted({**base, "gen_ai.tool.name": "add", "toolresponse.status": "success"}.items())): 2,
        tuple(sorted({**base, "gen_ai.tool.name": "head", "toolresponse.status": "partial"}.items())): 1,
        tuple(
            sorted(
                {
                    **base,
                    "gen_ai.tool.name": "fail",
                    "toolresponse.status": "error",
                    "error.type": "EXECUTION_ERROR",
                }.items()
            )
        ): 1,
        tuple(
            sorted(
                {
                    **base,
                    "gen_ai.tool.name": "_unknown",  # an unknown tool: one series, whatever the name
                    "toolresponse.status": "error",
                    "error.type": "NOT_FOUND",
                }.items()
            )
        ): 1,
    }
    assert expected == series
    for point in otel.points("gen_ai.execute_tool.duration"):
        assert point.sum >= 0.0
        assert (0.01, 0.02, 0.04, 81.92) == (*point.explicit_bounds[:3], point.explicit_bounds[-1])


# -- content: only on opt-in, always masked ------------------------------------------------


def test_arguments_and_results_are_not_recorded_by_default(otel: OtelCapture) -> None:
    """Without the opt-in no span has gen_ai.tool.call.arguments or .result."""
    _registry().execute("add", {"a": 1, "b": 2})

    attributes = otel.span("execute_tool add").attributes
    assert "gen_ai.tool.call.arguments" not in attributes
    assert "gen_ai.tool.call.result" not in attributes


def test_with_content_capture_arguments_and_results_are_recorded_masked(otel: OtelCapture) -> None:
    """The opt-in records the parameters and the response (without its context) as JSON, and the
    error message as the status description, secrets masked in all three."""
    otel.instrument(capture_content=True)
    registry = _registry()
    registry.execute("add", {"a": 1, "b": 2})
    registry.execute("fail", {"api_key": SECRET})

    add, fail = otel.spans()
    assert {"a": 1, "b": 2} == json.loads(add.attributes["gen_ai.tool.call.arguments"])
    assert {"status": "success", "text": "3", "data": {"output": 3}, "stats": {"time_ms": 0.0}} == json.loads(
        add.attributes["gen_ai.tool.call.result"]
    )
    assert {"api_key": "***"} == json.loads(fail.attributes["gen_ai.tool.call.arguments"])
    result = json.loads(fail.attributes["gen_ai.tool.call.result"])
    assert "EXECUTION_ERROR" == result["error_info"]["code"]
    assert "context" not in result
    assert SECRET not in fail.status.description
    assert fail.status.description.startswith(
        "Tool 'fail' failed: RuntimeError: upstream refused the key sk-"
    )


def test_no_attribute_of_any_span_holds_the_secret(otel: OtelCapture) -> None:
    """With content capture on, the secret appears in no attribute, status or event of any span."""
    otel.instrument(capture_content=True)
    registry = _registry(breaker=CircuitBreaker(failure_threshold=1))
    registry.execute("fail", {"api_key": SECRET}, call_id=f"token={SECRET}")
    registry.execute("fail", f'{{"api_key": "{SECRET}"}}')
    registry.execute(f"tool {SECRET}", {"password": SECRET})

    assert 3 == len(otel.spans())
    for span in otel.spans():
        texts = [span.name, span.status.description or ""]
        texts += [str(value) for value in span.attributes.values()]
        texts += [str(value) for event in span.events for value in event.attributes.values()]
        assert not [text for text in texts if SECRET in text], span.name


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, False),
        ("", False),
        ("false", False),
        ("NO_CONTENT", False),
        ("EVENT_ONLY", False),
        ("true", True),
        ("True", True),
        ("SPAN_ONLY", True),
        ("span_and_event", True),
    ],
)
def test_the_content_setting_is_read_from_the_conventions_variable(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool
) -> None:
    """OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: the boolean form and the span modes."""
    if value is None:
        monkeypatch.delenv(CAPTURE_CONTENT_ENV, raising=False)
    else:
        monkeypatch.setenv(CAPTURE_CONTENT_ENV, value)
    assert expected is capture_content_from_env()


def test_an_unknown_content_setting_records_nothing_and_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A value the conventions do not define: off, with a warning naming the variable."""
    monkeypatch.setenv(CAPTURE_CONTENT_ENV, "everything")
    with caplog.at_level(logging.WARNING, logger="toolresponse.otel"):
        assert False is capture_content_from_env()
    assert CAPTURE_CONTENT_ENV in caplog.text
    assert "'everything'" in caplog.text


def test_instrument_follows_the_environment_when_not_told(
    otel: OtelCapture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """instrument() without capture_content reads the variable."""
    monkeypatch.setenv(CAPTURE_CONTENT_ENV, "SPAN_ONLY")
    otel.instrument(capture_content=None)
    _registry().execute("add", {"a": 1, "b": 2})

    assert "gen_ai.tool.call.arguments" in otel.span("execute_tool add").attributes


def test_capture_content_must_be_a_boolean() -> None:
    """instrument(capture_content="yes") is refused with a clear error."""
    instrumentor = ToolResponseInstrumentor()
    with pytest.raises(TypeError, match="capture_content must be True, False or None"):
        instrumentor.instrument(capture_content="yes")
    assert not instrumentor.is_instrumented_by_opentelemetry


# -- MCP -----------------------------------------------------------------------------------


def test_calls_inside_an_mcp_request_carry_the_mcp_attributes(otel: OtelCapture) -> None:
    """mcp_request adds the MCP conventions' attributes to the tool span (no second span)."""
    registry = _registry()
    with mcp_request(
        "tools/call", request_id=7, session_id="s-1", protocol_version="2025-11-25", transport="pipe"
    ):
        asyncio.run(registry.aexecute("add", {"a": 1, "b": 2}, call_id="7"))
    registry.execute("head", {"n": 1})

    add = otel.span("execute_tool add")
    assert {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": "7",
        "mcp.session.id": "s-1",
        "mcp.protocol.version": "2025-11-25",
        "network.transport": "pipe",
    } == {
        key: value
        for key, value in add.attributes.items()
        if key.startswith(("mcp.", "jsonrpc.", "network."))
    }
    assert not [key for key in otel.span("execute_tool head").attributes if key.startswith("mcp.")]


def test_an_mcp_request_needs_a_method() -> None:
    """An empty method is refused."""
    with pytest.raises(ValueError, match="the MCP method must be a non-empty string"), mcp_request(""):
        pass


# -- instrument and uninstrument -----------------------------------------------------------


def test_an_mcp_request_needs_no_opentelemetry_package() -> None:
    """mcp_request works where OpenTelemetry is not installed: it only sets a context variable."""
    code = (
        "import sys; sys.modules['opentelemetry'] = None\n"
        "from toolresponse.otel import mcp_request\n"
        "with mcp_request('tools/call', request_id=1): print('served')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (0, "served\n") == (result.returncode, result.stdout)


def test_uninstrument_restores_the_registry_and_records_nothing_more(otel: OtelCapture) -> None:
    """After uninstrument the registry's methods are its own again and calls make no spans; a second
    instrument works again."""
    instrumented = ToolRegistry.execute
    otel.instrumentor.uninstrument()
    assert instrumented is not ToolRegistry.execute
    assert "execute" == ToolRegistry.execute.__name__
    assert not hasattr(ToolRegistry.execute, "__wrapped__")

    _registry(breaker=CircuitBreaker(failure_threshold=1)).execute("fail", {"api_key": "k"})
    assert [] == otel.spans()

    otel.instrument()
    _registry().execute("add", {"a": 1, "b": 2})
    assert ["execute_tool add"] == [span.name for span in otel.spans()]


def test_instrumenting_twice_wraps_once(otel: OtelCapture, caplog: pytest.LogCaptureFixture) -> None:
    """A second instrument() is a warning, and calls still make one span each."""
    with caplog.at_level(logging.WARNING):
        ToolResponseInstrumentor().instrument()
    assert "already instrumented" in caplog.text
    _registry().execute("add", {"a": 1, "b": 2})

    assert 1 == len(otel.spans())


def test_spans_follow_the_global_provider_when_none_is_given() -> None:
    """instrument() with no provider uses the global one (here the API's no-op default): calls still
    answer as without instrumentation."""
    instrumentor = ToolResponseInstrumentor()
    instrumentor.instrument()
    try:
        response = _registry().execute("add", {"a": 1, "b": 2})
        assert isinstance(trace.get_current_span(), trace.NonRecordingSpan)
    finally:
        instrumentor.uninstrument()
    assert "3" == response.text
