"""The registry's hostile corpus: misbehaving tools, each called through execute and aexecute.

``tests/hostile/registry/cases.json`` lists the cases as data: a ``behaviour`` (one of the
misbehaving tools below, named so that another implementation can write its own), its
``arg``, the ``params`` of the call (``value``: the JSON value; ``text``: JSON text;
``bytes_hex``: raw bytes), an optional ``timeout_s`` and what must come back: the ``status``
or error ``code``, strings ``absent`` from the whole answer, or the exception that
``propagates`` (only KeyboardInterrupt and SystemExit do). Every call must answer a real,
schema-valid ToolResponse that serialises, no other exception may escape, nothing may hang
(each call is bounded generously), and afterwards no tool holds more than the thread cap.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest.mock import Mock

import orjson
import pytest

from toolresponse import Tool, ToolRegistry, ToolResponse, validate

HOSTILE = Path(os.environ.get("TOOLRESPONSE_HOSTILE_DIR", Path(__file__).parent / "hostile"))
CASES: list[dict[str, Any]] = json.loads((HOSTILE / "registry" / "cases.json").read_text("utf-8"))
MAX_THREADS = 3
HANG_BOUND_S = 60.0
"""Only a bound against hanging: a call that takes longer fails the test."""
_NUMBERS = itertools.count()
ASYNC_ONLY = frozenset({"block_loop", "await_forever"})
SECRET = "sk-live-0123456789abcdefghij"


class CustomBaseException(BaseException):
    """A BaseException that is not an Exception, as some libraries define."""


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str() itself fails")


def _exception(name: str) -> BaseException:
    made: dict[str, Callable[[], BaseException]] = {
        "ValueError": lambda: ValueError(f"upstream refused api_key={SECRET}"),
        "GeneratorExit": GeneratorExit,
        "CustomBaseException": lambda: CustomBaseException("custom"),
        "CancelledError": asyncio.CancelledError,
        "KeyboardInterrupt": KeyboardInterrupt,
        "SystemExit": lambda: SystemExit(3),
        "Unprintable": Unprintable,
        "HugeMessage": lambda: RuntimeError("x" * 10_000_000 + "\ud800"),
        "MemoryError": MemoryError,
    }
    return made[name]()


def _junk(name: str) -> Any:
    """A value for a tool to return, by name."""
    if name == "cycle":
        loop: dict[str, Any] = {}
        loop["self"] = loop
        return loop
    if name == "deep":
        deep: list[Any] = []
        for _ in range(100_000):
            deep = [deep]
        return deep
    made: dict[str, Callable[[], Any]] = {
        "set": lambda: {"tags": {"b", "a"}},
        "bytes": lambda: b"\xff\x00",
        "nan": lambda: float("nan"),
        "inf_in_dict": lambda: {"x": float("inf")},
        "huge_int": lambda: 2**70,
        "lone_surrogate": lambda: "\udc80",
        "tuple_keys": lambda: {(1, 2): "pair"},
        "object": object,
        "generator": lambda: (n for n in range(3)),
        "mock": lambda: Mock(spec=ToolResponse),
        "half_built": lambda: object.__new__(ToolResponse),
        "huge_string": lambda: "y" * 20_000_000,
        "wide_dict": lambda: {f"k{n}": n for n in range(200_000)},
    }
    return made[name]()


def _recurse(depth: int = 0) -> int:
    return _recurse(depth + 1) + 1


class _Returns(Tool):
    """A Tool whose run returns something that is not a ToolResponse."""

    name = "tool_returns"

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return self.value  # type: ignore[no-any-return]


def make_tool(
    case: dict[str, Any],
    kind: str,
    registry: ToolRegistry,
    release: threading.Event,
    name: str,
    held: list[dict[str, Any]],
) -> Tool | Callable[..., Any]:
    """The misbehaving tool of ``case``: a plain function (``kind`` sync or async) or a Tool.
    A tool that changes what it returned keeps it in ``held``, to change once answered."""
    behaviour: str = case["behaviour"]
    arg: str = case.get("arg", "")

    def body() -> Any:
        if behaviour == "raise":
            raise _exception(arg)
        if behaviour == "recurse":
            return _recurse()
        if behaviour == "call_itself":
            # Each level then holds its thread (as a tool waiting on its own call would), so the
            # outermost call's deadline is the first to pass, whatever the machine's load.
            inner = registry.execute(name).status
            release.wait(10)
            return inner
        if behaviour == "return":
            return _junk(arg)
        if behaviour == "hang":
            release.wait(10)
            return "late"
        if behaviour == "block_loop":
            release.wait(10)  # blocks the event loop it runs on, as time.sleep would
            return "late"
        if behaviour == "mutate_dict":
            kept: dict[str, Any] = {"n": 1, "items": [1]}
            held.append(kept)
            return kept
        if behaviour == "mutate_response":
            response = ToolResponse.success("ok", {"n": 1, "items": [1]})
            held.append(response.data)
            return response
        raise AssertionError(f"unknown behaviour {behaviour!r}")

    if behaviour == "tool_returns":
        return _Returns({"string": "text", "none": None}[arg])
    if behaviour == "await_forever":

        async def forever() -> None:
            await asyncio.Event().wait()

        return forever
    if kind == "async":

        async def asynchronous() -> Any:
            return body()

        return asynchronous

    def synchronous() -> Any:
        return body()

    return synchronous


def _spoil(kept: dict[str, Any]) -> None:
    """Change a dict a tool returned, into values that are not JSON."""
    kept["items"].append({1, 2})
    kept["n"] = b"bytes"


def _params(case: dict[str, Any]) -> Any:
    params = case.get("params")
    if params is None:
        return None
    if "bytes_hex" in params:
        return bytes.fromhex(params["bytes_hex"])
    if "text" in params:
        return params["text"]
    return params["value"]


def _cases() -> list[Any]:
    return list(_each_case())


def _each_case() -> Iterator[Any]:
    for case in CASES:
        kinds = ["async"] if case["behaviour"] in ASYNC_ONLY else ["sync", "async"]
        for kind in kinds:
            for via in ("execute", "aexecute"):
                yield pytest.param(case, kind, via, id=f"{case['description']}-{kind}-{via}")


@pytest.mark.parametrize(("case", "kind", "via"), _cases())
async def test_every_hostile_call_gets_a_valid_response(
    case: dict[str, Any], kind: str, via: str, release: threading.Event
) -> None:
    """A misbehaving tool's call answers a real, valid, serialisable ToolResponse as the case
    expects (or raises the one documented interrupt), within a bound against hanging, and
    leaves no more than the thread cap behind."""
    registry = ToolRegistry(max_threads_per_tool=MAX_THREADS)
    name = f"hostile_{next(_NUMBERS)}_{kind}_{via}"  # its own threads, apart from other cases
    held: list[dict[str, Any]] = []
    tool = make_tool(case, kind, registry, release, name, held)
    registry.register(tool, name=name, timeout_s=case.get("timeout_s"))
    params, expect = _params(case), case["expect"]

    async def call() -> ToolResponse:
        if via == "execute":
            return await asyncio.to_thread(registry.execute, name, params)
        return await registry.aexecute(name, params)

    if "propagates" in expect:
        # Awaited directly: inside a task of its own (wait_for), asyncio re-raises an interrupt
        # out of the event loop.
        with pytest.raises((KeyboardInterrupt, SystemExit)) as raised:
            await call()
        assert expect["propagates"] == type(raised.value).__name__
        return
    response = await asyncio.wait_for(call(), HANG_BOUND_S)
    wire = response.to_json()
    for kept in held:
        _spoil(kept)
    alive = sum(thread.name.startswith(f"toolresponse-{name}-") for thread in threading.enumerate())
    assert (
        True,
        [],
        orjson.loads(wire),
        expect.get("status", "error"),
        expect.get("code"),
        [],
        True,
    ) == (
        type(response) is ToolResponse,
        list(validate(orjson.loads(wire)).errors),
        orjson.loads(response.to_json()),
        response.status.value,
        None if response.code is None else response.code.value,
        [text for text in expect.get("absent", []) if text in wire],
        alive <= MAX_THREADS,
    )
