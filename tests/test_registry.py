"""ToolRegistry: registration, every answer of execute/aexecute, the breaker, events and model schemas."""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Callable
from types import MappingProxyType
from typing import Annotated, Any

import pytest

from toolresponse import (
    CircuitBreaker,
    CircuitState,
    ErrorCode,
    FunctionTool,
    Tool,
    ToolCallEvent,
    ToolDefinitionError,
    ToolRegistry,
    ToolResponse,
    ToolStatus,
    validate,
)
from toolresponse.testing import FakeClock
from toolresponse.tools._prepared import ToolSpec


def valid(response: ToolResponse) -> ToolResponse:
    """The response, after asserting that its wire form validates against the schema."""
    assert [] == list(validate(response.to_dict()).errors)
    return response


def details_of(response: ToolResponse) -> dict[str, Any]:
    """The error details of a response, asserting it has some."""
    assert response.error_info is not None
    assert response.error_info.details is not None
    return response.error_info.details


async def run_through(registry: ToolRegistry, via: str, name: str, **options: Any) -> ToolResponse:
    """The answer of ``registry.execute`` or ``await registry.aexecute``, as ``via`` says."""
    if via == "execute":
        return registry.execute(name, **options)
    return await registry.aexecute(name, **options)


class FakeBreaker:
    """Records what the registry asks; refuses with ``refusal`` when set."""

    def __init__(self, refusal: Any = None) -> None:
        self.refusal = refusal
        self.admitted: list[str] = []
        self.recorded: list[tuple[str, ErrorCode | None]] = []

    def admit(self, tool_name: str) -> ToolResponse | None:
        self.admitted.append(tool_name)
        return self.refusal  # type: ignore[no-any-return]

    def record(self, tool_name: str, response: ToolResponse) -> None:
        self.recorded.append((tool_name, response.code))

    def state(self, tool_name: str) -> CircuitState:
        return CircuitState.CLOSED


class BrokenBreaker(FakeBreaker):
    """A breaker with a bug in ``where`` ("admit" or "record")."""

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def admit(self, tool_name: str) -> ToolResponse | None:
        if self.where == "admit":
            raise RuntimeError("admit is broken")
        return super().admit(tool_name)

    def record(self, tool_name: str, response: ToolResponse) -> None:
        if self.where == "record":
            raise RuntimeError("record is broken")
        super().record(tool_name, response)


@pytest.fixture
def registry() -> ToolRegistry:
    """A registry with a few plain functions."""
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        return a + b

    @registry.tool(name="divide", description="Divide a by b.")
    def div(a: float, b: float) -> dict[str, float]:
        return {"quotient": a / b}

    @registry.tool
    def search(query: str) -> ToolResponse:
        """Search."""
        return ToolResponse.partial(f"First 2 of 9 for {query}.", {"returned": 2, "total": 9})

    return registry


# -- registration ---------------------------------------------------------------------------


def test_decorators_return_the_function(registry: ToolRegistry) -> None:
    """@registry.tool leaves the function callable as before."""

    @registry.tool
    def triple(x: int) -> int:
        return 3 * x

    assert 6 == triple(2)
    assert ["add", "divide", "search", "triple"] == registry.names()


def test_register_kinds_and_overrides() -> None:
    """register takes functions, Tool objects and Tool subclasses, with name/description/timeout overrides."""

    class Ping(Tool):
        name = "ping"
        description = "Answer pong."

        def run(self, params: dict[str, Any]) -> ToolResponse:
            return ToolResponse.success("pong")

    def count(items: list[Any]) -> int:
        return len(items)

    registry = ToolRegistry()
    function_tool = registry.register(count, name="length", description="Count.", timeout_s=2)
    registry.register(Ping)
    registry.register(Ping(), name="ping2", description="Again.", timeout_s=1.5)
    assert isinstance(function_tool, FunctionTool)
    assert [
        ("length", "Count.", 2.0),
        ("ping", "Answer pong.", None),
        ("ping2", "Again.", 1.5),
    ] == [(spec.name, spec.description, spec.timeout_s) for spec in registry.list_tools()]
    assert "pong" == registry.execute("ping2").text


