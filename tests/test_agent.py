"""The agent loop over real HTTP: the official ``openai`` client talks to a scripted loopback
server, tools run through a ToolRegistry and its breaker, and each response's status decides
what the model reads next. Every test runs on the synchronous and the asynchronous path."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from scripted_chat import (
    ScriptedChatServer,
    ScriptedCompletion,
    ScriptedDisconnect,
    ScriptedHTTPError,
    ScriptedReply,
    ScriptedToolCall,
    ScriptStep,
)

from toolresponse import CircuitBreaker, ToolCallEvent, ToolRegistry, ToolResponse
from toolresponse.agent import Agent, AgentResult, ModelReply, OpenAIChatModel, RetryPolicy, RunOutcome
from toolresponse.cli import main as cli
from toolresponse.testing import FakeClock
from toolresponse.validation import is_valid

TOOL_RETRY = RetryPolicy(
    max_retries=2, initial_delay_s=0.1, multiplier=2.0, max_delay_s=5.0, max_total_wait_s=10.0
)
MODEL_RETRY = RetryPolicy(
    max_retries=3, initial_delay_s=1.0, multiplier=2.0, max_delay_s=20.0, max_total_wait_s=60.0
)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    """Each test runs once through ``Agent.run`` and once through ``Agent.arun``."""
    value: str = request.param
    return value


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _run(agent: Agent, task: str, mode: str) -> AgentResult:
    if mode == "sync":
        return agent.run(task)
    return asyncio.run(agent.arun(task))


def _agent(base_url: str, registry: ToolRegistry, clock: FakeClock, **options: Any) -> Agent:
    model = OpenAIChatModel("scripted-model", base_url=base_url, timeout_s=5, max_retries=0, env={})
    options.setdefault("tool_retry", TOOL_RETRY)
    options.setdefault("model_retry", MODEL_RETRY)
    return Agent(registry, model, clock=clock, sleep=clock.sleep, asleep=clock.asleep, **options)


def _call(
    name: str, arguments: str | dict[str, Any] | None = None, call_id: str | None = None
) -> ScriptedReply:
    return ScriptedReply(tool_calls=(ScriptedToolCall(name=name, arguments=arguments or {}, id=call_id),))


def _completion(message: dict[str, Any], *, finish_reason: str) -> dict[str, Any]:
    """A chat completion body of one choice, ``message``, ended by ``finish_reason``."""
    choice = {"index": 0, "finish_reason": finish_reason, "message": message}
    return {"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}


def _answer(text: str = "done") -> ScriptedReply:
    return ScriptedReply(content=text)


class Calls:
    """Counts the executions of the test tools, by name."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def hit(self, name: str) -> int:
        with self._lock:
            self.counts[name] = self.counts.get(name, 0) + 1
            return self.counts[name]


@pytest.fixture
def calls() -> Calls:
    return Calls()


def _registry(calls: Calls, breaker: CircuitBreaker | None = None) -> ToolRegistry:
    registry = ToolRegistry(breaker=breaker)

    @registry.tool
    def add(a: int, b: int) -> ToolResponse:
        """Add two integers."""
        calls.hit("add")
        return ToolResponse.success(f"{a} + {b} = {a + b}", data={"sum": a + b})

    @registry.tool
    def search(query: str) -> ToolResponse:
        """Search the notes."""
        calls.hit("search")
        return ToolResponse.partial(
            "First 2 of 9 notes.",
            data={"matches": ["n1", "n2"], "returned": 2, "total": 9, "truncated": True},
        )

    @registry.tool
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        calls.hit("divide")
        return a / b

    @registry.tool
    def read_file(path: str) -> ToolResponse:
        """Read a file."""
        calls.hit("read_file")
        return ToolResponse.error("NOT_FOUND", f"File {path} does not exist.", details={"path": path})

    @registry.tool
    def quote(symbol: str) -> ToolResponse:
        """A stock quote from an upstream API."""
        calls.hit("quote")
        return ToolResponse.error("API_ERROR", "The quote service answered 400: unknown symbol.")

    @registry.tool
    def fetch(url: str) -> ToolResponse:
        """Fetch a URL (always fails)."""
        calls.hit("fetch")
        return ToolResponse.error("EXECUTION_ERROR", f"Could not parse {url}.")

    return registry


