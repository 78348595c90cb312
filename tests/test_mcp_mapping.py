"""The MCP binding's mapping (``toolresponse.interop``): ToolResponse -> CallToolResult -> ToolResponse
is the identity; an error also carries the MCP ToolFailure member, which alone gives its code back;
third-party results (no ``_meta`` of ours) are read without loss and their errors coded, from a
ToolFailure member first; records that are not CallToolResults are refused with pointers.

The cases of ``tests/conformance/v1/mcp/*.json`` (or of ``$TOOLRESPONSE_CONFORMANCE_DIR/mcp``) run
here; ``tests/conformance/README.md`` describes them."""

from __future__ import annotations

import copy
import json
import os
import uuid
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_parity import CASES, generated

from toolresponse import DialectError, ErrorCode, ToolResponse, ToolStatus, validate
from toolresponse.interop import from_mcp, from_mcp_error, to_mcp
from toolresponse.interop._mcp import (
    CONTENT_MEMBER,
    MCP_META_KEY,
    PARTIAL_MARKER,
    STRUCTURED_MEMBER,
    TOOL_FAILURE_KEY,
)
from toolresponse.interop._text import infer_code
from toolresponse.tools._params import ParameterValidator
from toolresponse_generated import ERROR_CODE_INFO, INFERENCE_RULES, MCP_RESULT_SHAPE, TOOL_FAILURE_SHAPE

VALID = [(name, data) for name, data, valid, _ in CASES if valid]
SHAPE = ParameterValidator.compile(MCP_RESULT_SHAPE, where="test")
FAILURE_SHAPE = ParameterValidator.compile(TOOL_FAILURE_SHAPE, where="test")
ROOT = Path(__file__).resolve().parent.parent
MCP_FIXTURE_DIR = (
    Path(os.environ.get("TOOLRESPONSE_CONFORMANCE_DIR") or ROOT / "tests" / "conformance" / "v1") / "mcp"
)
NOW_MS = 1_798_761_600_000
"""2027-01-01T00:00:00Z, in milliseconds since the Unix epoch."""


def _clock(now_ms: int | None) -> Any:
    """The clock of a case (seconds since the Unix epoch); without ``now_ms`` one that fails the case
    when read: its outcome must not depend on the time."""

    def unread() -> float:
        raise AssertionError("the mapping read the clock, and the case gives no now_ms")

    return unread if now_ms is None else (lambda: now_ms / 1000)


