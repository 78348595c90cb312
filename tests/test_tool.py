"""Tool, FunctionTool and the guarded, timed call: schemas from signatures, wrapping, timeouts."""

from __future__ import annotations

import asyncio
import enum
import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest
from stable_ids import stable_id

from toolresponse import (
    ErrorCode,
    FunctionTool,
    Tool,
    ToolDefinitionError,
    ToolResponse,
    ToolStatus,
    validate,
)
from toolresponse._errors import JsonValueError
from toolresponse.testing import FakeClock
from toolresponse.tools import parameters_schema
from toolresponse.tools._answers import wrap_value


def details_of(response: ToolResponse) -> dict[str, Any]:
    """The error details of a response, asserting it has some."""
    assert response.error_info is not None
    assert response.error_info.details is not None
    return response.error_info.details


def valid(response: ToolResponse) -> ToolResponse:
    """The response, after asserting that its wire form validates against the schema."""
    assert [] == list(validate(response.to_dict()).errors)
    return response


# -- parameters_schema ----------------------------------------------------------------------


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(TypedDict):
    x: int
    y: int


def _one(annotation: Any) -> dict[str, Any]:
    """The schema of a single parameter ``value`` with this annotation."""

    def tool(value):  # type: ignore[no-untyped-def]
        return value

    tool.__annotations__ = {"value": annotation}
    schema: dict[str, Any] = parameters_schema(tool)["properties"]["value"]
    return schema


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (type(None), {"type": "null"}),
        (Any, {}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (Sequence[str], {"type": "array", "items": {"type": "string"}}),
        (list, {"type": "array"}),
        (set[str], {"type": "array", "uniqueItems": True, "items": {"type": "string"}}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (Mapping[str, Any], {"type": "object", "additionalProperties": {}}),
        (dict, {"type": "object"}),
        (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (Optional[str], {"anyOf": [{"type": "string"}, {"type": "null"}]}),  # noqa: UP045
        (int | Any, {}),
        (Literal["a", "b"], {"enum": ["a", "b"]}),
        (Colour, {"enum": ["red", "blue"]}),
        (
            Point,
            {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                "additionalProperties": False,
                "required": ["x", "y"],
            },
        ),
        (Annotated[int, "How many."], {"type": "integer", "description": "How many."}),
        (Annotated[int, {"minimum": 0}], {"type": "integer", "minimum": 0}),
    ],
    ids=repr,
)
def test_annotations_map_to_schemas(annotation: Any, expected: dict[str, Any]) -> None:
    """Each supported annotation maps to its documented JSON Schema."""
    assert expected == _one(annotation)


def test_signature_gives_required_defaults_and_descriptions() -> None:
    """Parameters without defaults are required; defaults are shown; the docstring describes them."""

    def search(
        query: str, limit: int = 10, *, exact: bool = False, tags: list[str] | None = None
    ) -> list[str]:
        """Search the index.

        Args:
            query: What to look for,
                in plain words.
            limit: At most this many results.
        """
        return []

    assert {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in plain words."},
            "limit": {"type": "integer", "description": "At most this many results.", "default": 10},
            "exact": {"type": "boolean", "default": False},
            "tags": {
                "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                "default": None,
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    } == parameters_schema(search)


def test_sphinx_style_parameter_docs() -> None:
    """``:param name:`` lines describe parameters too."""

    def scale(factor: float) -> float:
        """Scale.

        :param factor: The factor.
        """
        return factor

    assert {"type": "number", "description": "The factor."} == parameters_schema(scale)["properties"][
        "factor"
    ]


def test_var_keyword_allows_other_members_and_var_positional_is_ignored() -> None:
    """``**kwargs: int`` allows other integer members; ``*args`` is never filled."""

    def tool(*args: int, **kwargs: int) -> None:
        return None

    assert {
        "type": "object",
        "properties": {},
        "additionalProperties": {"type": "integer"},
    } == parameters_schema(tool)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def f(x, /): pass", "positional-only"),
        ("def f(x: complex): pass", "no JSON Schema"),
        ("def f(x: dict[int, str]): pass", "keys must be str"),
        ("def f(x: 'Undefined'): pass", "cannot be resolved"),
    ],
)
def test_undescribable_signatures_are_refused(source: str, message: str) -> None:
    """A signature that has no JSON Schema raises ToolDefinitionError naming the parameter."""
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(ToolDefinitionError, match=message):
        FunctionTool(namespace["f"])