@pytest.mark.parametrize(
    ("target", "kwargs", "message"),
    [
        (42, {}, "a Tool or a callable"),
        (lambda: None, {}, "pass name="),
        (lambda x, /: x, {"name": "pos"}, "positional-only"),
    ],
)
def test_bad_registrations_are_refused(target: Any, kwargs: dict[str, Any], message: str) -> None:
    """Registering something that is not a usable tool raises ToolDefinitionError."""
    with pytest.raises(ToolDefinitionError, match=message):
        ToolRegistry().register(target, **kwargs)


def test_duplicate_names_are_refused(registry: ToolRegistry) -> None:
    """A name can be registered once."""
    with pytest.raises(ToolDefinitionError, match="already registered"):
        registry.register(lambda: None, name="add")


def test_lookup(registry: ToolRegistry) -> None:
    """names, in, len, get, spec and unregister describe what is registered."""
    tool = registry.get("add")
    assert isinstance(tool, FunctionTool)
    assert (True, False, 3, None, None) == (
        "add" in registry,
        "nope" in registry,
        len(registry),
        registry.get("nope"),
        registry.spec("nope"),
    )
    registry.unregister("add")
    assert ["divide", "search"] == list(registry)
    with pytest.raises(KeyError):
        registry.unregister("add")


def test_list_tools_describes_each_tool(registry: ToolRegistry) -> None:
    """list_tools gives name, description, parameters and output schema (for GET /tools)."""
    spec = registry.spec("divide")
    assert (
        ToolSpec(
            name="divide",
            description="Divide a by b.",
            parameters={
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
                "additionalProperties": False,
            },
            output_schema={"type": "object", "additionalProperties": {"type": "number"}},
            timeout_s=None,
            is_async=False,
        )
        == spec
    )
    assert {"name", "description", "parameters", "output_schema"} == set(spec.to_dict())


# -- answers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "params", "status", "data"),
    [
        ("add", {"a": 2, "b": 3}, ToolStatus.SUCCESS, {"output": 5}),
        ("add", '{"a": 2}', ToolStatus.SUCCESS, {"output": 2}),
        ("add", b'{"a": 1, "b": 1}', ToolStatus.SUCCESS, {"output": 2}),
        ("divide", {"a": 1, "b": 4}, ToolStatus.SUCCESS, {"quotient": 0.25}),
        ("search", {"query": "x"}, ToolStatus.PARTIAL, {"returned": 2, "total": 9}),
    ],
)
def test_plain_functions_are_called_with_keyword_arguments(
    registry: ToolRegistry, name: str, params: Any, status: ToolStatus, data: dict[str, Any]
) -> None:
    """A function's value is wrapped (output, or the dict itself); a ToolResponse is kept."""
    response = valid(registry.execute(name, params))
    assert (status, data) == (response.status, response.data)


def test_context_and_stats_are_filled() -> None:
    """The registry's clock times the call; context names the tool, the params and the call id."""
    clock = FakeClock(10.0)
    registry = ToolRegistry(clock=clock)

    @registry.tool
    def slow(n: int) -> int:
        clock.advance(0.5)
        return n

    response = valid(registry.execute("slow", {"n": 1}, call_id="call_7"))
    assert {"time_ms": 500.0} == response.stats
    assert {"tool_name": "slow", "params_input": {"n": 1}, "call_id": "call_7"} == response.context


def test_unknown_tools_get_the_nearest_names(registry: ToolRegistry) -> None:
    """An unknown name is NOT_FOUND listing the nearest registered names (case-insensitive)."""
    response = valid(registry.execute("Serach", {"query": "x"}))
    assert ErrorCode.NOT_FOUND == response.code
    assert {"tool": "Serach", "suggestions": ["search"], "available": ["add", "divide", "search"]} == (
        details_of(response)
    )
    assert "Did you mean 'search'?" in response.text


