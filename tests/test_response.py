"""ToolResponse: factories, questions, the wire format, and the rejection of everything the schema rejects."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
import types
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stable_ids import stable_id

from toolresponse import (
    ERROR_CODE_INFO,
    ErrorCode,
    ErrorInfo,
    MalformedJsonError,
    ResponseValidationError,
    ToolResponse,
    ToolResponseError,
    ToolStatus,
    validate,
)
from toolresponse._errors import JsonValueError
from toolresponse.validation import to_json_data
from toolresponse.validation._jsondata import MAX_VALUE_DEPTH, NOT_PLAIN, is_json_data, plain_object_copy

FIXTURE_DIR = Path(__file__).resolve().parent / "conformance" / "v1"
EXAMPLE_DIR = Path(__file__).resolve().parent.parent / "schema" / "v1" / "examples"


# -- strategies: valid responses ------------------------------------------------------------

# I-JSON text holds no noncharacters (U+FDD0...): they are unassigned (Cn), left out with the rest.
characters = st.characters(exclude_categories=("Cs", "Cn"))
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(characters, max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(characters, max_size=8), inner, max_size=4)
    ),
    max_leaves=6,
)
json_objects = st.dictionaries(st.text(characters, max_size=8), json_values, max_size=3)
non_negative = st.floats(min_value=0, allow_nan=False, allow_infinity=False) | st.integers(0, 2**53)
extension_members = st.dictionaries(
    st.text(characters, max_size=6).map(lambda k: "x-" + k), json_values, max_size=2
)
error_texts = st.text(characters, min_size=1, max_size=20)
texts = st.text(characters, max_size=20)
maybe_bool = st.none() | st.booleans()
maybe_after = st.none() | st.integers(0, 2**63 - 1)
maybe_object = st.none() | json_objects
codes = st.sampled_from(ErrorCode)
statuses = st.sampled_from(ToolStatus)


@st.composite
def stats_members(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.booleans()):
        return None
    members = draw(json_objects)
    members.pop("time_ms", None)
    if draw(st.booleans()):
        members["time_ms"] = draw(non_negative)
    return members


@st.composite
def context_members(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.booleans()):
        return None
    members = draw(json_objects)
    for reserved in ("tool_name", "params_input", "call_id"):
        members.pop(reserved, None)
    if draw(st.booleans()):
        members["tool_name"] = draw(error_texts)
    if draw(st.booleans()):
        members["params_input"] = draw(json_values)
    if draw(st.booleans()):
        members["call_id"] = draw(texts)
    return members


@st.composite
def error_infos(draw: st.DrawFn) -> ErrorInfo:
    return ErrorInfo(
        code=draw(codes),
        message=draw(error_texts),
        details=draw(maybe_object),
        retryable=draw(maybe_bool),
        retry_after_ms=draw(maybe_after),
    )


ERROR_INFOS = error_infos()
STATS = stats_members()
CONTEXTS = context_members()


@st.composite
def responses(draw: st.DrawFn) -> ToolResponse:
    status = draw(statuses)
    error = status is ToolStatus.ERROR
    return ToolResponse(
        status=status,
        text=draw(error_texts if error else texts),
        data=draw(json_objects),
        error_info=draw(ERROR_INFOS) if error else None,
        stats=draw(STATS),
        context=draw(CONTEXTS),
        extensions=draw(extension_members),
    )


# -- round trips ----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(responses())
def test_round_trip(response: ToolResponse) -> None:
    """from_dict(to_dict(r)) == r and from_json(to_json(r)) == r; to_dict validates against the schema."""
    wire = response.to_dict()
    assert [] == list(validate(wire).errors)
    assert response == ToolResponse.from_dict(wire)
    assert response == ToolResponse.from_json(response.to_json())
    assert response == ToolResponse.from_json(response.to_json_bytes())


def test_to_dict_leaves_unset_members_out() -> None:
    """Unset optional members and empty data are absent, never null."""
    assert {"status": "success", "text": "Done."} == ToolResponse.success("Done.").to_dict()
    assert {
        "status": "error",
        "text": "No such file.",
        "error_info": {"code": "NOT_FOUND", "message": "No such file."},
    } == ToolResponse.error(ErrorCode.NOT_FOUND, "No such file.").to_dict()


def test_to_json_is_compact() -> None:
    """to_json writes compact JSON with the members in schema order."""
    response = ToolResponse.partial("First 2 of 5.", data={"returned": 2, "total": 5}, stats={"time_ms": 1.5})
    expected = (
        '{"status":"partial","text":"First 2 of 5.","data":{"returned":2,"total":5},"stats":{"time_ms":1.5}}'
    )
    assert expected == response.to_json()


@pytest.mark.parametrize("path", sorted(EXAMPLE_DIR.glob("*.json")), ids=lambda path: path.name)
def test_schema_examples_round_trip(path: Path) -> None:
    """Every example of the schema reads and writes back to the same JSON."""
    wire = json.loads(path.read_text("utf-8"))
    assert wire == ToolResponse.from_dict(wire).to_dict()


def test_null_members_read_as_unset() -> None:
    """null stats, context and error_info (on a success) read as None and are written as absent."""
    wire: dict[str, Any] = {
        "status": "success",
        "text": "ok",
        "error_info": None,
        "stats": None,
        "context": None,
        "data": {},
    }
    response = ToolResponse.from_dict(wire)
    assert ToolResponse.success("ok") == response
    assert {"status": "success", "text": "ok"} == response.to_dict()


def test_extensions_are_kept() -> None:
    """Top-level x- members go to extensions and come back at the top level."""
    wire = {"status": "success", "text": "ok", "x-trace": {"id": "4bf9"}, "x-": 1}
    response = ToolResponse.from_dict(wire)
    assert {"x-trace": {"id": "4bf9"}, "x-": 1} == response.extensions
    assert wire == response.to_dict()


# -- factories and questions ----------------------------------------------------------------


@pytest.mark.parametrize("factory", [ToolResponse.success, ToolResponse.partial])
def test_success_and_partial_factories(factory: Any) -> None:
    """success and partial keep text, data, stats and context."""
    response = factory("t", {"a": 1}, {"time_ms": 2}, {"tool_name": "x"})
    assert ("t", {"a": 1}, {"time_ms": 2}, {"tool_name": "x"}) == (
        response.text,
        response.data,
        response.stats,
        response.context,
    )
    assert (None, False, None) == (response.code, response.is_retryable, response.retry_after_ms)


def test_status_questions() -> None:
    """is_success, is_partial and is_error answer from the status."""
    answers = [
        (r.is_success, r.is_partial, r.is_error)
        for r in (ToolResponse.success("a"), ToolResponse.partial("b"), ToolResponse.error("TIMEOUT", "c"))
    ]
    assert [(True, False, False), (False, True, False), (False, False, True)] == answers


def test_error_factory_sets_every_member() -> None:
    """error() puts the message in text and the rest in error_info."""
    response = ToolResponse.error(
        "RATE_LIMIT",
        "Too many requests.",
        details={"limit": 10},
        retryable=True,
        retry_after_ms=1500,
        stats={"time_ms": 3},
        context={"tool_name": "search"},
    )
    expected = ErrorInfo(
        code=ErrorCode.RATE_LIMIT,
        message="Too many requests.",
        details={"limit": 10},
        retryable=True,
        retry_after_ms=1500,
    )
    assert expected == response.error_info
    assert ("Too many requests.", ErrorCode.RATE_LIMIT, 1500) == (
        response.text,
        response.code,
        response.retry_after_ms,
    )
    assert type(response.code) is ErrorCode


@pytest.mark.parametrize("code", list(ErrorCode))
def test_is_retryable_defaults_to_the_code(code: ErrorCode) -> None:
    """Without retryable, is_retryable is the code's default from the schema."""
    assert ERROR_CODE_INFO[code].retryable == ToolResponse.error(code, "x").is_retryable


