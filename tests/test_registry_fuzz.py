"""At least 10,000 randomly misbehaving tool calls, and every response validates against the schema.

Each call picks a registry (with a real circuit breaker on a fake clock, without one, or with a
breaker that fails now and then), a tool (sync or async, plain function or Tool subclass), what
the tool does wrong (raises, hangs past its timeout, returns sets, bytes, NaN, datetimes, cycles,
huge integers, deep nesting, objects, non-responses, data against its output schema, changes its
arguments), what the caller sends (good, bad or non-JSON parameters, JSON text, unknown names,
odd call ids), and whether it calls ``execute`` or ``aexecute``.
"""

from __future__ import annotations

import asyncio
import datetime
import decimal
import json
import logging
import math
import threading
import time
from collections import Counter
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolresponse import (
    CircuitBreaker,
    CircuitState,
    ErrorCode,
    Tool,
    ToolCallEvent,
    ToolRegistry,
    ToolResponse,
    ToolStatus,
    validate,
)
from toolresponse.testing import FakeClock

EXAMPLES = 250
CALLS_PER_EXAMPLE = 40
MINIMUM_CALLS = 10_000
TIMEOUT_S = 0.005


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot print")


def cyclic_dict() -> dict[str, Any]:
    value: dict[str, Any] = {}
    value["self"] = value
    return value


def cyclic_list() -> list[Any]:
    value: list[Any] = []
    value.append(value)
    return value


def deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


ODD_VALUES: dict[str, Any] = {
    "none": lambda: None,
    "set": lambda: {3, 1, 2},
    "mixed_set": lambda: {1, "a", None},
    "frozenset": lambda: frozenset({"b"}),
    "bytes": lambda: b"\x00\xff",
    "bytearray": lambda: bytearray(b"x"),
    "nan": lambda: float("nan"),
    "inf": lambda: {"v": float("-inf")},
    "datetime": lambda: datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
    "date_key": lambda: {datetime.date(2026, 1, 1): 1},
    "cycle_dict": cyclic_dict,
    "cycle_list": cyclic_list,
    "huge_int": lambda: 10**40,
    "deep": lambda: deep(300),
    "tuple": lambda: (1, (2, 3)),
    "int_keys": lambda: {1: "a", 2: "b"},
    "clashing_keys": lambda: {1: "a", "1": "b"},
    "object_keys": lambda: {object(): 1},
    "generator": lambda: (n for n in range(3)),
    "object": object,
    "surrogate": lambda: "\udc80 broken",
    "surrogate_key": lambda: {"\ud800": 1},
    "decimal": lambda: decimal.Decimal("1.5"),
    "complex": lambda: 1j,
    "response": lambda: ToolResponse.partial("half", {"n": 1}),
    "error_response": lambda: ToolResponse.error("RATE_LIMIT", "slow down", retry_after_ms=10),
    "big_text": lambda: "x" * 10_000,
    "dict": lambda: {"ok": [1, 2.5, "three"]},
}

EXCEPTIONS: dict[str, Any] = {
    "value": lambda: ValueError("bad value"),
    "key": lambda: KeyError("missing"),
    "unprintable": Unprintable,
    "surrogate": lambda: RuntimeError("\ud800"),
    "recursion": lambda: RecursionError("too deep"),
    "timeout": lambda: TimeoutError("upstream"),
    "memory": lambda: MemoryError(),
    "huge_message": lambda: RuntimeError("m" * 100_000),
    "empty": lambda: Exception(),
}


def misbehave(params: dict[str, Any], release: threading.Event) -> Any:
    """What a misbehaving tool does, as its parameters say."""
    action = params.get("do") if isinstance(params.get("do"), str) else None
    if action == "raise":
        raise EXCEPTIONS[params["what"]]()
    if action == "hang":
        release.wait(0.05)
        return "late"
    if action == "mutate":
        params.setdefault("list", []).append({1, 2})
        params["object"] = object()
        return "mutated"
    if action == "odd":
        return ODD_VALUES[params["what"]]()
    return params.get("value")