@pytest.mark.parametrize("name", ["", None, 42, "\ud800x"], ids=repr)
def test_unusual_unknown_names_still_get_valid_answers(registry: ToolRegistry, name: Any) -> None:
    """Names that are empty, not strings or not valid Unicode are NOT_FOUND, and valid."""
    assert ErrorCode.NOT_FOUND == valid(registry.execute(name)).code


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("repr() itself fails")


@pytest.mark.parametrize("via", ["execute", "aexecute"])
async def test_a_name_whose_repr_fails_is_not_found_and_told(registry: ToolRegistry, via: str) -> None:
    """A name that is no string and cannot be shown (its repr raises) is NOT_FOUND, named by its
    type, and the listeners hear of the call; nothing raises."""
    events: list[ToolCallEvent] = []
    registry.add_listener(events.append)
    name = _Unprintable()
    response = registry.execute(name) if via == "execute" else await registry.aexecute(name)  # type: ignore[arg-type]
    assert (ErrorCode.NOT_FOUND, "No tool named '<_Unprintable>'.") == (
        valid(response).code,
        response.text.split(" Available")[0],
    )
    assert ["<_Unprintable>"] == [event.tool for event in events]


def test_unknown_tools_never_reach_the_breaker() -> None:
    """The breaker is not asked about an unknown name, so typos cannot open a circuit."""
    breaker = FakeBreaker()
    registry = ToolRegistry(breaker=breaker)
    for _ in range(5):
        registry.execute("missing")
    assert ([], []) == (breaker.admitted, breaker.recorded)


def test_a_misspelled_tool_stays_not_found_with_a_real_breaker() -> None:
    """The fourth call to a misspelled tool is still NOT_FOUND, never CIRCUIT_OPEN."""
    registry = ToolRegistry(breaker=CircuitBreaker(failure_threshold=3, clock=FakeClock()))
    registry.register(lambda: "ok", name="real")
    codes = [registry.execute("reall").code for _ in range(6)]
    assert [ErrorCode.NOT_FOUND] * 6 == codes


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ({"a": "2"}, "schema"),
        ({"b": 2}, "schema"),
        ({"a": 1, "c": 3}, "schema"),
        ({"a": True}, "schema"),
        ("42", "not_object"),
        ("not json", "not_json"),
        ("[1]", "not_object"),
        (7, "not_object"),
    ],
)
def test_invalid_params(registry: ToolRegistry, params: Any, reason: str) -> None:
    """Parameters that do not fit are INVALID_PARAM (not retryable), with the reason."""
    response = valid(registry.execute("add", params))
    assert (ErrorCode.INVALID_PARAM, False, reason) == (
        response.code,
        response.is_retryable,
        details_of(response)["reason"],
    )


def test_invalid_params_name_every_violation(registry: ToolRegistry) -> None:
    """Each violation is named, so that a model can correct all of them at once."""
    response = valid(registry.execute("add", {"a": "x", "b": "y", "z": 0}))
    assert [("/a", "type"), ("/b", "type"), ("", "additionalProperties")] == [
        (violation["pointer"], violation["keyword"]) for violation in details_of(response)["violations"]
    ]


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        ("x" * 3000, "is longer than 20 characters"),
        ({"nested": ["y" * 3000]}, 'is not of type "string"'),
    ],
    ids=["long string", "large object"],
)
def test_a_long_value_is_cut_short_so_that_the_rule_it_broke_is_read(value: Any, rule: str) -> None:
    """The value a violation quotes is shortened, never the rule after it, in the text and the details."""
    registry = ToolRegistry()

    @registry.tool
    def echo(word: Annotated[str, {"maxLength": 20}]) -> str:
        return word

    response = valid(registry.execute("echo", {"word": value}))
    [violation] = details_of(response)["violations"]
    assert (True, True, True) == (
        violation["message"].endswith(rule),
        len(violation["message"]) < 120,
        f"{rule}. Fix the arguments" in response.text,
    )


def test_exceptions_are_execution_errors(registry: ToolRegistry) -> None:
    """A tool's exception is EXECUTION_ERROR with the type and message."""
    response = valid(registry.execute("divide", {"a": 1, "b": 0}))
    assert (ErrorCode.EXECUTION_ERROR, {"exception": "ZeroDivisionError", "message": "division by zero"}) == (
        response.code,
        details_of(response),
    )