@pytest.mark.parametrize(("code", "retryable"), [("TIMEOUT", False), ("NOT_FOUND", True)])
def test_is_retryable_follows_an_explicit_flag(code: str, retryable: bool) -> None:
    """An explicit retryable overrides the code's default."""
    assert retryable == ToolResponse.error(code, "x", retryable=retryable).is_retryable


@pytest.mark.parametrize("code", ["not_found", "NOTFOUND", "ERROR", "", 404, None, " NOT_FOUND"])
def test_error_refuses_unknown_codes(code: Any) -> None:
    """A code that is not an ErrorCode or its exact string is refused, naming /error_info/code with
    the schema's keyword (enum for a string, type for anything else) and validate's violations."""
    with pytest.raises(ResponseValidationError) as caught:
        ToolResponse.error(code, "x")
    keyword = "enum" if isinstance(code, str) else "type"
    assert ("/error_info/code", keyword) == (caught.value.best.pointer, caught.value.best.keyword)
    wire = {"status": "error", "text": "x", "error_info": {"code": code, "message": "x"}}
    assert validate(wire).errors == caught.value.errors


def test_error_suggests_the_nearest_code() -> None:
    """A misspelt code gets a suggestion."""
    with pytest.raises(ResponseValidationError, match="did you mean NOT_FOUND"):
        ToolResponse.error("NOT_FOUN", "x")


