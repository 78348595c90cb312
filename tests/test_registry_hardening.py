"""The registry against tools that misbehave: what an adversarial review found, each guarded.

A response owns its values; every integer it carries serialises; a tool that blocks (an
async tool that blocks its event loop, a sync tool that hangs) holds only its own, bounded
threads; look-alike responses are refused; secrets in parameters and exception text are
masked unless masking is turned off; tools run under the caller's ``contextvars`` context.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from typing import Any
from unittest.mock import Mock
from urllib.parse import quote

import orjson
import pytest

from toolresponse import (
    CircuitBreaker,
    ErrorCode,
    ResponseValidationError,
    Tool,
    ToolRegistry,
    ToolResponse,
    validate,
)
from toolresponse.testing import FakeClock


def valid(response: ToolResponse) -> ToolResponse:
    """The response, after asserting that its wire form validates and serialises."""
    assert [] == list(validate(response.to_dict()).errors)
    assert response.to_dict() == orjson.loads(response.to_json())
    return response


def details_of(response: ToolResponse) -> dict[str, Any]:
    assert response.error_info is not None
    assert response.error_info.details is not None
    return response.error_info.details


def fake_time_registry(clock: FakeClock, **options: Any) -> ToolRegistry:
    return ToolRegistry(clock=clock, wait=clock.wait, async_wait=clock.async_wait, **options)


def threads_of(tool_name: str) -> int:
    """How many of the tool's worker threads are alive."""
    return sum(thread.name.startswith(f"toolresponse-{tool_name}-") for thread in threading.enumerate())


# -- a response owns its values -------------------------------------------------------------


def test_a_functions_dict_changed_after_the_call_changes_nothing() -> None:
    """A plain function that keeps its returned dict and changes it later (even adding a set,
    which has no JSON form) changes neither the answer's data nor its text."""
    kept: dict[str, Any] = {"items": [1, 2], "meta": {"page": 1}}
    registry = ToolRegistry()
    registry.register(lambda: kept, name="leaky")
    response = registry.execute("leaky")
    before = response.to_json()
    kept["items"].append(3)
    kept["meta"]["page"] = {1, 2}
    kept["new"] = "member"
    assert ({"items": [1, 2], "meta": {"page": 1}}, before) == (response.data, valid(response).to_json())


@pytest.mark.parametrize(
    "build",
    [
        lambda data: ToolResponse.success("ok", data),
        lambda data: ToolResponse.partial("cut", data),
        lambda data: ToolResponse(status="success", text="ok", data=data, stats={"time_ms": 1}),
        lambda data: ToolResponse.error("EXECUTION_ERROR", "no", details=data),
        lambda data: ToolResponse(status="success", text="ok", context={"extra": data}),
        lambda data: ToolResponse(status="success", text="ok", extensions={"x-data": data}),
        lambda data: ToolResponse.from_dict({"status": "success", "text": "ok", "data": data}),
    ],
    ids=["success", "partial", "constructor", "error-details", "context", "extension", "from_dict"],
)
def test_changing_what_a_response_was_built_from_changes_nothing(
    build: Callable[[dict[str, Any]], ToolResponse],
) -> None:
    """Every way of building a response copies the objects and arrays it is given."""
    given: dict[str, Any] = {"rows": [{"id": 1}], "n": 1}
    response = build(given)
    before = response.to_dict()
    given["rows"][0]["id"] = 2
    given["rows"].append(b"bytes")
    given["n"] = {3}
    assert before == valid(response).to_dict()


# -- always serialisable --------------------------------------------------------------------


def test_a_retry_delay_past_the_64_bit_range_is_refused_when_built() -> None:
    """retry_after_ms=2**64 is refused at construction, naming its pointer; never built into a
    response whose to_json() would raise."""
    with pytest.raises(ResponseValidationError) as raised:
        ToolResponse.error("RATE_LIMIT", "slow down", retry_after_ms=2**64)
    assert ["/error_info/retry_after_ms"] == [error.pointer for error in raised.value.errors]


