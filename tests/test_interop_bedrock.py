"""botocore's own model of the Bedrock Converse API meets the ``bedrock`` dialect, offline: a Converse
request holding each ``toolResult`` written passes botocore's parameter validation, and the block its
serializer puts in the request body reads back unchanged; what botocore refuses, the shape refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.serialize import create_serializer
from botocore.session import get_session
from botocore.validate import ParamValidator
from hypothesis import given, settings
from interop_cases import FIXTURE_IDS, VALID_FIXTURES, carried_back, inferred_error, responses

from toolresponse import DialectError, ToolResponse
from toolresponse.interop import dialect, from_bedrock, to_bedrock

CONVERSE = get_session().get_service_model("bedrock-runtime").operation_model("Converse")
SHAPE = dialect("bedrock").shape


def _request(block: dict[str, Any]) -> dict[str, Any]:
    asked = {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}}
    return {
        "modelId": "anthropic.claude-sonnet",
        "messages": [
            {"role": "user", "content": [{"text": "Weather in Paris?"}]},
            {"role": "assistant", "content": [asked]},
            {"role": "user", "content": [{"toolResult": block}]},
        ],
    }


def _problems(block: dict[str, Any]) -> str:
    report = ParamValidator().validate(_request(block), CONVERSE.input_shape)
    return str(report.generate_report()) if report.has_errors() else ""


def _sent(block: dict[str, Any]) -> Any:
    """The toolResult block as botocore writes it in the Converse request body."""
    assert "" == _problems(block)
    request = create_serializer("rest-json").serialize_to_request(_request(block), CONVERSE)
    return json.loads(request["body"])["messages"][2]["content"][0]["toolResult"]


def _check(response: ToolResponse) -> None:
    sent = _sent(to_bedrock(response, toolUseId="tooluse_1"))
    assert carried_back("bedrock", response, call_id="tooluse_1") == from_bedrock(sent).to_dict()
    bare = from_bedrock(_sent(to_bedrock(response, toolUseId="tooluse_1", carry=False)))
    assert (response.status, response.code) == (bare.status, bare.code)


@pytest.mark.parametrize(("fixture", "data"), VALID_FIXTURES, ids=FIXTURE_IDS)
def test_botocore_sends_every_fixture_as_written(fixture: str, data: Any) -> None:
    """Each valid fixture, written, passes botocore's validation; the block it sends reads back
    unchanged (the model text alone: the same status and code)."""
    _check(ToolResponse.from_dict(data))


@settings(max_examples=60, deadline=None)
@given(response=responses())
def test_botocore_sends_generated_responses_as_written(response: ToolResponse) -> None:
    """Generated responses do the same."""
    _check(response)


def test_a_tool_result_of_another_tool_is_read() -> None:
    """status error decides; the text blocks are the text, coded from their words; an image, sent
    by botocore as base64, is kept in data.blocks; a lone json block is the data of a success."""
    image = {"image": {"format": "png", "source": {"bytes": b"\x89PNG"}}}
    failed = _sent(
        {"toolUseId": "tooluse_2", "status": "error", "content": [{"text": "ENOENT: x.txt"}, image]}
    )
    image = {"image": {"format": "png", "source": {"bytes": "iVBORw=="}}}
    assert {
        **inferred_error("ENOENT: x.txt", "NOT_FOUND", "ENOENT", call_id="tooluse_2"),
        "data": {"blocks": [image]},
    } == from_bedrock(failed).to_dict()
    data = _sent({"toolUseId": "tooluse_3", "content": [{"json": {"temp_c": 21.5}}]})
    assert {
        "status": "success",
        "text": '{"temp_c":21.5}',
        "data": {"temp_c": 21.5},
        "context": {"call_id": "tooluse_3"},
    } == from_bedrock(data).to_dict()


@pytest.mark.parametrize(
    "block",
    [
        pytest.param({"content": [{"text": "x"}]}, id="no toolUseId"),
        pytest.param({"toolUseId": "", "content": [{"text": "x"}]}, id="an empty toolUseId"),
        pytest.param({"toolUseId": "t", "content": [{"text": "x", "json": {}}]}, id="two members of a block"),
        pytest.param({"toolUseId": "t", "content": [{"audio": {}}]}, id="a member no block has"),
        pytest.param({"toolUseId": "t", "content": [{"text": "x"}], "extra": 1}, id="an unknown member"),
    ],
)
def test_what_botocore_refuses_the_shape_refuses(block: dict[str, Any]) -> None:
    """Blocks botocore's validator refuses have violations of the dialect's shape too."""
    assert _problems(block)
    assert SHAPE.violations(block)


def test_a_carried_response_that_contradicts_status_is_refused() -> None:
    """A success response in a json block of a status-error result is refused at /status."""
    block = {
        "toolUseId": "t",
        "status": "error",
        "content": [{"json": ToolResponse.success("paid").to_dict()}],
    }
    with pytest.raises(DialectError) as caught:
        from_bedrock(block)
    assert ("bedrock", "/status", "const") == (
        caught.value.dialect,
        caught.value.best.pointer,
        caught.value.best.keyword,
    )