def test_error_refuses_an_empty_message() -> None:
    """An empty message is refused: the schema wants text and message non-empty on an error."""
    with pytest.raises(ResponseValidationError) as caught:
        ToolResponse.error("TIMEOUT", "")
    assert {("/text", "minLength"), ("/error_info/message", "minLength")} == {
        (error.pointer, error.keyword) for error in caught.value.errors
    }


def timeout_info(message: str) -> ErrorInfo:
    """A TIMEOUT ``ErrorInfo`` with this message."""
    return ErrorInfo(code=ErrorCode.TIMEOUT, message=message)


@pytest.mark.parametrize(
    ("members", "pointer", "keyword"),
    [
        ({"status": "done", "text": "x"}, "/status", "enum"),
        ({"status": ToolStatus.SUCCESS, "text": 5}, "/text", "type"),
        ({"status": ToolStatus.ERROR, "text": "x"}, "", "required"),
        ({"status": ToolStatus.SUCCESS, "text": "x", "error_info": timeout_info("m")}, "/error_info", "type"),
        (
            {"status": ToolStatus.ERROR, "text": "x", "error_info": {"code": "TIMEOUT"}},
            "/error_info",
            "required",
        ),
        ({"status": ToolStatus.SUCCESS, "text": "x", "data": [1]}, "/data", "type"),
        ({"status": ToolStatus.SUCCESS, "text": "x", "stats": {"time_ms": -1}}, "/stats/time_ms", "minimum"),
        ({"status": ToolStatus.SUCCESS, "text": "x", "stats": {"time_ms": "1"}}, "/stats/time_ms", "type"),
        ({"status": ToolStatus.SUCCESS, "text": "x", "stats": 3}, "/stats", "type"),
        (
            {"status": ToolStatus.SUCCESS, "text": "x", "context": {"tool_name": ""}},
            "/context/tool_name",
            "minLength",
        ),
        ({"status": ToolStatus.SUCCESS, "text": "x", "context": {"call_id": 7}}, "/context/call_id", "type"),
        ({"status": ToolStatus.SUCCESS, "text": "x", "extensions": {"trace": 1}}, "", "additionalProperties"),
        ({"status": ToolStatus.SUCCESS, "text": "x", "data": {"b": b"x"}}, "/data/b", "type"),
        ({"status": ToolStatus.SUCCESS, "text": "x", "data": {"n": math.nan}}, "/data/n", "type"),
        ({"status": ToolStatus.SUCCESS, "text": "\ud800"}, "/text", "type"),
        (
            {"status": ToolStatus.ERROR, "text": "x", "error_info": timeout_info("\udfff")},
            "/error_info/message",
            "type",
        ),
    ],
    ids=lambda value: str(value)[:40] if not isinstance(value, dict) else None,
)
def test_constructor_refuses_invalid_members(members: dict[str, Any], pointer: str, keyword: str) -> None:
    """A response that would break the schema cannot be built; the error names the pointer."""
    with pytest.raises(ResponseValidationError) as caught:
        ToolResponse(**members)
    assert (pointer, keyword) == (caught.value.best.pointer, caught.value.best.keyword)
    assert pointer in str(caught.value) or pointer == ""


@pytest.mark.parametrize(
    ("retry_after_ms", "pointer_keyword"),
    [(-1, "minimum"), (1.5, "type"), (True, "type"), ("10", "type")],
)
def test_constructor_refuses_bad_retry_after(retry_after_ms: Any, pointer_keyword: str) -> None:
    """retry_after_ms is an integer >= 0."""
    with pytest.raises(ResponseValidationError) as caught:
        ToolResponse.error("RATE_LIMIT", "slow down", retry_after_ms=retry_after_ms)
    assert ("/error_info/retry_after_ms", pointer_keyword) == (
        caught.value.best.pointer,
        caught.value.best.keyword,
    )