@pytest.mark.parametrize("recovery_timeout_s", [1e20, 1.7e308])
def test_an_enormous_recovery_timeout_gives_a_circuit_open_that_serialises(
    recovery_timeout_s: float,
) -> None:
    """CircuitBreaker(recovery_timeout_s=1e20) answers CIRCUIT_OPEN with retry_after_ms clamped
    to 2**53 - 1 (the interoperable integer range), not an INTERNAL_ERROR or a 64-bit overflow."""
    clock = FakeClock()
    registry = ToolRegistry(
        breaker=CircuitBreaker(failure_threshold=1, recovery_timeout_s=recovery_timeout_s, clock=clock)
    )

    def broken() -> None:
        raise RuntimeError("down")

    registry.register(broken)
    registry.execute("broken")
    response = valid(registry.execute("broken"))
    assert (ErrorCode.CIRCUIT_OPEN, 2**53 - 1) == (response.code, response.retry_after_ms)


# -- async tools that block their event loop ------------------------------------------------


async def test_an_async_tool_blocking_its_loop_blocks_neither_the_callers_loop_nor_other_tools(
    release: threading.Event,
) -> None:
    """An async tool that blocks (a blocking wait inside ``async def``, as ``time.sleep``) is
    answered TIMEOUT at its timeout while it still blocks; meanwhile the caller's event loop
    keeps running other coroutines, and a fast async tool called next answers."""
    clock = FakeClock()
    registry = fake_time_registry(clock)
    blocking = threading.Event()

    @registry.tool(timeout_s=0.5)
    async def block() -> str:
        blocking.set()
        release.wait(10)  # blocks the loop it runs on
        blocking.clear()
        return "late"

    @registry.tool(timeout_s=0.5)
    async def fast() -> str:
        return "fast"

    ticked = asyncio.Event()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            if blocking.is_set():
                ticks += 1
                if ticks >= 3:
                    ticked.set()
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    call = asyncio.create_task(registry.aexecute("block"))
    try:
        await asyncio.wait_for(ticked.wait(), 10)  # only a bound against hanging
        await asyncio.to_thread(clock.advance_when_waiting, 0.5)
        response = valid(await call)
        after = valid(await registry.aexecute("fast"))
    finally:
        ticker.cancel()
    assert (ErrorCode.TIMEOUT, 500.0, "fast", True) == (
        response.code,
        (response.stats or {})["time_ms"],
        after.text,
        blocking.is_set(),
    )


def test_sync_callers_of_a_blocking_async_tool_are_isolated_too(release: threading.Event) -> None:
    """Called synchronously, a blocking async tool gets TIMEOUT and a fast async tool called
    next answers at once, while the first still blocks (they share no event loop)."""
    clock = FakeClock()
    registry = fake_time_registry(clock)
    blocking = threading.Event()

    @registry.tool(timeout_s=0.5)
    async def block() -> str:
        blocking.set()
        release.wait(10)
        blocking.clear()
        return "late"

    @registry.tool(timeout_s=0.5)
    async def fast() -> str:
        return "fast"

    advancer = threading.Thread(target=lambda: blocking.wait(10) and clock.advance_when_waiting(0.5))
    advancer.start()
    response = valid(registry.execute("block"))
    advancer.join()
    after = valid(registry.execute("fast"))
    assert (ErrorCode.TIMEOUT, "fast", True) == (response.code, after.text, blocking.is_set())


async def test_in_real_time_a_blocking_async_tool_is_answered_timeout(release: threading.Event) -> None:
    """With the real waits, an async tool blocking its loop for up to 10 s under a 0.05 s
    timeout is answered TIMEOUT (nothing is asserted on how long that took)."""
    registry = ToolRegistry()
    blocking = threading.Event()

    @registry.tool(timeout_s=0.05)
    async def block() -> str:
        blocking.set()
        release.wait(10)
        blocking.clear()
        return "late"

    response = valid(await registry.aexecute("block"))
    assert (ErrorCode.TIMEOUT, True) == (response.code, blocking.is_set())