def test_partial_and_callable_objects_are_described() -> None:
    """functools.partial and objects with __call__ get schemas from what they call."""

    def power(base: int, exponent: int) -> int:
        return int(base**exponent)

    class Doubler:
        def __call__(self, value: int) -> int:
            return value * 2

    square = functools.partial(power, exponent=2)
    assert ["base"] == parameters_schema(square)["required"]
    assert {"value": {"type": "integer"}} == parameters_schema(Doubler())["properties"]
    assert {"output": 9} == FunctionTool(square, name="square").execute({"base": 3}).data


def _typed_tool(seen: dict[str, Any], *, is_async: bool) -> Callable[..., Any]:
    """A function whose parameters JSON cannot give as they are annotated; it records what it got."""

    def typed(
        colour: Colour,
        pair: tuple[int, str],
        tags: set[str],
        frozen: frozenset[int] = frozenset(),
        many: tuple[Colour, ...] = ("red",),  # type: ignore[assignment]
        maybe: Colour | None = None,
        listed: list[Colour] | None = None,
        default: Colour = Colour.BLUE,
        named: Annotated[Colour, "a colour"] = "red",  # type: ignore[assignment]
    ) -> None:
        seen.update(locals())

    async def typed_async(**arguments: Any) -> None:
        typed(**arguments)

    if is_async:
        functools.update_wrapper(typed_async, typed)  # the same signature and annotations
        return typed_async
    return typed


_TYPED_ARGUMENTS = {"colour": "red", "pair": [1, "a"], "tags": ["x", "y"], "frozen": [2, 3]}


@pytest.mark.parametrize("call", ["execute", "execute with a timeout", "aexecute", "async function"])
def test_enum_tuple_and_set_parameters_receive_their_types_sent_or_left_out(call: str) -> None:
    """JSON has no Enum, tuple or set: the function still gets a Colour, a tuple, a set, inside
    ``X | None``, lists and ``Annotated`` too, whether the argument was sent or its default
    (even one written as JSON) was used."""
    seen: dict[str, Any] = {}
    tool = FunctionTool(_typed_tool(seen, is_async=call == "async function"), name="typed")
    sent = {**_TYPED_ARGUMENTS, "many": ["blue"], "maybe": "blue", "listed": ["red"], "named": "blue"}
    for arguments in (sent, _TYPED_ARGUMENTS):
        if call.startswith("execute"):
            response = tool.execute(arguments, timeout_s=5 if "timeout" in call else None)
        else:
            response = asyncio.run(tool.aexecute(arguments))
        assert ToolStatus.SUCCESS is response.status, response.text
        assert Colour.RED is seen["colour"]
        assert ((1, "a"), {"x", "y"}, frozenset({2, 3})) == (seen["pair"], seen["tags"], seen["frozen"])
        assert (tuple, set, frozenset) == (type(seen["pair"]), type(seen["tags"]), type(seen["frozen"]))
        assert Colour.BLUE is seen["default"]
    assert {"many": (Colour.RED,), "maybe": None, "listed": None, "named": Colour.RED} == {
        name: seen[name] for name in ("many", "maybe", "listed", "named")
    }
    tool.execute(sent)
    assert {"many": (Colour.BLUE,), "maybe": Colour.BLUE, "listed": [Colour.RED], "named": Colour.BLUE} == {
        name: seen[name] for name in ("many", "maybe", "listed", "named")
    }


def test_a_function_of_json_types_only_is_called_as_it_is() -> None:
    """Nothing to convert: the registry calls the function itself, with no step in between."""

    def plain(a: int, b: list[str], c: dict[str, float] | None = None) -> None:
        return None

    assert plain is FunctionTool(plain)._runs().function


# -- wrap_value -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text", "data"),
    [
        (None, "null", {"output": None}),
        (True, "true", {"output": True}),
        (42, "42", {"output": 42}),
        (1.5, "1.5", {"output": 1.5}),
        ("plain", "plain", {"output": "plain"}),
        ([1, "a"], '[1,"a"]', {"output": [1, "a"]}),
        ((1, 2), "[1,2]", {"output": [1, 2]}),
        ({"b", "a"}, '["a","b"]', {"output": ["a", "b"]}),
        (Colour.RED, "red", {"output": "red"}),
        ({"sum": 3}, '{"sum":3}', {"sum": 3}),
    ],
    ids=stable_id,
)
def test_wrap_value(value: Any, text: str, data: dict[str, Any]) -> None:
    """A plain value is success with data {"output": value}; a dict is the data itself."""
    response = valid(wrap_value(value))
    assert (ToolStatus.SUCCESS, text, data) == (response.status, response.text, response.data)