def test_integral_float_retry_after_becomes_an_int() -> None:
    """retry_after_ms 1500.0 (a JSON integer) is kept as the int 1500."""
    response = ToolResponse.error("RATE_LIMIT", "slow down", retry_after_ms=1500.0)  # type: ignore[arg-type]
    assert (1500, int) == (response.retry_after_ms, type(response.retry_after_ms))


def test_with_stats_and_context_merge() -> None:
    """with_stats and with_context add members and keep the ones already set."""
    response = ToolResponse.success("ok", stats={"tokens": 5}, context={"tool_name": "a", "k": 1})
    merged = response.with_stats(time_ms=2.0).with_context(call_id="c1", k=2)
    assert ({"tokens": 5, "time_ms": 2.0}, {"tool_name": "a", "k": 2, "call_id": "c1"}) == (
        merged.stats,
        merged.context,
    )
    with pytest.raises(ResponseValidationError):
        response.with_stats(time_ms=-3)


def test_responses_are_immutable() -> None:
    """A response cannot be changed after it is built."""
    response = ToolResponse.success("ok")
    with pytest.raises(dataclasses.FrozenInstanceError):
        response.text = "changed"  # type: ignore[misc]


def test_replace_checks_again() -> None:
    """dataclasses.replace builds a new response, checked like any other."""
    response = ToolResponse.success("ok")
    assert ToolStatus.PARTIAL == dataclasses.replace(response, status=ToolStatus.PARTIAL).status
    with pytest.raises(ResponseValidationError):
        dataclasses.replace(response, status=ToolStatus.ERROR)


def test_string_status_becomes_the_enum() -> None:
    """A status given as its exact string becomes the ToolStatus."""
    assert ToolStatus.PARTIAL is ToolResponse(status="partial", text="x").status


# -- from_dict / from_json rejections -------------------------------------------------------


def fixture_cases() -> list[tuple[str, Any, bool, dict[str, str] | None]]:
    cases: list[tuple[str, Any, bool, dict[str, str] | None]] = []
    for path in sorted(FIXTURE_DIR.glob("*.json")):
        for group in json.loads(path.read_text("utf-8")):
            cases.extend(
                (f"{path.stem}::{test['description']}", test["data"], test["valid"], test.get("error"))
                for test in group["tests"]
            )
    return cases


FIXTURES = fixture_cases()


@pytest.mark.parametrize(("name", "data", "valid", "error"), FIXTURES, ids=[case[0] for case in FIXTURES])
def test_from_dict_agrees_with_the_conformance_fixtures(
    name: str, data: Any, valid: bool, error: dict[str, str] | None
) -> None:
    """from_dict accepts exactly the valid fixtures; a rejection names the fixture's pointer and keyword."""
    if valid:
        assert data == ToolResponse.from_dict(data).to_dict() | _explicit_nulls_and_empty_data(data)
        return
    with pytest.raises(ResponseValidationError) as caught:
        ToolResponse.from_dict(data)
    if error is not None:
        assert (error["pointer"], error["keyword"]) in [(e.pointer, e.keyword) for e in caught.value.errors]


def _explicit_nulls_and_empty_data(data: Any) -> dict[str, Any]:
    """The members that to_dict leaves out although the fixture spells them: nulls and an empty data."""
    return {key: value for key, value in data.items() if value is None or (key == "data" and value == {})}


def test_from_dict_names_the_common_error_mistake() -> None:
    """A response with "error" instead of error_info is rejected, naming the pointer."""
    with pytest.raises(ResponseValidationError) as caught:
        ToolResponse.from_dict({"status": "error", "text": "x", "error": {"code": "TIMEOUT", "message": "x"}})
    assert "error_info" in str(caught.value)