# -- hung synchronous tools: a bounded number of threads -----------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("via", ["execute", "aexecute"])
async def test_many_timed_out_calls_of_a_hung_tool_leave_at_most_the_cap_of_threads(
    release: threading.Event, kind: str, via: str
) -> None:
    """60 calls of a tool that hangs, each timed out, leave at most max_threads_per_tool threads
    alive; the calls that found them all busy never ran and say so (TIMEOUT, reason
    not_started). Once the tool returns, its threads serve calls again."""
    name = f"hang_{kind}_{via}"
    registry = ToolRegistry(max_threads_per_tool=3)
    runs: list[int] = []

    def hang_sync() -> str:
        runs.append(1)
        release.wait(10)
        return "done"

    async def hang_async() -> str:
        runs.append(1)
        release.wait(10)
        return "done"

    registry.register(hang_sync if kind == "sync" else hang_async, name=name, timeout_s=0.01)
    answers = []
    for _ in range(60):
        if via == "execute":
            answers.append(valid(await asyncio.to_thread(registry.execute, name)))
        else:
            answers.append(valid(await registry.aexecute(name)))
    alive = threads_of(name)
    reasons = {details_of(answer).get("reason") for answer in answers}
    started = len(runs)  # counted before the release: the calls below run the tool too
    release.set()
    for _ in range(1000):  # a bound against hanging, not on time: the threads free up
        again = await registry.aexecute(name)
        if again.is_success:
            break
        await asyncio.sleep(0.01)
    assert ({ErrorCode.TIMEOUT}, True, True, True, "done") == (
        {answer.code for answer in answers},
        alive <= 3,
        started <= 4,
        "not_started" in reasons,
        again.text,
    )


def test_max_threads_per_tool_must_be_a_positive_int() -> None:
    """A cap that is not an int >= 1 is refused when the registry is made."""
    from toolresponse import ToolDefinitionError

    for cap in (0, -1, 1.5, True):
        with pytest.raises(ToolDefinitionError, match="max_threads_per_tool"):
            ToolRegistry(max_threads_per_tool=cap)  # type: ignore[arg-type]


# -- look-alikes and subclasses --------------------------------------------------------------


class MockReturning(Tool):
    name = "mocked"

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return Mock(spec=ToolResponse)


class HalfBuilt(Tool):
    name = "half_built"

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return object.__new__(ToolResponse)


@pytest.mark.parametrize("tool", [MockReturning, HalfBuilt], ids=["Mock(spec)", "no-constructor"])
@pytest.mark.parametrize("via", ["execute", "aexecute"])
async def test_a_look_alike_response_is_not_passed_through(tool: type[Tool], via: str) -> None:
    """A Mock(spec=ToolResponse), which passes isinstance, or an instance made without the
    constructor is EXECUTION_ERROR not_a_tool_response, not an answer or a crash."""
    registry = ToolRegistry()
    registry.register(tool)
    name = tool.name
    response = valid(registry.execute(name) if via == "execute" else await registry.aexecute(name))
    assert (ErrorCode.EXECUTION_ERROR, "not_a_tool_response") == (
        response.code,
        details_of(response)["reason"],
    )


def test_a_plain_function_returning_a_mock_is_not_a_response() -> None:
    """A function's Mock(spec=ToolResponse) is not taken for a response."""
    registry = ToolRegistry()
    registry.register(lambda: Mock(spec=ToolResponse), name="mocked")
    assert valid(registry.execute("mocked")).is_error


class Name(str):
    """A str subclass, as some libraries hand out (enum-like names, tagged text)."""


@pytest.mark.parametrize("via", ["execute", "aexecute"])
async def test_a_str_subclass_parameter_is_a_string(via: str) -> None:
    """A str subclass as a parameter value (or a member name) is treated as the string it is."""
    registry = ToolRegistry()

    def greet(who: str) -> str:
        return f"hello {who}"

    registry.register(greet)
    params = {Name("who"): Name("ada")}
    response = valid(
        registry.execute("greet", params) if via == "execute" else await registry.aexecute("greet", params)
    )
    assert ("hello ada", {"who": "ada"}) == (response.text, (response.context or {})["params_input"])


# -- secrets ----------------------------------------------------------------------------------

SECRET_PARAMS = {
    "query": "weather",
    "api_key": "sk-live-0123456789abcdefghij",
    "password": "hunter2hunter2",
    "token": "t0k3n-value",
    "Authorization": "Bearer abc.def.ghi0123456789",
    "nested": {"clientSecret": "s3cr3t", "note": "key is sk-proj-ABCDEFGHIJKLMNOP1234"},
}