def test_wrap_value_keeps_a_response() -> None:
    """A ToolResponse is returned as it is."""
    response = ToolResponse.partial("half")
    assert response is wrap_value(response)


@pytest.mark.parametrize(
    ("value", "pointer"),
    [
        (b"raw", "/data/output"),
        (float("nan"), "/data/output"),
        ({"k": {1j}}, "/data/k/0"),
        (2**70, "/data/output"),
    ],
)
def test_wrap_value_refuses_values_that_are_not_json(value: Any, pointer: str) -> None:
    """A value with no conversion raises JsonValueError located under /data."""
    with pytest.raises(JsonValueError) as caught:
        wrap_value(value)
    assert pointer == caught.value.pointer


WRAPPED_VALUES = [None, True, 42, 1.5, "plain", [1, "a"], (1, 2), {"b", "a"}, Colour.RED, {"sum": 3}, {}]


@pytest.mark.parametrize("value", WRAPPED_VALUES, ids=stable_id)
async def test_a_functions_answer_is_its_wrapped_value(value: Any) -> None:
    """Called through execute or aexecute, sync or async, a function answers what wrap_value makes of
    its value, with stats and context added."""

    def sync_value() -> Any:
        return value

    async def async_value() -> Any:
        return value

    expected = wrap_value(value)
    for tool in (FunctionTool(sync_value, name="value"), FunctionTool(async_value, name="value")):
        for response in (tool.execute({}, call_id="c"), await tool.aexecute({}, call_id="c")):
            assert (ToolStatus.SUCCESS, expected.text, expected.data) == (
                valid(response).status,
                response.text,
                response.data,
            )
            assert {"tool_name": "value", "params_input": {}, "call_id": "c"} == response.context
            assert ["time_ms"] == list(response.stats or {})


@pytest.mark.parametrize("via", ["execute", "aexecute"])
async def test_a_function_tool_that_overrides_run_is_run_as_written(via: str) -> None:
    """A FunctionTool subclass with its own run or arun answers through it, not the function."""

    class Shouting(FunctionTool):
        def run(self, params: dict[str, Any]) -> ToolResponse:
            return ToolResponse.partial(str(self.function(**params)).upper())

    class AsyncShouting(FunctionTool):
        async def arun(self, params: dict[str, Any]) -> ToolResponse:
            return ToolResponse.partial(str(await self.function(**params)).upper())

    async def whisper_async(text: str) -> Any:  # Any: no output schema, which the overrides ignore
        return text

    def whisper(text: str) -> Any:
        return text

    async def answer(tool: Tool) -> ToolResponse:
        return tool.execute({"text": "hi"}) if via == "execute" else await tool.aexecute({"text": "hi"})

    assert [(ToolStatus.PARTIAL, "HI"), (ToolStatus.PARTIAL, "HI")] == [
        (response.status, response.text)
        for response in [
            valid(await answer(Shouting(whisper))),
            valid(await answer(AsyncShouting(whisper_async))),
        ]
    ]


def test_params_input_is_a_copy_the_caller_cannot_change_either() -> None:
    """Neither the function nor the caller, changing the parameters afterwards, changes the record."""

    def grow(items: list[Any], meta: dict[str, Any]) -> int:
        items.append("by the tool")
        meta["by"] = "the tool"
        return len(items)

    params: dict[str, Any] = {"items": [1, {"k": [2]}], "meta": {}}
    response = valid(FunctionTool(grow).execute(params))
    params["items"][1]["k"].append("by the caller")
    params["extra"] = 1
    assert {"items": [1, {"k": [2]}], "meta": {}} == (response.context or {})["params_input"]


def test_a_sync_function_returning_an_awaitable_is_an_execution_error() -> None:
    """A sync function that returns a coroutine is refused (and the coroutine closed)."""

    async def later() -> int:
        return 1

    def eager() -> Any:
        return later()

    response = valid(FunctionTool(eager).execute({}))
    assert (ErrorCode.EXECUTION_ERROR, "TypeError") == (
        response.code,
        details_of(response)["exception"],
    )


