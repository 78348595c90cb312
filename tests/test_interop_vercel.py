"""The Vercel AI SDK (npm ``ai`` 6, pinned in package-lock.json) meets the ``vercel`` dialect, run by
``tests/vercel/ai_sdk.mjs``: its own ``modelMessageSchema`` accepts every part ``to_vercel`` writes
and refuses what the dialect's shape refuses, and the parts its ``generateText`` makes (a result, a
thrown error, a denied call) are read as documented."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from interop_cases import VALID_FIXTURES, carried_back, inferred_error
from node_json import node_json

from toolresponse import AccessControl, RequireApproval, ToolRegistry, ToolResponse
from toolresponse.interop import DENIED, dialect, from_vercel, to_vercel

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "vercel" / "ai_sdk.mjs"
SHAPE = dialect("vercel").shape


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None or not (ROOT / "node_modules" / "ai").exists():
        pytest.fail("the AI SDK test needs Node and `make node-modules`")
    return found


def _run(node: str, mode: str, records: Any = None) -> Any:
    return node_json([node, str(SCRIPT), mode], records)


def _denied() -> ToolResponse:
    return ToolResponse.from_dict(DENIED.wire("operator refused", context={"call_id": "call_9"}))


def test_the_sdk_accepts_every_part_written(node: str) -> None:
    """Every valid fixture, and a denial, written with and without the response carried, is a
    valid tool message part for the SDK; the carried ones read back unchanged."""
    responses = [ToolResponse.from_dict(data) for _, data in VALID_FIXTURES] + [_denied()]
    carried, bare = (
        [
            to_vercel(response, toolCallId="call_1", toolName="get_weather", carry=carry)
            for response in responses
        ]
        for carry in (True, False)
    )
    assert [None] * 2 * len(responses) == _run(node, "validate", carried + bare)
    kinds = {record["output"]["type"] for record in carried + bare}
    assert {"json", "error-json", "text", "error-text", "execution-denied"} == kinds
    expected = [carried_back("vercel", r, call_id="call_1", tool="get_weather") for r in responses]
    assert expected == [from_vercel(record).to_dict() for record in carried]


BAD = [
    pytest.param({"type": "json"}, id="json without value"),
    pytest.param({"type": "text", "value": 5}, id="text not a string"),
    pytest.param({"type": "content", "value": [{"type": "text"}]}, id="a text item without text"),
    pytest.param({"type": "errors", "value": "x"}, id="no output type"),
]


@pytest.mark.parametrize("output", BAD)
def test_a_part_out_of_the_shape_is_refused_by_the_sdk_too(node: str, output: dict[str, Any]) -> None:
    """The dialect's shape refuses what the SDK's own schema refuses."""
    record = {"type": "tool-result", "toolCallId": "c", "toolName": "t", "output": output}
    [issues] = _run(node, "validate", [record])
    assert issues
    assert SHAPE.violations(record)


@pytest.fixture(scope="module")
def produced(node: str) -> dict[str, Any]:
    result: dict[str, Any] = _run(node, "produce")
    return result


def test_the_tool_message_the_sdk_writes_is_read(produced: dict[str, Any]) -> None:
    """A json output is a success whose data is the value; an error-text output an error, its code
    inferred from its words; the call id and tool name go to context."""
    [message] = produced["messages"]
    ok, failed = (from_vercel(part).to_dict() for part in message["content"])
    assert {
        "status": "success",
        "text": '{"temp_c":21.5,"city":"Paris"}',
        "data": {"temp_c": 21.5, "city": "Paris"},
        "context": {"call_id": "call_1", "tool_name": "get_weather"},
    } == ok
    assert (
        inferred_error("city not found", "NOT_FOUND", "not found", call_id="call_2", tool_name="get_weather")
        == failed
    )


def test_the_tool_error_part_is_an_error_with_its_input(produced: dict[str, Any]) -> None:
    """A step's tool-error (the thrown Error serialises as {}) is an execution error, the tool's
    input in context.params_input; the step's tool-result part (input and raw output) is not a part
    of a tool message, and the shape says so."""
    result, error = produced["steps"]
    assert {
        "status": "error",
        "text": "The tool reported an error without saying why.",
        "error_info": {
            "code": "EXECUTION_ERROR",
            "message": "The tool reported an error without saying why.",
        },
        "context": {"call_id": "call_2", "tool_name": "get_weather", "params_input": {"city": "Atlantis"}},
    } == from_vercel(error).to_dict()
    assert "/input" in [violation.pointer for violation in SHAPE.violations(result)]


def test_a_denied_call_is_the_denied_outcome_and_is_written_back(produced: dict[str, Any]) -> None:
    """The execution-denied output the SDK sent the model is PERMISSION_DENIED with details.outcome
    "denied", its reason the message; written again, it is the same part."""
    [message] = produced["denied"]
    [part] = message["content"]
    response = from_vercel(part)
    assert {
        "status": "error",
        "text": "operator refused",
        "error_info": {
            "code": "PERMISSION_DENIED",
            "message": "operator refused",
            "details": {"outcome": "denied"},
        },
        "context": {"call_id": "call_9", "tool_name": "delete_db"},
    } == response.to_dict()
    assert part == to_vercel(response)


def test_the_denied_code_is_the_one_our_approval_answers() -> None:
    """A person refusing a call through RequireApproval gets the code every dialect's denial maps to."""
    registry = ToolRegistry(access=AccessControl(RequireApproval(), approver=lambda request: False))

    @registry.tool
    def delete_db() -> str:
        """Drop everything."""
        return "gone"

    info = registry.execute("delete_db", {}).error_info
    assert info is not None
    assert (DENIED.code, "refused") == (info.code, (info.details or {}).get("approval"))