@pytest.mark.parametrize(
    ("value", "status", "code"),
    [
        ({2, 1}, ToolStatus.SUCCESS, None),
        (b"raw", ToolStatus.ERROR, ErrorCode.EXECUTION_ERROR),
        (float("nan"), ToolStatus.ERROR, ErrorCode.EXECUTION_ERROR),
        (object(), ToolStatus.ERROR, ErrorCode.EXECUTION_ERROR),
    ],
    ids=["set", "bytes", "nan", "object"],  # stable ids: parallel workers must collect the same tests
)
def test_values_are_converted_or_refused(value: Any, status: ToolStatus, code: ErrorCode | None) -> None:
    """A function's value is converted as documented, or refused as EXECUTION_ERROR; always valid."""
    registry = ToolRegistry()
    registry.register(lambda: value, name="odd")
    response = valid(registry.execute("odd"))
    assert (status, code) == (response.status, response.code)


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit], ids=repr)
async def test_interrupts_propagate_through_the_registry(error: type[BaseException]) -> None:
    """KeyboardInterrupt and SystemExit propagate from execute and aexecute."""
    registry = ToolRegistry(breaker=FakeBreaker())

    def interrupt() -> None:
        raise error

    registry.register(interrupt)
    with pytest.raises(error):
        registry.execute("interrupt")
    with pytest.raises(error):
        await registry.aexecute("interrupt")


@pytest.mark.parametrize("via", ["execute", "aexecute"])
@pytest.mark.parametrize("where", ["admit", "record"])
async def test_a_broken_breaker_is_an_internal_error(where: str, via: str) -> None:
    """A bug in the breaker is INTERNAL_ERROR, not a crash and not the tool's fault."""
    registry = ToolRegistry(breaker=BrokenBreaker(where))
    registry.register(lambda: "ok", name="fine")
    response = valid(await run_through(registry, via, "fine", call_id="c"))
    assert (ErrorCode.INTERNAL_ERROR, "fine", "c") == (
        response.code,
        (response.context or {})["tool_name"],
        (response.context or {})["call_id"],
    )


def test_a_breaker_refusal_that_is_not_a_response_is_an_internal_error() -> None:
    """A breaker answering admit() with something odd is INTERNAL_ERROR."""
    registry = ToolRegistry(breaker=FakeBreaker(refusal="closed"))
    registry.register(lambda: "ok", name="fine")
    assert ErrorCode.INTERNAL_ERROR == valid(registry.execute("fine")).code


def test_call_ids_are_strings() -> None:
    """A call_id that is not a string is recorded as its str."""
    registry = ToolRegistry()
    registry.register(lambda: "ok", name="fine")
    assert "17" == (valid(registry.execute("fine", call_id=17)).context or {})["call_id"]  # type: ignore[arg-type]


# -- the circuit breaker through the registry -----------------------------------------------


def test_breaker_trips_and_recovers() -> None:
    """Failures open the circuit (the tool no longer runs); after recovery a probe closes it."""
    clock = FakeClock()
    breaker = CircuitBreaker(failure_threshold=3, recovery_timeout_s=30, clock=clock)
    registry = ToolRegistry(breaker=breaker, clock=clock)
    runs: list[bool] = []
    healthy = False

    @registry.tool
    def flaky() -> str:
        runs.append(healthy)
        if not healthy:
            raise ConnectionError("upstream down")
        return "ok"

    codes = [registry.execute("flaky").code for _ in range(5)]
    assert [ErrorCode.EXECUTION_ERROR] * 3 + [ErrorCode.CIRCUIT_OPEN] * 2 == codes
    assert 3 == len(runs)
    refused = valid(registry.execute("flaky", call_id="c9"))
    assert (True, 30_000, {"tool_name": "flaky", "params_input": {}, "call_id": "c9"}) == (
        refused.is_retryable,
        refused.retry_after_ms,
        refused.context,
    )
    clock.advance(30)
    healthy = True
    assert ToolStatus.SUCCESS == valid(registry.execute("flaky")).status
    assert CircuitState.CLOSED == breaker.state("flaky")