@pytest.mark.parametrize("call_id", [17, "caf\u00e9", "\udc80"], ids=repr)
def test_tool_call_ids_become_valid_strings(call_id: Any) -> None:
    """Tool.execute records a call_id as a string of valid Unicode, so the response stays valid."""
    response = valid(Echo().execute({"text": "x"}, call_id=call_id))
    assert isinstance((response.context or {})["call_id"], str)


# -- Tool and FunctionTool definitions ------------------------------------------------------


class Echo(Tool):
    name = "echo"
    description = "Say it back."
    parameters = MappingProxyType(
        {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        }
    )

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return ToolResponse.success(
            params["text"], {"echoed": params["text"]}, stats={"chars": len(params["text"])}
        )


class AsyncEcho(Echo):
    name = "async_echo"

    async def arun(self, params: dict[str, Any]) -> ToolResponse:
        await asyncio.sleep(0)
        return ToolResponse.success(params["text"])

    run = Tool.run  # only arun is implemented


def test_tool_kinds() -> None:
    """is_async tells which method implements a tool."""

    def sync() -> None:
        return None

    async def coroutine() -> None:
        return None

    assert (False, True) == (Echo().is_async, AsyncEcho().is_async)
    assert (False, True) == (FunctionTool(sync).is_async, FunctionTool(coroutine).is_async)


def test_function_tool_takes_name_description_and_output_schema() -> None:
    """A function's name, docstring summary and return annotation describe the tool."""

    def add(a: int, b: int) -> int:
        """Add two integers.

        More prose that is not the summary.
        """
        return a + b

    tool = FunctionTool(add)
    assert ("add", "Add two integers.") == (tool.name, tool.description)
    assert {
        "type": "object",
        "properties": {"output": {"type": "integer"}},
        "required": ["output"],
    } == tool.output_schema


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        (Tool(name="empty"), "overrides neither run nor arun"),
        (Echo(name="has space"), "1 to 64 letters"),
        (Echo(name=""), "1 to 64 letters"),
        (Echo(name="x" * 65), "1 to 64 letters"),
        (Echo(parameters={"type": "array"}), '"type": "object"'),
        (Echo(parameters={"type": "objectx"}), "not a valid JSON Schema at /type"),
        (Echo(parameters={"$ref": "https://example.com/remote.json"}), "cannot be compiled"),
        (
            Echo(parameters={"type": "object", "properties": {"a": {"pattern": "("}}}),
            "not a valid JSON Schema at /properties/a/pattern",
        ),
        (Echo(output_schema={"type": "string"}), '"type": "object"'),
        (Echo(timeout_s=0), "positive number"),
        (Echo(timeout_s=float("inf")), "positive number"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_bad_definitions_are_refused_when_first_called(tool: Tool, message: str) -> None:
    """A definition that does not hold raises ToolDefinitionError with the reason."""
    with pytest.raises(ToolDefinitionError, match=message):
        tool.execute({})


def test_lambda_needs_a_name() -> None:
    """A lambda's name is not a tool name: pass name=."""
    with pytest.raises(ToolDefinitionError, match="pass name="):
        FunctionTool(lambda: None).execute({})
    assert "null" == FunctionTool(lambda: None, name="nothing").execute({}).text


# -- the timed, guarded call ----------------------------------------------------------------


def test_call_fills_stats_and_context_and_keeps_the_tools_own() -> None:
    """execute() adds time_ms, tool_name, params_input and call_id; the tool's own members stay."""
    clock = FakeClock(100.0)

    class Timed(Echo):
        def run(self, params: dict[str, Any]) -> ToolResponse:
            clock.advance(0.25)
            return ToolResponse.success("ok", stats={"tokens": 3}, context={"source": "cache"})

    response = valid(Timed().execute({"text": "hi"}, call_id="call-1", clock=clock))
    assert {"tokens": 3, "time_ms": 250.0} == response.stats
    assert {"source": "cache", "tool_name": "echo", "params_input": {"text": "hi"}, "call_id": "call-1"} == (
        response.context
    )


def test_call_accepts_json_text() -> None:
    """Parameters may be JSON text of an object; params_input holds the decoded object."""
    response = valid(Echo().execute('{"text": "hi"}'))
    assert ("hi", {"text": "hi"}) == (response.text, response.context and response.context["params_input"])


def test_params_input_is_a_snapshot() -> None:
    """A tool that changes its arguments does not change the recorded params_input."""

    class Mutator(Tool):
        name = "mutator"
        parameters = MappingProxyType({"type": "object"})

        def run(self, params: dict[str, Any]) -> ToolResponse:
            params["items"].append({1, 2})
            params["new"] = object()
            return ToolResponse.success("changed")

    response = valid(Mutator().execute({"items": [1]}))
    assert {"items": [1]} == (response.context or {})["params_input"]


@pytest.mark.parametrize(
    ("params", "pointer", "keyword"),
    [
        ({}, "", "required"),
        ({"text": 5}, "/text", "type"),
        ({"text": "a", "extra": 1}, "", "additionalProperties"),
        ({"text": {1, 2}}, "/text", "type"),
        ({"text": float("nan")}, "/text", "type"),
    ],
)
def test_invalid_params_name_each_violation(params: Any, pointer: str, keyword: str) -> None:
    """Parameters that break the schema give INVALID_PARAM with each violation's pointer and keyword."""
    response = valid(Echo().execute(params))
    assert ErrorCode.INVALID_PARAM == response.code
    info = response.error_info
    assert info is not None
    assert info.details is not None
    assert {"pointer": pointer, "keyword": keyword} == {
        key: info.details["violations"][0][key] for key in ("pointer", "keyword")
    }


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ("42", "not_object"),
        ('"text"', "not_object"),
        ("[1, 2]", "not_object"),
        ("{not json", "not_json"),
        ('{"text": "a", "text": "b"}', "not_json"),
        ("", "not_json"),
        (b"\xff", "not_json"),
        (42, "not_object"),
        (["text"], "not_object"),
    ],
)
def test_params_that_are_not_an_object(params: Any, reason: str) -> None:
    """A string that is not a JSON object (even "42") is INVALID_PARAM, never parsed as a number."""
    response = valid(Echo().execute(params))
    assert (ErrorCode.INVALID_PARAM, reason) == (response.code, details_of(response)["reason"])