def _through_sdk(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` parsed by the SDK's own ``CallToolResult`` and dumped again, as a peer would."""
    model = mcp_types.CallToolResult.model_validate(record)
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


def test_there_are_valid_fixtures() -> None:
    assert len(VALID) > 50


def _tool_failure_is_well_formed(response: ToolResponse, record: dict[str, Any]) -> None:
    """An error's record carries a well-formed ToolFailure member, retryable exactly when the
    response is; any other record carries none."""
    failure = record["_meta"].get(TOOL_FAILURE_KEY)
    if not response.is_error:
        assert failure is None
        return
    assert () == FAILURE_SHAPE.violations(failure)
    assert response.is_retryable == (failure["class"] == "reliability" and failure["retryable"])


@pytest.mark.parametrize(("name", "data"), VALID, ids=[name for name, _ in VALID])
def test_every_valid_fixture_crosses_mcp_unchanged(name: str, data: Any) -> None:
    response = ToolResponse.from_dict(data)
    record = to_mcp(response)
    assert () == SHAPE.violations(record)
    _tool_failure_is_well_formed(response, record)
    assert response == from_mcp(_through_sdk(record))
    assert response.to_dict() == from_mcp(record).to_dict()


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_generated_responses_cross_mcp_unchanged(seed: int) -> None:
    candidate = generated(seed)
    if not validate(candidate).valid:
        return
    try:
        response = ToolResponse.from_dict(candidate)
    except ValueError:  # valid by the schema, yet not exact JSON (an integer past 64 bits ...)
        return
    record = to_mcp(response)
    _tool_failure_is_well_formed(response, record)
    assert response == from_mcp(_through_sdk(record))


def test_the_result_has_text_structured_content_is_error_and_meta() -> None:
    response = ToolResponse.error(
        "NOT_FOUND", "No such file.", details={"path": "a"}, stats={"time_ms": 1}, context={"call_id": "9"}
    )
    assert {
        "content": [{"type": "text", "text": "ERROR NOT_FOUND: No such file."}],
        "isError": True,
        "_meta": {
            MCP_META_KEY: {
                "status": "error",
                "error_info": {"code": "NOT_FOUND", "message": "No such file.", "details": {"path": "a"}},
                "stats": {"time_ms": 1},
                "context": {"call_id": "9"},
            },
            TOOL_FAILURE_KEY: {"class": "capability", "code": "resource_not_found", "correlationId": "9"},
        },
    } == to_mcp(response)


# -- the shared MCP mapping fixtures ---------------------------------------------------------


def _mapping_cases() -> list[Any]:
    return [
        pytest.param(test, id=f"{path.name}: {test['description']}")
        for path in sorted(MCP_FIXTURE_DIR.glob("*.json"))
        for group in json.loads(path.read_text(encoding="utf-8"))
        for test in group["tests"]
    ]


MAPPING_CASES = _mapping_cases()


def _taken(value: Any, pointer: str) -> Any:
    """The value at ``pointer`` in ``value``, removed from it."""
    *parents, last = [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
    for part in parents:
        value = value[part]
    return value.pop(last)


def test_the_mcp_mapping_fixtures_cover_every_code_both_ways() -> None:
    assert len(MAPPING_CASES) > 40
    inputs = [case.values[0]["input"] for case in MAPPING_CASES]
    written = {i["error_info"]["code"] for i in inputs if isinstance(i, dict) and "error_info" in i}
    assert {code.value for code in ErrorCode} <= written


@pytest.mark.parametrize("case", MAPPING_CASES)
def test_mcp_mapping_fixture(case: dict[str, Any]) -> None:
    clock = _clock(case.get("now_ms"))
    if case["direction"] == "write":
        actual = to_mcp(ToolResponse.from_dict(case["input"]), clock=clock)
        as_the_sdk_sends_it = _through_sdk(actual)
        del as_the_sdk_sends_it["resultType"]  # mcp-types 2.x always adds it
        assert actual == as_the_sdk_sends_it
    elif "error" in case:
        with pytest.raises(DialectError) as caught:
            from_mcp(case["input"], clock=clock)
        expected = (case["error"]["pointer"], case["error"]["keyword"])
        assert expected in {(violation.pointer, violation.keyword) for violation in caught.value.errors}
        return
    else:
        actual = from_mcp(case["input"], clock=clock).to_dict()
    actual = copy.deepcopy(actual)
    for pointer in case.get("generated", ()):
        made_up = _taken(actual, pointer)
        assert isinstance(made_up, str)
        assert made_up
    if "ignored" in case:
        violations = actual["error_info"]["details"].pop("tool_failure_ignored")
        assert all(isinstance(violation.pop("message"), str) for violation in violations)
        assert case["ignored"] in violations
    assert case["expected"] == actual


# -- the ToolFailure member ------------------------------------------------------------------


def _retryable_wait(code: ErrorCode) -> int | None:
    return 1200 if ERROR_CODE_INFO[code].retryable else None


@pytest.mark.parametrize("code", list(ErrorCode), ids=[code.value for code in ErrorCode])
def test_every_code_crosses_mcp_in_the_tool_failure_member_alone(code: ErrorCode) -> None:
    """Our own member stripped and the text saying nothing of the code, the ToolFailure member gives
    the code, its retryability and the time to wait back."""
    response = ToolResponse.error(
        code, "It failed.", retry_after_ms=_retryable_wait(code), context={"call_id": "c"}
    )
    record = to_mcp(response, clock=_clock(NOW_MS))
    del record["_meta"][MCP_META_KEY]
    record["content"] = [{"type": "text", "text": "It failed."}]
    read = from_mcp(_through_sdk(record), clock=_clock(NOW_MS))
    assert (code, response.is_retryable, response.retry_after_ms) == (
        read.code,
        read.is_retryable,
        read.retry_after_ms,
    )
    assert ("It failed.", "It failed.") == (read.text, read.error_info.message if read.error_info else None)
    assert read.error_info is not None
    assert read.error_info.details is not None
    assert "tool_failure.code" == read.error_info.details["code_from"]
    assert read.error_info.retryable is None  # the code's default says it


@pytest.mark.parametrize("code", list(ErrorCode), ids=[code.value for code in ErrorCode])
def test_every_code_marked_otherwise_keeps_its_retryability_through_the_member_alone(code: ErrorCode) -> None:
    flipped = not ERROR_CODE_INFO[code].retryable
    response = ToolResponse.error(code, "It failed.", retryable=flipped, context={"call_id": "c"})
    record = to_mcp(response, clock=_clock(NOW_MS))
    del record["_meta"][MCP_META_KEY]
    read = from_mcp(record, clock=_clock(NOW_MS))
    assert (code, flipped, flipped) == (
        read.code,
        read.is_retryable,
        read.error_info.retryable if read.error_info else None,
    )


def test_the_time_to_wait_is_counted_down_from_when_it_was_written() -> None:
    response = ToolResponse.error(ErrorCode.CIRCUIT_OPEN, "Open.", retry_after_ms=30_000)
    record = to_mcp(response, clock=_clock(NOW_MS))
    assert NOW_MS + 30_000 == record["_meta"][TOOL_FAILURE_KEY]["retryNotBefore"]
    del record["_meta"][MCP_META_KEY]
    assert [30_000, 12_500, 0, 0] == [
        from_mcp(record, clock=_clock(NOW_MS + elapsed)).retry_after_ms
        for elapsed in (0, 17_500, 30_000, 99_000)
    ]


def test_a_response_without_a_call_id_gets_a_new_uuid4_as_correlation_id() -> None:
    response = ToolResponse.error(ErrorCode.NOT_FOUND, "Gone.")
    first, second = (to_mcp(response)["_meta"][TOOL_FAILURE_KEY]["correlationId"] for _ in range(2))
    assert 4 == uuid.UUID(first).version
    assert first != second


def test_a_tool_failure_under_another_key_is_not_read() -> None:
    record = {
        "content": [{"type": "text", "text": "Something odd happened."}],
        "isError": True,
        "_meta": {
            "io.example/toolFailure": {"class": "governance", "code": "auth_required", "correlationId": "1"}
        },
    }
    response = from_mcp(record)
    assert ErrorCode.EXECUTION_ERROR is response.code
    assert response.error_info is not None
    assert response.error_info.details is not None
    assert "tool_failure" not in response.error_info.details


def test_a_partial_result_says_so_in_its_text_block() -> None:
    record = to_mcp(ToolResponse.partial("First 10 of 50.", {"returned": 10}))
    assert [{"type": "text", "text": PARTIAL_MARKER + "First 10 of 50."}] == record["content"]
    assert False is record["isError"]


def test_the_meta_key_is_reverse_dns_of_the_schema_host() -> None:
    assert "dev.toolresponse/response" == MCP_META_KEY


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(
            {"content": [{"type": "text", "text": "12:00"}]},
            {"status": "success", "text": "12:00"},
            id="text only",
        ),
        pytest.param(
            {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "isError": False},
            {"status": "success", "text": "a\nb"},
            id="text blocks joined by a newline",
        ),
        pytest.param(
            {"content": [], "structuredContent": {"t": 1}},
            {"status": "success", "text": "", "data": {"t": 1}},
            id="structured content is the data",
        ),
        pytest.param(
            {"content": [], "structuredContent": [1, 2]},
            {"status": "success", "text": "", "data": {STRUCTURED_MEMBER: [1, 2]}},
            id="a structured content that is not an object is wrapped",
        ),
        pytest.param(
            {"content": [{"type": "image", "data": "iVBO", "mimeType": "image/png"}]},
            {
                "status": "success",
                "text": "",
                "data": {CONTENT_MEMBER: [{"type": "image", "data": "iVBO", "mimeType": "image/png"}]},
            },
            id="an image block is kept in data",
        ),
        pytest.param(
            {
                "content": [
                    {"type": "text", "text": "see"},
                    {"type": "resource_link", "uri": "file:///a", "name": "a"},
                    {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
                    {"type": "resource", "resource": {"uri": "file:///b", "text": "B"}},
                ],
                "structuredContent": {"n": 1},
            },
            {
                "status": "success",
                "text": "see",
                "data": {
                    "n": 1,
                    CONTENT_MEMBER: [
                        {"type": "resource_link", "uri": "file:///a", "name": "a"},
                        {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
                        {"type": "resource", "resource": {"uri": "file:///b", "text": "B"}},
                    ],
                },
            },
            id="resource links, audio and embedded resources are kept beside the structured content",
        ),
        pytest.param(
            {"content": [{"type": "text", "text": PARTIAL_MARKER + "half"}]},
            {"status": "partial", "text": "half"},
            id="the partial marker makes a partial result",
        ),
    ],
)
def test_a_third_party_result_loses_nothing(record: dict[str, Any], expected: dict[str, Any]) -> None:
    assert expected == from_mcp(record).to_dict()


@pytest.mark.parametrize(
    ("text", "code", "signal"),
    [
        ("ENOENT: no such file or directory, open '/tmp/x'", ErrorCode.NOT_FOUND, "ENOENT"),
        ("EACCES: permission denied, open '/etc/shadow'", ErrorCode.PERMISSION_DENIED, "EACCES"),
        ("EISDIR: illegal operation on a directory, read", ErrorCode.IS_DIRECTORY, "EISDIR"),
        ("Upstream answered HTTP 429", ErrorCode.RATE_LIMIT, "HTTP 429"),
        ("status code 503 from api.example", ErrorCode.API_ERROR, "HTTP 5xx"),
        ("Rate limit exceeded, slow down", ErrorCode.RATE_LIMIT, "rate limit"),
        ("The request timed out", ErrorCode.TIMEOUT, "timed out"),
        ("Permission denied", ErrorCode.PERMISSION_DENIED, "permission denied"),
        ("Repository not found", ErrorCode.NOT_FOUND, "not found"),
        ("Invalid timezone: 'Mars/Olympus'", ErrorCode.INVALID_PARAM, "invalid"),
    ],
)
def test_a_third_party_error_is_coded_from_its_text(text: str, code: ErrorCode, signal: str) -> None:
    response = from_mcp({"content": [{"type": "text", "text": text}], "isError": True})
    assert ToolStatus.ERROR is response.status
    assert code is response.code
    assert text == response.text
    assert response.error_info is not None
    assert {
        "source": "mcp",
        "code_from": "text",
        "inferred": True,
        "signal": signal,
    } == response.error_info.details


def test_an_error_without_a_signal_is_an_execution_error_with_its_text() -> None:
    response = from_mcp({"content": [{"type": "text", "text": "Something odd happened."}], "isError": True})
    assert ErrorCode.EXECUTION_ERROR is response.code
    assert "Something odd happened." == response.text


def test_an_error_without_text_still_has_a_message() -> None:
    response = from_mcp({"content": [], "isError": True})
    assert ErrorCode.EXECUTION_ERROR is response.code
    assert response.text


def test_an_error_keeps_its_structured_content() -> None:
    record = {
        "content": [{"type": "text", "text": "bad"}],
        "structuredContent": {"field": "a"},
        "isError": True,
    }
    assert {"field": "a"} == from_mcp(record).data


@pytest.mark.parametrize(
    ("record", "pointer", "keyword"),
    [
        ({}, "", "required"),
        ({"content": "text"}, "/content", "type"),
        ({"content": [{"text": "a"}]}, "/content/0", "required"),
        ({"content": [{"type": "text"}]}, "/content/0", "required"),
        ({"content": [{"type": "image", "data": "x"}]}, "/content/0", "required"),
        ({"content": [], "isError": "yes"}, "/isError", "type"),
        ({"content": [], "_meta": []}, "/_meta", "type"),
    ],
)
def test_a_record_that_is_not_a_call_tool_result_is_refused_with_a_pointer(
    record: dict[str, Any], pointer: str, keyword: str
) -> None:
    with pytest.raises(DialectError) as caught:
        from_mcp(record)
    assert "mcp" == caught.value.dialect
    assert (pointer, keyword) == (caught.value.errors[0].pointer, caught.value.errors[0].keyword)


def test_a_record_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(DialectError) as caught:
        from_mcp([])  # type: ignore[arg-type]
    assert "" == caught.value.errors[0].pointer


def test_a_broken_carried_response_is_refused_with_a_pointer_into_the_record() -> None:
    record = {
        "content": [{"type": "text", "text": ""}],
        "isError": True,
        "_meta": {MCP_META_KEY: {"status": "error", "error_info": {"code": "NOPE", "message": "m"}}},
    }
    with pytest.raises(DialectError) as caught:
        from_mcp(record)
    pointers = {error.pointer for error in caught.value.errors}
    assert any(pointer.startswith("/_meta/dev.toolresponse~1response") for pointer in pointers)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ({"code": -32602, "message": "Unknown tool: nope"}, ErrorCode.NOT_FOUND),
        ({"code": -32602, "message": "Invalid arguments: 'a' is required"}, ErrorCode.INVALID_PARAM),
        ({"code": -32601, "message": "Method not found"}, ErrorCode.NOT_FOUND),
        ({"code": -32603, "message": "Internal error"}, ErrorCode.INTERNAL_ERROR),
        ({"code": -32000, "message": "Server-defined"}, ErrorCode.EXECUTION_ERROR),
    ],
)
def test_a_protocol_error_is_a_response(error: dict[str, Any], code: ErrorCode) -> None:
    response = from_mcp_error(error, tool="t")
    assert code is response.code
    assert error["message"] in response.text
    assert {"tool_name": "t"} == response.context


def test_every_inference_row_is_reachable_by_its_own_signal() -> None:
    for rule in INFERENCE_RULES:
        if rule.signal.isupper():  # errno names match themselves
            assert (rule.code, rule.signal) == infer_code(f"{rule.signal}: something")
