"""The MCP binding's mapping (``toolresponse.interop``): ToolResponse -> CallToolResult -> ToolResponse
is the identity; third-party results (no ``_meta`` of ours) are read without loss and their errors
coded; records that are not CallToolResults are refused with pointers."""

from __future__ import annotations

from typing import Any

import mcp_types
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_parity import CASES, generated

from toolresponse import DialectError, ErrorCode, ToolResponse, ToolStatus, validate
from toolresponse.interop import (
    CONTENT_MEMBER,
    INFERENCE_TABLE,
    MCP_META_KEY,
    MCP_RESULT_SHAPE,
    PARTIAL_MARKER,
    STRUCTURED_MEMBER,
    from_mcp,
    from_mcp_error,
    infer_code,
    to_mcp,
)
from toolresponse.tools import ParameterValidator

VALID = [(name, data) for name, data, valid, _ in CASES if valid]
SHAPE = ParameterValidator.compile(MCP_RESULT_SHAPE, where="test")


def _through_sdk(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` parsed by the SDK's own ``CallToolResult`` and dumped again, as a peer would."""
    model = mcp_types.CallToolResult.model_validate(record)
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


def test_there_are_valid_fixtures() -> None:
    assert len(VALID) > 50


@pytest.mark.parametrize(("name", "data"), VALID, ids=[name for name, _ in VALID])
def test_every_valid_fixture_crosses_mcp_unchanged(name: str, data: Any) -> None:
    response = ToolResponse.from_dict(data)
    record = to_mcp(response)
    assert () == SHAPE.violations(record)
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
    assert response == from_mcp(_through_sdk(to_mcp(response)))


def test_the_result_has_text_structured_content_is_error_and_meta() -> None:
    response = ToolResponse.error("NOT_FOUND", "No such file.", details={"path": "a"}, stats={"time_ms": 1})
    assert {
        "content": [{"type": "text", "text": "ERROR NOT_FOUND: No such file."}],
        "isError": True,
        "_meta": {
            MCP_META_KEY: {
                "status": "error",
                "error_info": {"code": "NOT_FOUND", "message": "No such file.", "details": {"path": "a"}},
                "stats": {"time_ms": 1},
            }
        },
    } == to_mcp(response)


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
    ("failure", "code", "retryable"),
    [
        ({"class": "reliability", "code": "RATE_LIMIT", "retryable": True}, ErrorCode.RATE_LIMIT, True),
        ({"class": "governance", "code": "permission-denied"}, ErrorCode.PERMISSION_DENIED, None),
        ({"class": "reliability", "code": "upstream_timeout", "retryable": True}, ErrorCode.TIMEOUT, True),
        ({"class": "governance", "code": "policy.blocked"}, ErrorCode.PERMISSION_DENIED, None),
    ],
)
def test_a_structured_failure_in_meta_gives_the_code(
    failure: dict[str, Any], code: ErrorCode, retryable: bool | None
) -> None:
    record = {
        "content": [{"type": "text", "text": "No."}],
        "isError": True,
        "_meta": {"io.example/toolFailure": failure},
    }
    response = from_mcp(record)
    assert code is response.code
    assert response.error_info is not None
    assert retryable is response.error_info.retryable
    assert response.error_info.details is not None
    assert failure == response.error_info.details["tool_failure"]


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
        from_mcp([])
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
    for signal, _, code in INFERENCE_TABLE:
        if signal.isupper():  # errno names match themselves
            assert (code, signal) == infer_code(f"{signal}: something")