def test_invalid_params_do_not_trip_the_breaker() -> None:
    """A model's bad arguments are not the tool's failure: the circuit stays closed."""
    registry = ToolRegistry(breaker=CircuitBreaker(failure_threshold=2, clock=FakeClock()))
    registry.register(lambda n: n, name="echo")
    for _ in range(5):
        registry.execute("echo", {"m": 1})
    assert ToolStatus.SUCCESS == registry.execute("echo", {"n": 1}).status


def test_the_breaker_hears_every_executed_call() -> None:
    """admit is asked before, and record told after, every call of a known tool."""
    breaker = FakeBreaker()
    registry = ToolRegistry(breaker=breaker)
    registry.register(lambda a: a, name="echo")
    registry.execute("echo", {"a": 1})
    registry.execute("echo", {"b": 1})
    assert (["echo", "echo"], [("echo", None), ("echo", ErrorCode.INVALID_PARAM)]) == (
        breaker.admitted,
        breaker.recorded,
    )


# -- timeouts -------------------------------------------------------------------------------


Advance = Callable[[FakeClock, float], threading.Thread]
"""The ``advance_when_waiting`` fixture: a thread that advances the clock once a call waits on it."""


def fake_time_registry(clock: FakeClock, **options: Any) -> ToolRegistry:
    """A registry that times its calls and waits for its tools on ``clock``."""
    return ToolRegistry(clock=clock, wait=clock.wait, async_wait=clock.async_wait, **options)


def test_a_sync_tool_hanging_for_10_s_is_answered_within_its_timeout(
    release: threading.Event, advance_when_waiting: Advance
) -> None:
    """A sync tool that hangs for 10 s gets TIMEOUT (retryable) the moment its 0.2 s timeout
    passes on the clock, while it still hangs."""
    clock = FakeClock()
    registry = fake_time_registry(clock, breaker=CircuitBreaker(clock=clock))

    @registry.tool(timeout_s=0.2)
    def hang() -> str:
        release.wait(10)
        return "late"

    advance_when_waiting(clock, 0.2)
    response = valid(registry.execute("hang", {}, call_id="slow-1"))
    assert (ErrorCode.TIMEOUT, True, "slow-1", 200.0, False) == (
        response.code,
        response.is_retryable,
        (response.context or {})["call_id"],
        (response.stats or {})["time_ms"],
        release.is_set(),
    )


def test_registry_default_timeout(release: threading.Event, advance_when_waiting: Advance) -> None:
    """default_timeout_s applies to a tool without its own timeout."""
    clock = FakeClock()
    registry = fake_time_registry(clock, default_timeout_s=0.05)
    registry.register(lambda: release.wait(10), name="hang")
    advance_when_waiting(clock, 0.05)
    response = valid(registry.execute("hang"))
    assert (ErrorCode.TIMEOUT, {"timeout_s": 0.05}, 50.0) == (
        response.code,
        details_of(response),
        (response.stats or {})["time_ms"],
    )


async def test_a_tools_own_timeout_wins(release: threading.Event, advance_when_waiting: Advance) -> None:
    """A per-tool timeout overrides the registry default, sync and async alike: each call times
    out 0.05 s after it began, not 60 s. (Were the default used, the tools would end on their
    own after 10 s.)"""

    async def hang() -> None:
        await asyncio.sleep(10)

    answers = []
    for name, via in [("hang", "aexecute"), ("block", "aexecute"), ("hang", "execute"), ("block", "execute")]:
        clock = FakeClock()
        registry = fake_time_registry(clock, default_timeout_s=60)
        registry.register(hang, timeout_s=0.05)
        registry.register(lambda: release.wait(10), name="block", timeout_s=0.05)
        advance_when_waiting(clock, 0.05)
        if via == "aexecute":
            response = await registry.aexecute(name)
        else:
            response = await asyncio.to_thread(registry.execute, name)
        answers.append((valid(response).code, details_of(response), (response.stats or {})["time_ms"]))
    assert [(ErrorCode.TIMEOUT, {"timeout_s": 0.05}, 50.0)] * 4 == answers