class Failing(Tool):
    name = "failing"

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def run(self, params: dict[str, Any]) -> ToolResponse:
        raise self.error


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


@pytest.mark.parametrize(
    ("error", "details"),
    [
        (ValueError("bad input"), {"exception": "ValueError", "message": "bad input"}),
        (KeyError("k"), {"exception": "KeyError", "message": "'k'"}),
        (Unprintable(), {"exception": f"{__name__}.Unprintable", "message": ""}),
        (RuntimeError("\ud800 lone"), {"exception": "RuntimeError", "message": "? lone"}),
    ],
    ids=repr,
)
def test_exceptions_become_execution_errors(error: Exception, details: dict[str, str]) -> None:
    """A tool's exception is EXECUTION_ERROR with its type and message in details."""
    response = valid(Failing(error).execute({}))
    assert (ErrorCode.EXECUTION_ERROR, details) == (response.code, details_of(response))


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(3)], ids=repr)
def test_interrupts_propagate(error: BaseException) -> None:
    """KeyboardInterrupt and SystemExit are not swallowed."""
    with pytest.raises(type(error)):
        Failing(error).execute({})


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(3)], ids=repr)
async def test_interrupts_propagate_from_async_tools(error: BaseException) -> None:
    """KeyboardInterrupt and SystemExit raised by an async tool propagate, sync or async caller."""

    async def interrupt() -> None:
        raise error

    tool = FunctionTool(interrupt)
    with pytest.raises(type(error)):
        await tool.aexecute({})
    with pytest.raises(type(error)):
        await asyncio.to_thread(tool.execute, {})


@pytest.mark.parametrize("value", [42, None, "text", {"a": 1}], ids=repr)
def test_a_tool_run_must_return_a_response(value: Any) -> None:
    """Tool.run returning anything but a ToolResponse is EXECUTION_ERROR naming the type."""

    class Sloppy(Tool):
        name = "sloppy"

        def run(self, params: dict[str, Any]) -> ToolResponse:
            return value  # type: ignore[no-any-return]

    response = valid(Sloppy().execute({}))
    assert (ErrorCode.EXECUTION_ERROR, "not_a_tool_response") == (
        response.code,
        details_of(response)["reason"],
    )