class Harness:
    """The registries, tools and counters of one fuzz run."""

    def __init__(self) -> None:
        self.clock = FakeClock()
        self.release = threading.Event()
        self.flaky_calls = 0
        self.events = 0
        self.registries = {
            "breaker": ToolRegistry(
                breaker=CircuitBreaker(failure_threshold=3, recovery_timeout_s=60, clock=self.clock),
                clock=self.clock,
            ),
            "plain": ToolRegistry(default_timeout_s=TIMEOUT_S),
            "flaky_breaker": ToolRegistry(breaker=self, clock=self.clock),
        }
        for registry in self.registries.values():
            self.install(registry)

    # A breaker that fails on some calls (the registry's INTERNAL_ERROR path).
    def admit(self, tool_name: str) -> ToolResponse | None:
        self.flaky_calls += 1
        if self.flaky_calls % 7 == 0:
            raise RuntimeError("breaker bug in admit")
        if self.flaky_calls % 11 == 0:
            return ToolResponse.error("CIRCUIT_OPEN", "open", retry_after_ms=5)
        return None

    def record(self, tool_name: str, response: ToolResponse) -> None:
        if self.flaky_calls % 13 == 0:
            raise RuntimeError("breaker bug in record")

    def state(self, tool_name: str) -> CircuitState:
        if self.flaky_calls % 17 == 0:
            raise RuntimeError("breaker bug in state")
        return CircuitState.CLOSED

    def listener(self, event: ToolCallEvent) -> None:
        self.events += 1
        if self.events % 19 == 0:
            raise RuntimeError("listener bug")

    def install(self, registry: ToolRegistry) -> None:
        release = self.release

        def chaos(**params: Any) -> Any:
            return misbehave(params, release)

        async def achaos(**params: Any) -> Any:
            if params.get("do") == "hang":
                await asyncio.sleep(10)
            await asyncio.sleep(0)
            return misbehave(params, release)

        def typed(count: int, label: str = "x", tags: list[str] | None = None) -> int:
            return count

        class Sloppy(Tool):
            name = "sloppy"
            parameters = MappingProxyType({"type": "object"})
            output_schema = MappingProxyType(
                {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
            )

            def run(self, params: dict[str, Any]) -> ToolResponse:
                value = misbehave(params, release)
                if params.get("do") == "data":
                    return ToolResponse.success("data", {"x": params.get("value")})
                return value  # type: ignore[no-any-return]

        registry.register(chaos, timeout_s=TIMEOUT_S)
        registry.register(achaos, timeout_s=TIMEOUT_S)
        registry.register(typed)
        registry.register(Sloppy(), timeout_s=TIMEOUT_S)
        registry.add_listener(self.listener)


# Pools of precomputed choices: drawing from them is cheap, so the budget goes to calls.
JSON_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    2**63,
    2**64,
    1.5,
    -0.0,
    "",
    "text",
    "\u00e9",
    [],
    [1, "a"],
    {},
    {"k": [None]},
]
ACTIONS: list[dict[str, Any]] = (
    [{"do": "raise", "what": what} for what in sorted(EXCEPTIONS)]
    + [{"do": "odd", "what": what} for what in sorted(ODD_VALUES)]
    + [{"do": "value", "value": value} for value in JSON_VALUES]
    + [{"do": "data", "value": value} for value in JSON_VALUES]
    + [{"do": "mutate"}, {"do": "mutate", "list": [1]}, {"do": "hang"}, {}]
)
ODD_PARAMS: list[Any] = [
    None,
    "42",
    "",
    "{",
    '{"a": 1, "a": 2}',
    "[1, 2]",
    "null",
    '{"do": NaN}',
    b"\xff\xfe",
    b'{"do": "odd", "what": "set"}',
    42,
    ["do"],
    {1: "x"},
    {"do": {1, 2}},
    {"do": float("nan")},
    {"do": b"x"},
    {"count": 3},
    {"count": "3"},
    {"count": 3, "extra": True},
    {"count": 3, "tags": ["a", 1]},
    {"count": 3, "label": "y", "tags": ["a"]},
    {"count": 2**70},
    {"deep": deep(250)},
]
PARAMS: list[Any] = ACTIONS + [json.dumps(action) for action in ACTIONS] + ODD_PARAMS
TOOLS = ["chaos", "achaos", "typed", "sloppy", "chaos", "achaos", "sloppy", "choas", "", "SLOPPY", "nope"]
CALL_IDS: list[Any] = [None, "call-1", "", 7, "\udfff", "Bearer abcdef123456"]

POOLS: tuple[list[Any], ...] = (
    ["breaker", "plain", "flaky_breaker"],
    TOOLS,
    PARAMS,
    CALL_IDS,
    ["execute", "aexecute"],
    [0, 0, 0, 61],
)
CHOICES = math.prod(len(pool) for pool in POOLS)


def decode(choice: int) -> list[Any]:
    """One call (registry, tool, params, call id, entry point, clock advance) from one number."""
    picked = []
    for pool in POOLS:
        choice, index = divmod(choice, len(pool))
        picked.append(pool[index])
    return picked


# One integer per call keeps generation cheap, so the time goes to the calls themselves.
calls = st.integers(min_value=0, max_value=CHOICES - 1)


@pytest.fixture
def harness() -> Iterator[Harness]:
    harness = Harness()
    yield harness
    harness.release.set()


def check(response: Any, seen: Counter[str]) -> None:
    """The response is a ToolResponse whose wire form validates and survives JSON."""
    assert isinstance(response, ToolResponse)
    wire = response.to_dict()
    assert [] == list(validate(wire).errors)
    assert wire == orjson.loads(response.to_json())
    seen[response.code.value if response.code is not None else response.status.value] += 1


def test_ten_thousand_misbehaving_calls(harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """Every one of at least 10,000 misbehaving calls is answered with a valid ToolResponse."""
    caplog.set_level(logging.CRITICAL, logger="toolresponse")
    seen: Counter[str] = Counter()
    loop = asyncio.new_event_loop()
    started = time.monotonic()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(st.lists(calls, min_size=CALLS_PER_EXAMPLE, max_size=CALLS_PER_EXAMPLE))
    def run(batch: list[int]) -> None:
        for choice in batch:
            registry_name, tool, arguments, call_id, entry, advance = decode(choice)
            harness.clock.advance(advance)
            registry = harness.registries[registry_name]
            if entry == "execute":
                response = registry.execute(tool, arguments, call_id=call_id)
            else:
                response = loop.run_until_complete(registry.aexecute(tool, arguments, call_id=call_id))
            check(response, seen)

    try:
        run()
    finally:
        loop.close()
    elapsed = time.monotonic() - started
    assert sum(seen.values()) >= MINIMUM_CALLS, f"{sum(seen.values())} calls in {elapsed:.1f} s"
    expected = {
        ToolStatus.SUCCESS.value,
        ToolStatus.PARTIAL.value,
        ErrorCode.NOT_FOUND.value,
        ErrorCode.INVALID_PARAM.value,
        ErrorCode.EXECUTION_ERROR.value,
        ErrorCode.TIMEOUT.value,
        ErrorCode.INTERNAL_ERROR.value,
        ErrorCode.CIRCUIT_OPEN.value,
        ErrorCode.RATE_LIMIT.value,
    }
    assert expected <= set(seen), f"answers seen: {dict(seen)}"