@pytest.fixture
def serve() -> Iterator[Callable[[Any], ScriptedChatServer]]:
    """Start a scripted server for the test; every server started is stopped afterwards."""
    servers: list[ScriptedChatServer] = []

    def start(script: Any) -> ScriptedChatServer:
        server = ScriptedChatServer(script).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


Serve = Callable[[Any], ScriptedChatServer]


# -- status branches ---------------------------------------------------------------------------


def test_success_gives_the_model_the_text_and_keeps_the_data(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A success is fed back as its text; the result keeps the ToolResponse with its data."""
    server = serve([_call("add", {"a": 2, "b": 3}, "c1"), _answer("5")])
    registry = _registry(calls)
    events: list[ToolCallEvent] = []
    registry.add_listener(events.append)
    result = _run(_agent(server.base_url, registry, clock), "What is 2 + 3?", mode)
    assert (RunOutcome.ANSWERED, "5") == (result.outcome, result.answer)
    assert [{"role": "tool", "tool_call_id": "c1", "content": "2 + 3 = 5"}] == server.tool_messages()
    assert [{"sum": 5}] == [response.data for response in result.responses]
    assert [("add", "c1")] == [(event.tool, event.call_id) for event in events]
    assert ["user", "assistant", "tool", "assistant"] == [m["role"] for m in result.messages[1:]]


def test_partial_is_marked_incomplete_with_why(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A partial result reaches the model as incomplete, with the reason from its data."""
    server = serve([_call("search", {"query": "agents"}), _answer()])
    result = _run(_agent(server.base_url, _registry(calls), clock), "Find notes.", mode)
    (message,) = server.tool_messages()
    assert message["content"].startswith("PARTIAL RESULT (incomplete): First 2 of 9 notes.\n")
    assert "not the whole answer (only 2 of 9 were returned)" in message["content"]
    assert result.responses[0].is_partial
    assert ["n1", "n2"] == result.responses[0].data["matches"]


ERROR_KINDS = [
    (
        "add",
        {"a": "x"},
        [
            "ERROR INVALID_PARAM: ",
            "Fix the arguments and call 'add' again. What is wrong:\n"
            '- (the arguments): "b" is a required property\n'
            '- /a: "x" is not of type "integer"',
        ],
    ),
    (
        "divide",
        {"a": 1, "b": 0},
        [
            "ERROR EXECUTION_ERROR: Tool 'divide' failed: ZeroDivisionError: division by zero",
            "Do not repeat the same call unchanged: change the inputs or take another approach.",
        ],
    ),
    (
        "read_file",
        {"path": "notes.txt"},
        [
            'ERROR NOT_FOUND: File notes.txt does not exist.\nDetails: {"path": "notes.txt"}',
            "check the name or path you gave, or use another resource.",
        ],
    ),
    (
        "quote",
        {"symbol": "XYZ"},
        ["ERROR API_ERROR: ", "use another source, or answer with what you already have."],
    ),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"), ERROR_KINDS, ids=[kind[0] for kind in ERROR_KINDS]
)
def test_each_error_kind_tells_the_model_what_to_do_next(
    mode: str,
    clock: FakeClock,
    calls: Calls,
    serve: Serve,
    tool: str,
    arguments: dict[str, Any],
    expected: list[str],
) -> None:
    """An error reaches the model as its code, its message and the next step for its kind."""
    server = serve([_call(tool, arguments), _answer()])
    result = _run(_agent(server.base_url, _registry(calls), clock), "Go.", mode)
    (message,) = server.tool_messages()
    for part in expected:
        assert part in message["content"]
    assert (RunOutcome.ANSWERED, ()) == (result.outcome, clock.sleeps)


# -- retryable errors --------------------------------------------------------------------------


def _flaky_registry(failures: int, code: str, retry_after_ms: int | None) -> tuple[ToolRegistry, list[int]]:
    registry = ToolRegistry()
    attempts: list[int] = []

    @registry.tool
    def weather(city: str) -> ToolResponse:
        """Today's weather."""
        attempts.append(len(attempts))
        if len(attempts) <= failures:
            return ToolResponse.error(code, "Upstream busy.", retry_after_ms=retry_after_ms)
        return ToolResponse.success(f"Sunny in {city}.")

    return registry, attempts


RETRIES = [
    # failures, code, retry_after_ms, sleeps, statuses, the model's message starts/contains
    (2, "RATE_LIMIT", 1500, (1.5, 1.5), ["error", "error", "success"], "Sunny in Oslo."),
    (1, "NETWORK_ERROR", None, (0.1,), ["error", "success"], "Sunny in Oslo."),
    (2, "TIMEOUT", 50, (0.1, 0.2), ["error", "error", "success"], "Sunny in Oslo."),
    (
        9,
        "RATE_LIMIT",
        1500,
        (1.5, 1.5),
        ["error", "error", "error"],
        "The loop already retried this call 2 times over 3 s; it still fails. "
        "It may succeed again after 1.5 s.",
    ),
    (
        9,
        "RATE_LIMIT",
        60_000,
        (),
        ["error"],
        "The loop did not retry it: the wait it asks for is longer than this run may wait.",
    ),
]


@pytest.mark.parametrize(
    ("failures", "code", "retry_after_ms", "sleeps", "statuses", "told"),
    RETRIES,
    ids=[
        "rate-limit-recovers",
        "backoff-recovers",
        "hint-below-backoff",
        "retries-exhausted",
        "hint-over-cap",
    ],
)
def test_retryable_errors_are_retried_by_the_loop_honouring_retry_after(
    mode: str,
    clock: FakeClock,
    serve: Serve,
    failures: int,
    code: str,
    retry_after_ms: int | None,
    sleeps: tuple[float, ...],
    statuses: list[str],
    told: str,
) -> None:
    """The loop waits max(backoff, retry_after_ms) between attempts within its caps, then tells the model."""
    registry, attempts = _flaky_registry(failures, code, retry_after_ms)
    server = serve([_call("weather", {"city": "Oslo"}), _answer()])
    result = _run(_agent(server.base_url, registry, clock), "Weather?", mode)
    assert sleeps == clock.sleeps
    (record,) = result.tool_calls
    assert statuses == [response.status.value for response in record.attempts]
    assert told in server.tool_messages()[0]["content"]
    assert len(statuses) == len(attempts)


def test_circuit_open_tells_the_model_not_to_call_the_tool_before_recovery(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve, tmp_path: Path
) -> None:
    """After the breaker trips, the tool is not run: the model learns when it may be called again."""
    breaker = CircuitBreaker(failure_threshold=2, recovery_timeout_s=300, clock=clock)
    script = [_call("fetch", {"url": f"https://example.org/{n}"}) for n in range(3)] + [_answer()]
    server = serve(script)
    trace = tmp_path / "trace.jsonl"
    result = _run(_agent(server.base_url, _registry(calls, breaker), clock, trace=trace), "Fetch.", mode)
    assert 2 == calls.counts["fetch"]
    assert ["EXECUTION_ERROR", "EXECUTION_ERROR", "CIRCUIT_OPEN"] == [
        response.code.value if response.code else None for response in result.responses
    ]
    last = server.tool_messages()[-1]["content"]
    assert last.startswith("ERROR CIRCUIT_OPEN: ")
    assert "Do not call 'fetch' again for the next 300 s: use another tool, or answer without it." in last
    assert () == clock.sleeps
    events = [json.loads(line) for line in trace.read_text("utf-8").splitlines()]
    assert [("fetch", "closed", "open")] == [
        (e["tool"], e["from"], e["to"]) for e in events if e["event"] == "breaker"
    ]


def test_unknown_tool_lists_the_available_tools_and_never_trips_the_breaker(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A misspelled tool is NOT_FOUND every time, with the real tool names, however often it is called."""
    breaker = CircuitBreaker(failure_threshold=1, clock=clock)
    server = serve([_call("ad", {"a": 1, "b": 2}), _answer()])
    result = _run(_agent(server.base_url, _registry(calls, breaker), clock), "Add.", mode)
    content = server.tool_messages()[0]["content"]
    assert content.startswith("ERROR NOT_FOUND: No tool named 'ad'. Did you mean 'add'?")
    assert content.endswith(
        "Call one of the available tools by its exact name: add, search, divide, read_file, quote, fetch."
    )
    assert ({}, "closed") == (calls.counts, breaker.state("ad").value)
    assert RunOutcome.ANSWERED == result.outcome


@pytest.mark.parametrize("arguments", ["{bad json", "[1, 2]", '"just a string"'])
def test_malformed_arguments_become_invalid_param_fed_back(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve, arguments: str
) -> None:
    """Arguments that are not a JSON object are answered INVALID_PARAM; the tool never runs."""
    server = serve([_call("add", arguments), _answer()])
    result = _run(_agent(server.base_url, _registry(calls), clock), "Add.", mode)
    assert ({}, "INVALID_PARAM") == (calls.counts, result.responses[0].code)
    assert server.tool_messages()[0]["content"].startswith(
        "ERROR INVALID_PARAM: Invalid arguments for tool 'add'"
    )
    assert RunOutcome.ANSWERED == result.outcome


def test_empty_arguments_are_the_empty_object(mode: str, clock: FakeClock, serve: Serve) -> None:
    """An empty argument string (some servers send it for no arguments) calls the tool with {}."""
    registry = ToolRegistry()

    @registry.tool
    def now() -> str:
        """The time."""
        return "noon"

    server = serve([_call("now", ""), _answer()])
    result = _run(_agent(server.base_url, registry, clock), "Time?", mode)
    assert "noon" == server.tool_messages()[0]["content"]
    assert result.responses[0].is_success


def test_the_same_failing_call_is_not_run_a_third_time(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """After two failures of one tool with the same arguments (in any key order), the loop refuses it."""
    server = serve(
        [
            _call("divide", {"a": 1, "b": 0}),
            _call("divide", {"a": 1, "b": 0}),
            _call("divide", '{"b": 0, "a": 1}'),
            _call("divide", {"a": 1, "b": 2}),
            _answer("0.5"),
        ]
    )
    result = _run(_agent(server.base_url, _registry(calls), clock), "Divide.", mode)
    assert 3 == calls.counts["divide"]
    assert [True, True, False, True] == [record.executed for record in result.tool_calls]
    refused = server.requests[3]["messages"][-1]["content"]
    assert refused.startswith(
        "NOT EXECUTED: this exact call ('divide' with these same arguments) already failed 2"
    )
    assert "Change strategy" in refused
    assert "0.5" == server.tool_messages()[-1]["content"]
    assert 3 == len(result.responses)


# -- concurrency -------------------------------------------------------------------------------


def test_parallel_calls_of_one_turn_run_concurrently_and_come_back_in_call_order(
    mode: str, clock: FakeClock, serve: Serve
) -> None:
    """Two tools that each wait for the other at a barrier both finish: they ran at the same time."""
    barrier = threading.Barrier(2, timeout=5)
    registry = ToolRegistry()

    @registry.tool
    def left() -> str:
        """Waits for right."""
        barrier.wait()
        return "left done"

    @registry.tool
    def right() -> str:
        """Waits for left."""
        barrier.wait()
        return "right done"

    turn = ScriptedReply(
        tool_calls=(ScriptedToolCall(name="right", id="r"), ScriptedToolCall(name="left", id="l"))
    )
    server = serve([turn, _answer()])
    _run(_agent(server.base_url, registry, clock), "Both.", mode)
    assert [("r", "right done"), ("l", "left done")] == [
        (m["tool_call_id"], m["content"]) for m in server.tool_messages()
    ]


def test_parallel_calls_are_bounded_by_max_parallel_tools(mode: str, clock: FakeClock, serve: Serve) -> None:
    """Four calls with max_parallel_tools=2 run two at a time: pairs meet at a barrier of two."""
    barrier = threading.Barrier(2, timeout=5)
    lock = threading.Lock()
    running = [0, 0]  # now, most at once
    registry = ToolRegistry()

    @registry.tool
    def work(n: int) -> str:
        """One unit of work."""
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
        barrier.wait()
        with lock:
            running[0] -= 1
        return f"unit {n}"

    turn = ScriptedReply(
        tool_calls=tuple(ScriptedToolCall(name="work", arguments={"n": n}) for n in range(4))
    )
    server = serve([turn, _answer()])
    _run(_agent(server.base_url, registry, clock, max_parallel_tools=2), "Work.", mode)
    assert [f"unit {n}" for n in range(4)] == [m["content"] for m in server.tool_messages()]
    assert 2 == running[1]


# -- model errors ------------------------------------------------------------------------------

MODEL_FAILURES = [
    (
        [ScriptedHTTPError(status=429, message="slow down", headers={"Retry-After": "2"})] * 4,
        (2.0, 2.0, 4.0),
        "the model failed: RATE_LIMIT (HTTP 429): slow down (after 4 attempts and 8 s of backoff)",
    ),
    (
        [ScriptedHTTPError(status=500, message="boom")] * 4,
        (1.0, 2.0, 4.0),
        "the model failed: API_ERROR (HTTP 500): boom (after 4 attempts and 7 s of backoff)",
    ),
    (
        [ScriptedDisconnect()] * 4,
        (1.0, 2.0, 4.0),
        "the model failed: NETWORK_ERROR: cannot reach",
    ),
    (
        [ScriptedHTTPError(status=401, message="invalid api key")],
        (),
        "the model failed: API_ERROR (HTTP 401): invalid api key",
    ),
]


@pytest.mark.parametrize(
    ("script", "sleeps", "reason"), MODEL_FAILURES, ids=["429", "500", "disconnect", "401-not-retried"]
)
def test_model_errors_are_retried_with_backoff_then_end_the_run(
    mode: str,
    clock: FakeClock,
    calls: Calls,
    serve: Serve,
    script: list[ScriptStep],
    sleeps: tuple[float, ...],
    reason: str,
) -> None:
    """429, 5xx and connection errors are retried (honouring Retry-After), then the run is model_error."""
    server = serve(script)
    result = _run(_agent(server.base_url, _registry(calls), clock), "Hi.", mode)
    assert (RunOutcome.MODEL_ERROR, None, sleeps) == (result.outcome, result.answer, clock.sleeps)
    assert result.reason.startswith(reason)
    assert len(script) == len(server.requests)


def test_connection_refused_is_retried_then_ends_the_run(mode: str, clock: FakeClock, calls: Calls) -> None:
    """No server on the port at all: retried with backoff, then model_error naming the address."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = _run(_agent(f"http://127.0.0.1:{port}/v1", _registry(calls), clock), "Hi.", mode)
    assert (RunOutcome.MODEL_ERROR, (1.0, 2.0, 4.0)) == (result.outcome, clock.sleeps)
    assert result.reason.startswith(
        f"the model failed: NETWORK_ERROR: cannot reach http://127.0.0.1:{port}/v1"
    )


def test_a_model_that_recovers_continues_the_run(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A 500 and a 429 in a row are waited out; the run then answers."""
    server = serve([ScriptedHTTPError(status=500), ScriptedHTTPError(status=429), _answer("hello")])
    result = _run(_agent(server.base_url, _registry(calls), clock), "Hi.", mode)
    assert (RunOutcome.ANSWERED, "hello", (1.0, 2.0)) == (result.outcome, result.answer, clock.sleeps)


def test_max_steps_ends_a_run_that_never_answers(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A model that keeps calling tools is stopped after max_steps turns, without an answer."""
    server = serve(lambda messages: _call("add", {"a": len(messages), "b": 1}))
    result = _run(_agent(server.base_url, _registry(calls), clock, max_steps=3), "Loop.", mode)
    assert (RunOutcome.MAX_STEPS, None, 3, 3) == (
        result.outcome,
        result.answer,
        len(result.steps),
        calls.counts["add"],
    )
    assert "the model was still calling tools after 3 steps (max_steps=3)" == result.reason


# -- trace -------------------------------------------------------------------------------------


def test_trace_records_the_run_with_usage_statuses_times_and_masked_secrets(
    mode: str,
    clock: FakeClock,
    calls: Calls,
    serve: Serve,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every event of a run is one JSON line; secrets are masked; the report reads the trace."""
    registry = _registry(calls)

    @registry.tool
    def login(user: str, api_key: str) -> str:
        """Log in."""
        return "ok"

    secret = "sk-" + "a1B2c3D4e5F6g7H8i9J0"
    turn = ScriptedReply(
        tool_calls=(
            ScriptedToolCall(name="login", arguments={"user": "ann", "api_key": secret}),
            ScriptedToolCall(name="search", arguments={"query": "x"}),
            ScriptedToolCall(name="divide", arguments={"a": 1, "b": 0}),
        ),
        prompt_tokens=40,
        completion_tokens=9,
    )
    server = serve([turn, ScriptedReply(content="done", prompt_tokens=60, completion_tokens=2)])
    trace = tmp_path / "trace.jsonl"
    _run(_agent(server.base_url, registry, clock, trace=trace), f"Log in with {secret}.", mode)
    text = trace.read_text("utf-8")
    assert secret not in text
    events = [json.loads(line) for line in text.splitlines()]
    assert ["run_start", "model_output", "tool_request", "tool_request", "tool_request"] == [
        e["event"] for e in events[:5]
    ]
    assert ["tool_result"] * 3 == sorted(e["event"] for e in events[5:8])
    assert ["model_output", "run_end"] == [e["event"] for e in events[8:]]
    assert {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49} == events[1]["usage"]
    assert "***" == events[2]["arguments"]["api_key"]
    results = {e["tool"]: e for e in events if e["event"] == "tool_result"}
    assert ("success", None) == (results["login"]["status"], results["login"]["code"])
    assert ("partial", "error", "EXECUTION_ERROR") == (
        results["search"]["status"],
        results["divide"]["status"],
        results["divide"]["code"],
    )
    assert all(isinstance(e["time_ms"], float) and e["time_ms"] >= 0 for e in results.values())
    assert ("answered", 111) == (events[-1]["outcome"], events[-1]["usage"]["total_tokens"])
    assert 1 == len({e["run_id"] for e in events})
    assert 0 == cli(["report", str(trace)])
    assert "tokens 111 (prompt 100, completion 11)" in capsys.readouterr().out


# -- other models ------------------------------------------------------------------------------


class _BrokenModel:
    """A ChatModel of another provider whose client raises something unexpected."""

    def complete(self, messages: Any, tools: Any) -> ModelReply:
        raise RuntimeError("socket closed by provider SDK")

    async def acomplete(self, messages: Any, tools: Any) -> ModelReply:
        raise RuntimeError("socket closed by provider SDK")


def test_any_exception_from_a_plugged_in_model_ends_the_run_clearly(
    mode: str, clock: FakeClock, calls: Calls
) -> None:
    """An exception that is not a ModelError is not retried and ends the run with its type and message."""
    agent = Agent(_registry(calls), _BrokenModel(), clock=clock, sleep=clock.sleep, asleep=clock.asleep)
    result = _run(agent, "Hi.", mode)
    assert (RunOutcome.MODEL_ERROR, ()) == (result.outcome, clock.sleeps)
    assert "the model failed: API_ERROR: RuntimeError: socket closed by provider SDK" == result.reason


class _OddReplyModel:
    """A ChatModel of the application's own whose reply's finish_reason and model are not text."""

    def complete(self, messages: Any, tools: Any) -> ModelReply:
        return ModelReply(content="two", finish_reason=["stop"], model=7)  # type: ignore[arg-type]

    async def acomplete(self, messages: Any, tools: Any) -> ModelReply:
        return self.complete(messages, tools)


def test_a_plugged_in_models_finish_reason_that_is_not_text_is_left_out(mode: str, calls: Calls) -> None:
    """A finish_reason or model that is not text, from any ChatModel, is dropped; the run answers."""
    result = _run(Agent(_registry(calls), _OddReplyModel()), "Hi.", mode)
    assert (RunOutcome.ANSWERED, "two") == (result.outcome, result.answer)
    assert (None, None) == (result.steps[-1].reply.finish_reason, result.steps[-1].reply.model)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_steps": 0}, "max_steps must be an int >= 1, not 0"),
        ({"max_parallel_tools": 0}, "max_parallel_tools must be an int >= 1, not 0"),
        ({"max_failures_per_call": True}, "max_failures_per_call must be an int >= 1, not True"),
    ],
)
def test_bad_settings_are_refused_when_the_agent_is_built(options: dict[str, Any], message: str) -> None:
    """Out-of-range limits fail at construction with the setting named."""
    with pytest.raises(ValueError, match=message):
        Agent(ToolRegistry(), _BrokenModel(), **options)


def test_a_model_that_is_not_a_chat_model_is_refused() -> None:
    """Something without complete/acomplete is refused at construction."""
    with pytest.raises(TypeError, match="model must be a ChatModel"):
        Agent(ToolRegistry(), object())  # type: ignore[arg-type]


class _FullDisk:
    """A trace writer that fails from its third record on."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: Any) -> None:
        if len(self.records) == 2:
            raise OSError(28, "No space left on device")
        self.records.append(dict(record))


def test_a_failing_trace_never_fails_the_run(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve, caplog: pytest.LogCaptureFixture
) -> None:
    """A trace writer that raises stops the trace with one warning; the run still answers."""
    server = serve([_call("add", {"a": 1, "b": 1}), _answer("2")])
    writer = _FullDisk()
    result = _run(_agent(server.base_url, _registry(calls), clock, trace=writer), "Add.", mode)
    assert (RunOutcome.ANSWERED, ["run_start", "model_output"]) == (
        result.outcome,
        [record["event"] for record in writer.records],
    )
    expected = "the agent trace stopped after an error writing a tool_request event: [Errno 28] No space left"
    assert [expected + " on device"] == [record.getMessage() for record in caplog.records]


# -- hardening: masking and replies no well-behaved server sends -------------------------------


def test_the_model_output_event_masks_the_argument_text(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve, tmp_path: Path
) -> None:
    """The raw argument text in model_output is masked like the tool_request (parsed or not)."""
    server = serve(
        [
            _call("search", '{"query": "x", "api_key": "hunter2-zebra"}'),
            _call("search", '{"query": "x", "password": "hunter2-zebra'),
            _answer(),
        ]
    )
    trace = tmp_path / "trace.jsonl"
    _run(_agent(server.base_url, _registry(calls), clock, trace=trace), "Search.", mode)
    text = trace.read_text("utf-8")
    assert "hunter2-zebra" not in text
    outputs = [json.loads(line) for line in text.splitlines() if '"model_output"' in line]
    assert ['{"query":"x","api_key":"***"}', '{"query": "x", "password": "***'] == [
        output["tool_calls"][0]["arguments"] for output in outputs[:2]
    ]


def test_the_result_reason_masks_a_credential_quoted_by_the_provider(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A provider error that quotes the refused key does not carry it into AgentResult.reason."""
    secret = "sk-live-" + "Zx9Yw8Vu7Ts6Rq5Po4"
    server = serve([ScriptedHTTPError(status=401, message=f"Invalid header Authorization: Bearer {secret}")])
    result = _run(_agent(server.base_url, _registry(calls), clock), "Hi.", mode)
    assert RunOutcome.MODEL_ERROR == result.outcome
    assert secret not in result.reason
    assert "Authorization: Bearer ***" in result.reason


def test_calls_past_the_limit_of_a_turn_are_not_run_and_the_model_is_told(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A reply asking for more tool calls than ``max_tool_calls_per_step`` runs the first ones;
    each of the others gets a tool message (every call is answered) saying it did not run and
    may be asked for again, and a RATE_LIMIT response in the record; the run goes on."""
    many = ScriptedReply(
        tool_calls=tuple(
            ScriptedToolCall(name="add", arguments={"a": n, "b": 1}, id=f"c{n}") for n in range(5)
        )
    )
    server = serve([many, _answer("ok")])
    result = _run(_agent(server.base_url, _registry(calls), clock, max_tool_calls_per_step=3), "Add.", mode)
    assert (RunOutcome.ANSWERED, {"add": 3}) == (result.outcome, calls.counts)
    records = result.steps[0].tool_calls
    assert [True, True, True, False, False] == [record.executed for record in records]
    assert [None, None, None, "RATE_LIMIT", "RATE_LIMIT"] == [
        record.response.code.value if record.response.code else None for record in records
    ]
    messages = server.tool_messages()
    assert ["c0", "c1", "c2", "c3", "c4"] == [message["tool_call_id"] for message in messages]
    assert messages[3]["content"].startswith("NOT EXECUTED: this reply asked for 5 tool calls and at most 3")
    assert all(is_valid(record.response.to_dict()) for record in records)


def test_a_nameless_call_past_the_limit_of_a_turn_is_answered(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A call past ``max_tool_calls_per_step`` with no name and no id still gets its RATE_LIMIT
    answer (a valid response, its context without the empty name); the run goes on."""
    reply = ScriptedReply(
        tool_calls=(
            ScriptedToolCall(name="add", arguments={"a": 1, "b": 1}, id="c0"),
            ScriptedToolCall(name="", arguments={}, id=""),
        )
    )
    server = serve([reply, _answer("ok")])
    result = _run(_agent(server.base_url, _registry(calls), clock, max_tool_calls_per_step=1), "Add.", mode)
    held = result.steps[0].tool_calls[1]
    assert (RunOutcome.ANSWERED, False, "RATE_LIMIT") == (
        result.outcome,
        held.executed,
        held.response.code.value if held.response.code else None,
    )
    assert is_valid(held.response.to_dict())


def test_the_limit_of_calls_per_turn_is_a_positive_count() -> None:
    with pytest.raises(ValueError, match="max_tool_calls_per_step must be an int >= 1, not 0"):
        Agent(
            ToolRegistry(),
            OpenAIChatModel("m", base_url="http://127.0.0.1:9", env={}),
            max_tool_calls_per_step=0,
        )


@pytest.mark.parametrize(
    ("finish_reason", "outcome", "reason"),
    [
        ("stop", RunOutcome.ANSWERED, "the model answered"),
        ("length", RunOutcome.INCOMPLETE, "cut off at its output limit"),
        ("content_filter", RunOutcome.INCOMPLETE, "filter stopped"),
    ],
)
def test_a_reply_cut_off_is_an_incomplete_answer(
    mode: str,
    clock: FakeClock,
    calls: Calls,
    serve: Serve,
    finish_reason: str,
    outcome: RunOutcome,
    reason: str,
) -> None:
    """A final reply that did not end by itself (its output limit, a content filter) is not
    "answered": the run is "incomplete", keeps the text so far, and says why."""
    body = _completion({"role": "assistant", "content": "The answer is"}, finish_reason=finish_reason)
    server = serve([ScriptedCompletion(body=body)])
    result = _run(_agent(server.base_url, _registry(calls), clock), "Add.", mode)
    assert (outcome, "The answer is", outcome is RunOutcome.ANSWERED) == (
        result.outcome,
        result.answer,
        result.answered,
    )
    assert reason in result.reason


def test_arguments_sent_as_an_object_are_answered_invalid_format(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve, tmp_path: Path
) -> None:
    """Arguments that are an object, not text, reach the model as INVALID_FORMAT; the run goes on."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add", "arguments": {"a": 1}}}],
    }
    body = _completion(message, finish_reason="tool_calls")
    body["usage"] = {"prompt_tokens": "many", "completion_tokens": None}
    server = serve([ScriptedCompletion(body=body), _answer("ok")])
    trace = tmp_path / "trace.jsonl"
    result = _run(_agent(server.base_url, _registry(calls), clock, trace=trace), "Add.", mode)
    assert (RunOutcome.ANSWERED, {}) == (result.outcome, calls.counts)
    message = server.tool_messages()[0]["content"]
    assert message.startswith("ERROR INVALID_FORMAT: The tool call to 'add' could not be read: its arguments")
    events = [json.loads(line) for line in trace.read_text("utf-8").splitlines()]
    assert "run_end" == events[-1]["event"]
    assert [
        "usage.prompt_tokens 'many' is not a count: counted as 0",
        "usage.completion_tokens None is not a count: counted as 0",
    ] == events[1]["notes"]


def test_a_call_without_a_function_name_is_told_once_and_pointed_at_the_tools(
    mode: str, clock: FakeClock, calls: Calls, serve: Serve
) -> None:
    """A call whose function has no name is answered INVALID_FORMAT in one sentence saying so,
    and the model is told the names it may call, not to call '' again."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"arguments": "{}"}}],
    }
    server = serve([ScriptedCompletion(body=_completion(message, finish_reason="tool_calls")), _answer("ok")])
    result = _run(_agent(server.base_url, _registry(calls), clock), "Add.", mode)
    assert (RunOutcome.ANSWERED, {}) == (result.outcome, calls.counts)
    text = server.tool_messages()[0]["content"]
    assert 1 == text.count("no function name"), text
    assert text.startswith("ERROR INVALID_FORMAT: The tool call could not be read: it has no function name. ")
    assert "''" not in text
    listed = "add, search, divide, read_file, quote, fetch"
    assert text.endswith(
        f"\nThe call names no tool. Call one of the available tools by its exact name: {listed}."
    )