@pytest.mark.parametrize(
    ("obj", "pointer"),
    [
        ({"status": "success", "text": "x", "data": {"s": {1, 2}}}, "/data/s"),
        ({"status": "success", "text": "x", "data": {"t": (1, 2)}}, "/data/t"),
        ({"status": "success", "text": "x", "data": {"n": math.inf}}, "/data/n"),
        ({"status": "success", "text": "x", "stats": {"time_ms": math.nan}}, "/stats/time_ms"),
        ({"status": "success", "text": b"x"}, "/text"),
    ],
)
def test_from_dict_refuses_values_no_decoder_gives(obj: dict[str, Any], pointer: str) -> None:
    """from_dict takes decoded JSON only: sets, tuples, NaN and bytes are refused by pointer."""
    with pytest.raises(JsonValueError) as caught:
        ToolResponse.from_dict(obj)
    assert pointer == caught.value.pointer


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"status": "success", "text": "a", "text": "b"}', "occurs twice"),
        ('{"status": "success", "text": "a", "data": {"n": NaN}}', "NaN"),
        ('{"status": "success", "text": "a", "data": {"n": Infinity}}', "Infinity"),
        ('{"status": "success", "text": "a"', "ends too early"),
        ("", "empty"),
        ('{"status": "success", "text": "\\ud800"}', "surrogate"),
        ('\ufeff{"status": "success", "text": "a"}', "byte order mark"),
        (b'{"status": "success", "text": "\xff"}', "not UTF-8"),
        ('{"status": "success", "text": "a", "data": {"n": 1e400}}', "too large"),
    ],
)
def test_from_json_refuses_malformed_json(text: str | bytes, reason: str) -> None:
    """Text that is not I-JSON is refused with the reason."""
    with pytest.raises(MalformedJsonError, match=reason):
        ToolResponse.from_json(text)


def test_from_json_refuses_schema_violations_by_pointer() -> None:
    """Well-formed JSON that breaks the schema names the pointer."""
    with pytest.raises(ResponseValidationError, match="/error_info/code"):
        ToolResponse.from_json('{"status":"error","text":"x","error_info":{"code":"OOPS","message":"x"}}')


def test_from_json_refuses_other_types() -> None:
    """from_json takes str or bytes."""
    with pytest.raises(TypeError, match="str or bytes"):
        ToolResponse.from_json(42)  # type: ignore[arg-type]


def test_exception_tree() -> None:
    """Every error is a ToolResponseError and a ValueError."""
    for kind in (ResponseValidationError, JsonValueError, MalformedJsonError):
        assert issubclass(kind, ToolResponseError)
        assert issubclass(kind, ValueError)


# -- JSON data conversions ------------------------------------------------------------------


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class Point:
    x: int
    y: tuple[int, int]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": (1, 2)}, {"a": [1, 2]}),
        ({3, 1, 2}, [1, 2, 3]),
        (frozenset({"b", 1}), ["b", 1]),
        ({1: "one"}, {"1": "one"}),
        (Colour.RED, "red"),
        ({Colour.RED: Level.HIGH}, {"red": 3}),
        (datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC), "2026-01-02T03:04:05+00:00"),
        (datetime.date(2026, 1, 2), "2026-01-02"),
        (datetime.time(3, 4), "03:04:00"),
        (uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
        (Point(x=1, y=(2, 3)), {"x": 1, "y": [2, 3]}),
        (ToolStatus.ERROR, "error"),
        (types.MappingProxyType({"k": (1,)}), {"k": [1]}),
    ],
    ids=stable_id,
)
def test_documented_conversions(value: Any, expected: Any) -> None:
    """to_json_data makes the documented conversions and keeps the result exact JSON types."""
    converted = to_json_data(value)
    assert expected == converted
    assert json.loads(json.dumps(converted)) == converted


def test_plain_json_is_not_copied() -> None:
    """Plain JSON comes back as the very same object."""
    value = {"a": [1, 2.5, "x", None, True, {"b": []}]}
    assert value is to_json_data(value)