def test_non_json_data_from_a_function_is_an_execution_error() -> None:
    """A function returning bytes gets EXECUTION_ERROR naming the pointer."""

    def raw() -> Any:
        return {"blob": b"\x00"}

    response = valid(FunctionTool(raw).execute({}))
    details = details_of(response)
    assert (ErrorCode.EXECUTION_ERROR, "not_json", "/data/blob") == (
        response.code,
        details["reason"],
        details["pointer"],
    )


def test_output_schema_violations_are_errors() -> None:
    """Data that breaks the declared output schema is an error naming the violation under /data."""

    def count() -> int:
        return "many"  # type: ignore[return-value]

    response = valid(FunctionTool(count).execute({}))
    details = details_of(response)
    assert (ErrorCode.EXECUTION_ERROR, "output_schema") == (response.code, details["reason"])
    assert [{"pointer": "/data/output", "keyword": "type", "message": '"many" is not of type "integer"'}] == (
        details["violations"]
    )


def test_error_responses_skip_the_output_schema() -> None:
    """An error response is not checked against the output schema."""

    class Strict(Echo):
        output_schema = MappingProxyType({"type": "object", "required": ["echoed"]})

        def run(self, params: dict[str, Any]) -> ToolResponse:
            return ToolResponse.error("NOT_FOUND", "nothing to echo")

    assert ErrorCode.NOT_FOUND == valid(Strict().execute({"text": "x"})).code


async def test_async_tools_through_both_entry_points() -> None:
    """An async tool answers through aexecute and through the synchronous execute."""
    assert "hi" == valid(await AsyncEcho().aexecute({"text": "hi"})).text
    assert "hi" == valid(await asyncio.to_thread(AsyncEcho().execute, {"text": "hi"})).text
    assert "hi" == valid(AsyncEcho().execute({"text": "hi"})).text


async def test_sync_tools_through_acall_run_off_the_loop() -> None:
    """A sync tool called through aexecute runs in another thread than the event loop's."""
    seen: list[threading.Thread] = []

    def where() -> str:
        seen.append(threading.current_thread())
        return "ran"

    assert "ran" == valid(await FunctionTool(where).aexecute({})).text
    assert [False] == [thread is threading.current_thread() for thread in seen]


# -- timeouts -------------------------------------------------------------------------------


Advance = Callable[[FakeClock, float], threading.Thread]
"""The ``advance_when_waiting`` fixture: a thread that advances the clock once a call waits on it."""


def test_a_hung_sync_tool_is_answered_on_time(
    release: threading.Event, advance_when_waiting: Advance
) -> None:
    """A sync tool that hangs is answered TIMEOUT (retryable) the moment its 0.2 s timeout passes
    on the clock, while the tool itself still hangs (it could run for 10 s more)."""

    def hang() -> str:
        release.wait(10)
        return "late"

    clock = FakeClock()
    advance_when_waiting(clock, 0.2)
    response = valid(FunctionTool(hang, timeout_s=0.2).execute({}, clock=clock, wait=clock.wait))
    assert (ErrorCode.TIMEOUT, True, 200.0, False) == (
        response.code,
        response.is_retryable,
        (response.stats or {})["time_ms"],
        release.is_set(),
    )
    assert {"timeout_s": 0.2} == details_of(response)


async def test_a_hung_sync_tool_is_answered_on_time_from_async_code(release: threading.Event) -> None:
    """aexecute of a hung sync tool answers TIMEOUT without blocking the event loop: while the tool
    hangs in its worker thread, another task on the loop runs, and it is the one that lets the
    timeout pass. (Were the loop blocked, the tool would return "late" after 10 s.)"""
    entered = threading.Event()

    def hang() -> str:
        entered.set()
        release.wait(10)
        return "late"

    clock = FakeClock()
    seen_hanging: list[bool] = []

    async def let_the_timeout_pass() -> None:
        while not (entered.is_set() and clock.waiting):
            await asyncio.sleep(0)
        seen_hanging.append(not release.is_set())
        clock.advance(0.2)

    other_task = asyncio.ensure_future(let_the_timeout_pass())
    response = valid(
        await FunctionTool(hang, timeout_s=0.2).aexecute({}, clock=clock, async_wait=clock.async_wait)
    )
    await other_task
    assert (ErrorCode.TIMEOUT, 200.0, [True]) == (
        response.code,
        (response.stats or {})["time_ms"],
        seen_hanging,
    )