def secret_tool_registry(**options: Any) -> ToolRegistry:
    registry = ToolRegistry(**options)

    @registry.tool
    def search(
        query: str, api_key: str, password: str, token: str, Authorization: str, nested: dict[str, Any]
    ) -> str:
        return "found"

    @registry.tool
    def leak(api_key: str) -> str:
        raise RuntimeError(f"upstream refused api_key={api_key} (Authorization: Bearer {api_key})")

    return registry


def test_params_input_is_masked_by_default() -> None:
    """context.params_input does not echo api_key, password, token, Authorization, a camelCase
    secret name or a key inside text; other parameters are kept, and the tool got them all."""
    response = valid(secret_tool_registry().execute("search", SECRET_PARAMS))
    assert {
        "query": "weather",
        "api_key": "***",
        "password": "***",
        "token": "***",
        "Authorization": "***",
        "nested": {"clientSecret": "***", "note": "key is sk-***"},
    } == (response.context or {})["params_input"]


@pytest.mark.parametrize("via", ["execute", "aexecute"])
@pytest.mark.parametrize("name", ["leak", "missing", "search"])
async def test_no_answer_echoes_a_secret(via: str, name: str) -> None:
    """Neither a tool's answer, its exception text (text, message, details), an unknown tool's
    answer nor an INVALID_PARAM answer carries the secret."""
    registry = secret_tool_registry()
    params = {"api_key": "sk-live-0123456789abcdefghij"}
    response = valid(
        registry.execute(name, params) if via == "execute" else await registry.aexecute(name, params)
    )
    assert "0123456789abcdefghij" not in response.to_json()


def test_masking_can_be_turned_off() -> None:
    """ToolRegistry(mask=False) echoes the parameters and the exception text verbatim."""
    registry = secret_tool_registry(mask=False)
    search = registry.execute("search", SECRET_PARAMS)
    leak = registry.execute("leak", {"api_key": "sk-live-0123456789abcdefghij"})
    assert (SECRET_PARAMS, True) == (
        (search.context or {})["params_input"],
        "api_key=sk-live-0123456789abcdefghij" in details_of(leak)["message"],
    )


def test_masking_never_changes_the_callers_params() -> None:
    """The masked record is a copy: the caller's dict is as it was."""
    params = {"api_key": "sk-live-0123456789abcdefghij", "bad": object()}
    secret_tool_registry().execute("leak", params)
    assert "sk-live-0123456789abcdefghij" == params["api_key"]


@pytest.mark.parametrize(
    ("secret", "quoted"),
    [
        ('it\'s "s3cr3t"', repr),
        ("p@ss w/rd+s3cr3t", lambda value: f"https://api.example/v1?q={quote(value, safe='')}&page=2"),
    ],
    ids=["repr", "percent-encoded"],
)
def test_an_exception_that_quotes_a_secret_parameter_escaped_is_masked(
    secret: str, quoted: Callable[[str], str]
) -> None:
    """The value of a secret-named parameter is masked in an exception's text also as its repr
    writes it (both quote kinds in it) and percent-encoded in a URL."""
    registry = ToolRegistry()

    @registry.tool
    def fetch(api_key: str) -> str:
        """x"""
        raise ConnectionError(f"upstream rejected {quoted(api_key)}")

    answer = registry.execute("fetch", {"api_key": secret})
    assert "s3cr3t" not in answer.to_json()
    assert "***" in details_of(answer)["message"]


# -- tracing context ----------------------------------------------------------------------------

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("REQUEST_ID", default="none")