def cyclic() -> dict[str, Any]:
    value: dict[str, Any] = {"a": []}
    value["a"].append(value)
    return value


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "pointer", "message"),
    [
        ({"b": b"raw"}, "/b", "bytes"),
        ({"b": bytearray(b"raw")}, "/b", "bytearray"),
        ({"n": math.nan}, "/n", "NaN"),
        ({"n": [1, -math.inf]}, "/n/1", "Infinity"),
        ({"i": 2**64}, "/i", "64-bit"),
        ({"s": "\ud800"}, "/s", "surrogate"),
        ({"a/b": {"c~d": object()}}, "/a~1b/c~0d", "object"),
        (cyclic(), "/a/0", "cycle"),
        (nested(201), "/0" * 200, "200 levels"),
        ({1.5: "x"}, "", "not a string"),
        ({1: "a", "1": "b"}, "", "twice"),
        ({"g": (x for x in range(0))}, "/g", "generator"),
    ],
    ids=lambda value: None if isinstance(value, dict | list) else str(value)[:20],
)
def test_values_without_conversion_are_refused(value: Any, pointer: str, message: str) -> None:
    """A value that is not JSON raises JsonValueError naming its pointer."""
    with pytest.raises(JsonValueError, match=message) as caught:
        to_json_data(value)
    assert pointer == caught.value.pointer


def test_nesting_up_to_the_limit_is_accepted() -> None:
    """Members nest up to MAX_VALUE_DEPTH levels, and such a response still serialises and reads back."""
    response = ToolResponse.error("TIMEOUT", "deep", details={"v": nested(199)}, data={"v": nested(199)})
    assert response == ToolResponse.from_json(response.to_json())
    with pytest.raises(JsonValueError, match="200 levels"):
        ToolResponse.from_dict({"status": "success", "text": "x", "data": {"v": nested(200)}})


@pytest.mark.parametrize("convert", [False, True], ids=["plain", "to convert"])
def test_a_depth_limit_beyond_the_stack_is_an_error_not_a_recursion_error(convert: bool) -> None:
    """A max_depth deeper than the interpreter can walk ends in JsonValueError, never RecursionError."""
    value: Any = {"k": (1,) if convert else 1}
    for _ in range(5000):
        value = {"k": value}
    with pytest.raises(JsonValueError, match="use a lower max_depth"):
        to_json_data(value, max_depth=10_000)


def test_conversion_happens_on_construction() -> None:
    """Factories convert data on the way in, so the response holds JSON only."""
    response = ToolResponse.success(
        "ok", data={"tags": {"b", "a"}}, context={"when": datetime.date(2026, 1, 1)}
    )
    assert ({"tags": ["a", "b"]}, {"when": "2026-01-01"}) == (response.data, response.context)


# -- the registry's check-and-copy walk over parameters ----------------------------------------


class Label(str):
    """A str subclass: JSON after conversion, but not JSON exactly as it is."""


not_plain_leaves = st.sampled_from(
    [math.nan, -math.inf, 2**64, -(2**63) - 1, "\ud800", Label("x"), (1,), {1}, b"x", 1j, ToolStatus.ERROR]
)
mixed_values = st.recursive(
    json_scalars | not_plain_leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=4) | st.integers(0, 3) | st.just("\udc00"), inner, max_size=3)
    ),
    max_leaves=8,
)


def containers(value: Any) -> list[int]:
    """The identities of every dict and list in ``value``, itself included."""
    if isinstance(value, dict):
        return [id(value), *(found for item in value.values() for found in containers(item))]
    if isinstance(value, list):
        return [id(value), *(found for item in value for found in containers(item))]
    return []


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=4), mixed_values, max_size=4))
def test_plain_object_copy_agrees_with_is_json_data(value: dict[str, Any]) -> None:
    """The one-walk check and copy accepts exactly what is_json_data accepts, and its copy is
    equal to the original and shares none of its objects or arrays."""
    copy = plain_object_copy(value)
    assert is_json_data(value) == (copy is not NOT_PLAIN)
    if copy is not NOT_PLAIN:
        assert value == copy
        assert set() == set(containers(value)) & set(containers(copy))


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ({"v": nested(MAX_VALUE_DEPTH - 1)}, True),
        ({"v": nested(MAX_VALUE_DEPTH)}, False),
        (cyclic(), False),
        ({"\udc00": 1}, False),
        ({1: "one"}, False),
        ({"n": 1.5, "i": 2**64 - 1, "s": "é", "b": False, "z": None}, True),
    ],
    ids=["deepest", "too-deep", "cycle", "surrogate-key", "int-key", "scalars"],
)
def test_plain_object_copy_limits(value: dict[Any, Any], plain: bool) -> None:
    """Nesting, cycles and member names are judged as is_json_data judges them."""
    assert (plain, plain) == (is_json_data(value), plain_object_copy(value) is not NOT_PLAIN)