@pytest.mark.parametrize("via", ["aexecute", "execute"])
async def test_a_hung_async_tool_is_cancelled(via: str) -> None:
    """An async tool past its timeout is cancelled and answered TIMEOUT. (The 10 s bounds only
    keep a broken run from hanging: the task is cancelled on the tool's thread just after the
    answer. The clock moves once the tool has started: a call that has not started by its
    timeout never runs.)"""
    cancelled = threading.Event()
    started = threading.Event()

    async def hang() -> str:
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    tool = FunctionTool(hang, timeout_s=0.1)
    clock = FakeClock()
    advancer = threading.Thread(
        target=lambda: started.wait(10) and clock.advance_when_waiting(0.1), daemon=True
    )
    advancer.start()
    if via == "aexecute":
        response = valid(await tool.aexecute({}, clock=clock, async_wait=clock.async_wait))
    else:
        response = valid(await asyncio.to_thread(tool.execute, {}, clock=clock, wait=clock.wait))
    advancer.join()
    assert (ErrorCode.TIMEOUT, 100.0) == (response.code, (response.stats or {})["time_ms"])
    assert cancelled.wait(10)


async def test_a_tools_own_timeout_error_is_an_execution_error() -> None:
    """A TimeoutError raised by the tool itself (not the runtime's timeout) is EXECUTION_ERROR."""

    async def upstream() -> None:
        raise TimeoutError("upstream did not answer")

    response = valid(await FunctionTool(upstream, timeout_s=5).aexecute({}))
    assert (ErrorCode.EXECUTION_ERROR, "TimeoutError") == (
        response.code,
        details_of(response)["exception"],
    )


@pytest.mark.parametrize("via", ["aexecute", "execute"])
async def test_a_sync_tools_own_timeout_error_is_an_execution_error(via: str) -> None:
    """A sync tool under a timeout that raises TimeoutError itself gets EXECUTION_ERROR, not TIMEOUT."""

    def upstream() -> None:
        raise TimeoutError("upstream did not answer")

    tool = FunctionTool(upstream, timeout_s=5)
    response = valid(await tool.aexecute({}) if via == "aexecute" else tool.execute({}))
    assert (ErrorCode.EXECUTION_ERROR, "TimeoutError") == (response.code, details_of(response)["exception"])


def test_call_timeout_overrides_the_tools(release: threading.Event, advance_when_waiting: Advance) -> None:
    """execute(timeout_s=...) overrides the tool's own timeout: the call times out at 0.05 s, not 60 s."""

    def hang() -> None:
        release.wait(10)

    clock = FakeClock()
    advance_when_waiting(clock, 0.05)
    response = FunctionTool(hang, timeout_s=60).execute({}, timeout_s=0.05, clock=clock, wait=clock.wait)
    assert (ErrorCode.TIMEOUT, {"timeout_s": 0.05}, 50.0) == (
        response.code,
        details_of(response),
        (response.stats or {})["time_ms"],
    )


def test_a_tool_calling_an_async_tool_from_the_background_loop() -> None:
    """An async tool that synchronously calls another async tool does not deadlock."""
    inner = FunctionTool(AsyncEcho().arun, name="inner")

    async def outer() -> str:
        return inner.execute({"params": {"text": "nested"}}).text

    assert "nested" == valid(FunctionTool(outer).execute({}, timeout_s=5)).text


@pytest.mark.parametrize(("old", "new"), [("call", "execute"), ("acall", "aexecute")])
async def test_the_names_of_1_0_warn_and_answer_as_execute(old: str, new: str) -> None:
    """Tool.call and Tool.acall, deprecated, warn (naming the new method, from the caller's line)
    and answer as execute and aexecute do, given the same options."""

    async def through(name: str) -> ToolResponse:
        answer = getattr(AsyncEcho(), name)({"text": "hi"}, call_id="c-1", clock=FakeClock())
        response: ToolResponse = await answer if asyncio.iscoroutine(answer) else answer
        return response

    with pytest.warns(DeprecationWarning, match=rf"Tool\.{old} is deprecated .* use Tool\.{new}") as caught:
        old_answer = await through(old)
    assert [__file__] == [warning.filename for warning in caught]
    assert valid(await through(new)).to_dict() == valid(old_answer).to_dict()
    assert "c-1" == (old_answer.context or {})["call_id"]