@pytest.mark.parametrize("via", ["execute", "aexecute"])
@pytest.mark.parametrize("name", ["hang", "block"])
async def test_real_time_waits_answer_a_hung_tool(release: threading.Event, via: str, name: str) -> None:
    """With the default waits (real time), a hung async or sync tool is answered TIMEOUT. Nothing
    is asserted on how long that took: only that it came, well before the tools' own 10 s."""
    registry = ToolRegistry(default_timeout_s=0.05)

    async def hang() -> None:
        await asyncio.sleep(10)

    registry.register(hang)
    registry.register(lambda: release.wait(10), name="block")
    response = await (
        registry.aexecute(name) if via == "aexecute" else asyncio.to_thread(registry.execute, name)
    )
    assert (ErrorCode.TIMEOUT, {"timeout_s": 0.05}) == (valid(response).code, details_of(response))


def test_bad_default_timeout() -> None:
    """default_timeout_s must be a positive number."""
    with pytest.raises(ToolDefinitionError, match="positive"):
        ToolRegistry(default_timeout_s=-1)


# -- async ----------------------------------------------------------------------------------


async def test_aexecute_mirrors_execute(registry: ToolRegistry) -> None:
    """aexecute gives the same answers as execute (time aside)."""

    async def fetch(url: str) -> dict[str, str]:
        await asyncio.sleep(0)
        return {"url": url}

    registry.register(fetch)
    calls = [
        ("add", {"a": 1}),
        ("fetch", {"url": "u"}),
        ("nope", {}),
        ("add", "42"),
        ("divide", {"a": 1, "b": 0}),
    ]
    for name, params in calls:
        sync = valid(registry.execute(name, params)).to_dict()
        asynchronous = valid(await registry.aexecute(name, params)).to_dict()
        sync.pop("stats")
        asynchronous.pop("stats")
        assert sync == asynchronous


# -- events ---------------------------------------------------------------------------------


@pytest.mark.parametrize("via", ["execute", "aexecute"])
async def test_every_call_emits_one_event(via: str) -> None:
    """Listeners get tool, call_id, status, code, time_ms and breaker state for every call."""
    clock = FakeClock()
    registry = ToolRegistry(breaker=CircuitBreaker(failure_threshold=1, clock=clock), clock=clock)
    registry.register(lambda: 1 / 0, name="boom")
    events: list[ToolCallEvent] = []
    registry.add_listener(events.append)
    for name, call_id in [("boom", "1"), ("boom", "2"), ("bom", "3")]:
        await run_through(registry, via, name, call_id=call_id)
    assert [
        ("boom", "1", ToolStatus.ERROR, ErrorCode.EXECUTION_ERROR, CircuitState.OPEN),
        ("boom", "2", ToolStatus.ERROR, ErrorCode.CIRCUIT_OPEN, CircuitState.OPEN),
        ("bom", "3", ToolStatus.ERROR, ErrorCode.NOT_FOUND, None),
    ] == [(e.tool, e.call_id, e.status, e.code, e.breaker_state) for e in events]
    assert {
        "event": "tool_call",
        "tool": "boom",
        "call_id": "2",
        "status": "error",
        "code": "CIRCUIT_OPEN",
        "retryable": True,
        "time_ms": 0.0,
        "breaker_state": "open",
    } == events[1].to_dict()


def test_a_failing_listener_changes_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """A listener that raises is logged; the call's answer and other listeners are unaffected."""
    registry = ToolRegistry()
    registry.register(lambda: "ok", name="fine")
    seen: list[str] = []

    def broken(event: ToolCallEvent) -> None:
        raise RuntimeError("listener bug")

    registry.add_listener(broken)
    registry.add_listener(lambda event: seen.append(event.tool))
    assert ToolStatus.SUCCESS == registry.execute("fine").status
    assert ["fine"] == seen
    assert "listener" in caplog.text
    registry.remove_listener(broken)
    with pytest.raises(ValueError, match="remove"):
        registry.remove_listener(broken)


