"""google-genai's own types meet the ``gemini`` and ``gemini-interactions`` dialects: ``FunctionResponse``
and the Interactions ``FunctionResultStep`` validate every record written and dump records that read
back unchanged, and records they make for other tools are read as documented."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.genai import types
from google.genai.interactions import FunctionResultStep
from hypothesis import given, settings
from interop_cases import FIXTURE_IDS, VALID_FIXTURES, carried_back, inferred_error, responses

from toolresponse import DialectError, ToolResponse
from toolresponse.interop import from_gemini, from_gemini_interactions, to_gemini, to_gemini_interactions


def _check(response: ToolResponse) -> None:
    for carry in (True, False):
        model = types.FunctionResponse.model_validate(to_gemini(response, name="get_weather", carry=carry))
        step = FunctionResultStep.model_validate(to_gemini_interactions(response, call_id="c1", carry=carry))
        back = [
            from_gemini(model.model_dump(mode="json", exclude_none=True)),
            from_gemini(model.model_dump(mode="json", exclude_none=True, by_alias=True)),
            from_gemini_interactions(json.loads(step.model_dump_json())),
        ]
        if carry:
            model_back = carried_back("gemini", response, tool="get_weather")
            step_back = carried_back("gemini-interactions", response, call_id="c1")
            assert [model_back, model_back, step_back] == [read.to_dict() for read in back]
        else:
            assert [(response.status, response.code)] * 3 == [(read.status, read.code) for read in back]


@pytest.mark.parametrize(("fixture", "data"), VALID_FIXTURES, ids=FIXTURE_IDS)
def test_the_types_take_every_fixture_as_written_and_give_it_back(fixture: str, data: Any) -> None:
    """Each valid fixture, written, is a valid FunctionResponse and FunctionResultStep, and their dumps
    read back unchanged (carried) or with the same status and code (the model text alone)."""
    _check(ToolResponse.from_dict(data))


@settings(max_examples=60, deadline=None)
@given(response=responses())
def test_the_types_take_generated_responses_as_written(response: ToolResponse) -> None:
    """Generated responses do the same."""
    _check(response)


def _dumped(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", exclude_none=True)
    return dumped


def test_function_responses_of_other_tools_are_read() -> None:
    """An output object is a success with that data; an error object with a standard code is that
    error; an error text is coded from its words; multimodal parts are kept in data.parts."""
    ok = types.FunctionResponse(id="call_1", name="get_weather", response={"output": {"temp_c": 21.5}})
    assert {
        "status": "success",
        "text": '{"temp_c":21.5}',
        "data": {"temp_c": 21.5},
        "context": {"call_id": "call_1", "tool_name": "get_weather"},
    } == from_gemini(_dumped(ok)).to_dict()
    coded = types.FunctionResponse(
        name="get_weather",
        response={"error": {"code": "NOT_FOUND", "message": "city not found", "city": "X"}},
    )
    assert {
        "status": "error",
        "text": "city not found",
        "error_info": {"code": "NOT_FOUND", "message": "city not found", "details": {"city": "X"}},
        "context": {"tool_name": "get_weather"},
    } == from_gemini(_dumped(coded)).to_dict()
    worded = types.FunctionResponse(name="fetch", response={"error": "HTTP 429 Too Many Requests"})
    assert "RATE_LIMIT" == from_gemini(_dumped(worded)).to_dict()["error_info"]["code"]
    image = types.FunctionResponsePart(
        inline_data=types.FunctionResponseBlob(mime_type="image/png", data=b"\x89PNG")
    )
    render = types.FunctionResponse(name="render", response={"output": "see image"}, parts=[image])
    assert {
        "status": "success",
        "text": "see image",
        "data": {"parts": [{"inline_data": {"mime_type": "image/png", "data": "iVBORw=="}}]},
        "context": {"tool_name": "render"},
    } == from_gemini(_dumped(render)).to_dict()


def test_function_results_of_other_tools_are_read() -> None:
    """is_error decides error or not; result items are read as text items joined, the others kept."""
    failed = FunctionResultStep(call_id="call_2", name="get_weather", result="city not found", is_error=True)
    assert (
        inferred_error("city not found", "NOT_FOUND", "not found", call_id="call_2", tool_name="get_weather")
        == from_gemini_interactions(json.loads(failed.model_dump_json())).to_dict()
    )
    image = {"type": "image", "data": "iVBORw==", "mime_type": "image/png"}
    items = FunctionResultStep.model_validate(
        {"call_id": "c3", "result": [{"type": "text", "text": "21.5 C"}, image]}
    )
    assert {
        "status": "success",
        "text": "21.5 C",
        "data": {"blocks": [image]},
        "context": {"call_id": "c3"},
    } == from_gemini_interactions(json.loads(items.model_dump_json())).to_dict()


_ERROR = ToolResponse.error("TIMEOUT", "slow").to_dict()


@pytest.mark.parametrize(
    ("read", "record", "pointer"),
    [
        pytest.param(
            from_gemini, {"name": "t", "response": {"output": _ERROR}}, "/response/error", id="gemini"
        ),
        pytest.param(
            from_gemini_interactions,
            {"type": "function_result", "call_id": "c", "result": _ERROR},
            "/is_error",
            id="gemini-interactions",
        ),
    ],
)
def test_a_carried_response_that_contradicts_the_flag_is_refused(
    read: Any, record: Any, pointer: str
) -> None:
    """An error response where the record says no error is refused at the record's flag."""
    with pytest.raises(DialectError) as caught:
        read(record)
    assert (pointer, "const") == (caught.value.best.pointer, caught.value.best.keyword)