@pytest.mark.parametrize("via", ["execute", "aexecute"])
@pytest.mark.parametrize("kind", ["sync-inline", "sync-timeout", "async"])
async def test_tools_run_under_the_callers_context(via: str, kind: str) -> None:
    """A ContextVar the caller set (as an OpenTelemetry span is) is seen by the tool, whichever
    thread or loop it runs on; what the tool sets does not leak back to the caller."""
    registry = ToolRegistry()

    def sync_seen() -> str:
        seen = REQUEST_ID.get()
        REQUEST_ID.set("changed by the tool")
        return seen

    async def async_seen() -> str:
        return sync_seen()

    timeout = 5.0 if kind == "sync-timeout" else None
    registry.register(async_seen if kind == "async" else sync_seen, name="seen", timeout_s=timeout)
    token = REQUEST_ID.set(f"request-{via}-{kind}")
    try:
        if via == "execute":
            response = valid(registry.execute("seen"))
        else:
            response = valid(await registry.aexecute("seen"))
        after = REQUEST_ID.get()
    finally:
        REQUEST_ID.reset(token)
    expected_after = f"request-{via}-{kind}"
    if via == "execute" and kind == "sync-inline":
        expected_after = "changed by the tool"  # run inline, in the caller's own context
    assert (f"request-{via}-{kind}", expected_after) == (response.text, after)


SECRET_ARGUMENTS = [
    {"token": "ghp_abcdefghijklmnopqrstuvwxyz0123"},
    {"token": "plainsecretvalue"},
    {"token": 1, "api_key": ["sk-live-abcdefghij1234567890"]},
    {"token": 1, "api_key": {"v": "hunter2key"}},
    {"token": 1, "api_key": 987654321},
    '{"token": "hunter2\\u00e9"}',
]


def _secrets_of(arguments: Any) -> list[str]:
    found = orjson.loads(arguments) if isinstance(arguments, str) else arguments
    values = [found["token"], found.get("api_key")]
    flat = [v for value in values for v in (value if isinstance(value, list) else [value])]
    flat = [v for value in flat for v in (value.values() if isinstance(value, dict) else [value])]
    return [str(v) for v in flat if v is not None and v != 1]


@pytest.mark.parametrize("arguments", SECRET_ARGUMENTS)
def test_invalid_param_answers_do_not_repeat_the_value_of_a_secret_named_parameter(arguments: Any) -> None:
    registry = ToolRegistry()

    @registry.tool
    def f(token: int, api_key: str = "x") -> int:
        """x"""
        return token

    answers = [registry.execute("f", arguments), asyncio.run(registry.aexecute("f", arguments))]
    for answer in answers:
        assert ErrorCode.INVALID_PARAM == valid(answer).error_info.code  # type: ignore[union-attr]
        shown = answer.to_json()
        assert "***" in details_of(answer)["violations"][0]["message"]
        for secret in _secrets_of(arguments):
            assert secret not in shown


def test_an_exception_that_quotes_a_secret_named_parameter_is_masked() -> None:
    registry = ToolRegistry()

    @registry.tool
    def fetch(api_key: str) -> str:
        """x"""
        raise ConnectionError(f"upstream rejected {api_key}")

    answer = registry.execute("fetch", {"api_key": "plainsecretvalue"})
    assert "Tool 'fetch' failed: ConnectionError: upstream rejected ***" == answer.text
    assert "upstream rejected ***" == details_of(answer)["message"]
    unmasked = ToolRegistry(mask=False)
    unmasked.register(fetch)
    assert "plainsecretvalue" in unmasked.execute("fetch", {"api_key": "plainsecretvalue"}).text


class _Unlucky(BaseException):
    """Neither an Exception nor an interrupt: what a careless library may raise."""


class _UnluckyMapping(dict[str, Any]):
    def __iter__(self) -> Any:
        raise _Unlucky("iteration failed")

    def items(self) -> Any:
        raise _Unlucky("iteration failed")


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_base_exception_converting_a_return_value_is_an_answer(kind: str) -> None:
    """A return value whose conversion raises a BaseException (not an interrupt) is answered
    EXECUTION_ERROR on every path; it does not escape the registry."""
    registry = ToolRegistry()

    def sync_tool() -> Any:
        return _UnluckyMapping(a=1)

    async def async_tool() -> Any:
        return _UnluckyMapping(a=1)

    registry.register(sync_tool if kind == "sync" else async_tool, name="unlucky")
    answers = [registry.execute("unlucky", {}), asyncio.run(registry.aexecute("unlucky"))]
    assert [("error", "EXECUTION_ERROR")] * 2 == [
        (valid(answer).status.value, answer.code.value if answer.code else None) for answer in answers
    ]