# -- model schemas --------------------------------------------------------------------------


def test_tool_schemas_in_provider_formats() -> None:
    """Each provider gets its exact format."""
    registry = ToolRegistry()

    @registry.tool
    def weather(city: str) -> dict[str, float]:
        """Current temperature."""
        return {"celsius": 20.0}

    parameters = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    output = {"type": "object", "additionalProperties": {"type": "number"}}
    assert [
        {
            "type": "function",
            "function": {"name": "weather", "description": "Current temperature.", "parameters": parameters},
        }
    ] == registry.tool_schemas("openai")
    assert [
        {
            "type": "function",
            "name": "weather",
            "description": "Current temperature.",
            "parameters": parameters,
        }
    ] == registry.tool_schemas("openai-responses")
    assert [{"name": "weather", "description": "Current temperature.", "input_schema": parameters}] == (
        registry.tool_schemas("anthropic")
    )
    assert [
        {
            "name": "weather",
            "description": "Current temperature.",
            "inputSchema": parameters,
            "outputSchema": output,
        }
    ] == registry.tool_schemas("mcp")


def test_tool_schemas_are_copies() -> None:
    """Changing a returned schema does not change the registry."""
    registry = ToolRegistry()
    registry.register(lambda x: x, name="echo")
    registry.tool_schemas("openai")[0]["function"]["parameters"]["properties"].clear()
    assert {"x": {}} == registry.tool_schemas("anthropic")[0]["input_schema"]["properties"]


def test_empty_descriptions_are_left_out() -> None:
    """A tool without a description has no description member."""
    registry = ToolRegistry()
    registry.register(lambda: None, name="quiet")
    assert {
        "name": "quiet",
        "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
    } == (registry.tool_schemas("anthropic")[0])


def test_unknown_provider() -> None:
    """An unknown provider is a ValueError listing the known ones."""
    with pytest.raises(ValueError, match="'openai', 'openai-responses', 'anthropic', 'mcp'"):
        ToolRegistry().tool_schemas("gemini")


def test_tool_declared_schemas_are_used() -> None:
    """A Tool subclass's own parameters and output schema are what the registry checks and shows."""

    class Lookup(Tool):
        name = "lookup"
        parameters = MappingProxyType(
            {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}, "required": ["id"]}
        )
        output_schema = MappingProxyType({"type": "object", "required": ["record"]})

        def run(self, params: dict[str, Any]) -> ToolResponse:
            return ToolResponse.success("found", {"record": {"id": params["id"]}} if params["id"] < 5 else {})

    registry = ToolRegistry()
    registry.register(Lookup())
    assert [ToolStatus.SUCCESS, ErrorCode.INVALID_PARAM, ErrorCode.EXECUTION_ERROR] == [
        valid(registry.execute("lookup", {"id": 1})).status,
        valid(registry.execute("lookup", {"id": 0})).code,
        valid(registry.execute("lookup", {"id": 9})).code,
    ]


def test_threads_share_a_registry() -> None:
    """8 threads x 250 calls: every call answered, one event each, the tool ran for each success."""
    registry = ToolRegistry(breaker=CircuitBreaker(failure_threshold=10**6, clock=FakeClock()))
    lock = threading.Lock()
    runs = 0

    @registry.tool
    def count(n: int) -> int:
        nonlocal runs
        with lock:
            runs += 1
        if n % 5 == 0:
            raise ValueError("multiple of five")
        return n

    events: list[ToolCallEvent] = []
    registry.add_listener(events.append)
    answers: list[ErrorCode | None] = []

    def work(thread: int) -> None:
        mine = [registry.execute("count", {"n": thread * 1000 + i}).code for i in range(250)]
        with lock:
            answers.extend(mine)

    threads = [threading.Thread(target=work, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (2000, 2000, 2000) == (len(answers), len(events), runs)
    assert {None: 1600, ErrorCode.EXECUTION_ERROR: 400} == dict(collections.Counter(answers))
