"""LlamaIndex and AutoGen, for real: the records their own tool calls make (``call_tool`` on a
``FunctionTool``; AutoGen's tool agent in its caller loop) are read by ``from_llamaindex`` and
``from_autogen``, and the records ``to_`` writes are loaded by their classes and come back exactly."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from autogen_core import AgentId, FunctionCall, SingleThreadedAgentRuntime
from autogen_core.models import (
    CreateResult,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    RequestUsage,
    UserMessage,
)
from autogen_core.tool_agent import ToolAgent, tool_agent_caller_loop
from autogen_core.tools import FunctionTool as AutoGenTool
from autogen_core.tools import Tool as AutoGenToolBase
from autogen_ext.models.replay import ReplayChatCompletionClient
from hypothesis import given, settings
from interop_cases import FIXTURE_IDS, VALID_FIXTURES, carried_back, responses
from llama_index.core.tools import FunctionTool, ToolOutput
from llama_index.core.tools.calling import call_tool

from toolresponse import DialectError, ToolResponse
from toolresponse.interop import from_autogen, from_llamaindex, model_text, to_autogen, to_llamaindex


def get_weather(city: str) -> dict[str, Any]:
    """The weather of a city."""
    if city == "Atlantis":
        raise ValueError("city not found")
    return {"temp_c": 21.5}


# -- LlamaIndex -----------------------------------------------------------------------------------


def test_what_a_llamaindex_tool_call_makes_is_read() -> None:
    """call_tool's ToolOutput of a success (text a Python repr, the value in raw_output) and of an
    exception (is_error) read as a success with data and a coded error."""
    tool = FunctionTool.from_defaults(fn=get_weather)
    ok = call_tool(tool, {"city": "Paris"}).model_dump(mode="json")
    failed = call_tool(tool, {"city": "Atlantis"}).model_dump(mode="json")
    assert (False, True) == (ok["is_error"], failed["is_error"])
    assert {
        "status": "success",
        "text": "{'temp_c': 21.5}",
        "data": {"raw_output": {"temp_c": 21.5}},
        "context": {"tool_name": "get_weather", "params_input": {"args": [], "kwargs": {"city": "Paris"}}},
    } == from_llamaindex(ok).to_dict()
    response = from_llamaindex(failed)
    assert "NOT_FOUND" == response.code.value  # type: ignore[union-attr]
    assert "Encountered error: city not found" == response.text
    assert {"raw_output": "city not found"} == response.data
    assert from_llamaindex(call_tool(tool, {"city": "Paris"})).to_dict() == from_llamaindex(ok).to_dict()


def test_a_llamaindex_0_12_record_reads_as_the_library_loads_it() -> None:
    """A ToolOutput of llama-index-core 0.12.0 (a content string) reads as what the library makes of it."""
    old = {"content": "ERROR TIMEOUT: slow", "tool_name": "t", "raw_input": {}, "is_error": True}
    loaded = ToolOutput.model_validate(old).model_dump(mode="json")
    assert "blocks" in loaded
    assert from_llamaindex(loaded).to_dict() == from_llamaindex(old).to_dict()
    assert "TIMEOUT" == from_llamaindex(old).code.value  # type: ignore[union-attr]


def test_a_raw_output_that_contradicts_is_error_is_refused() -> None:
    """A response in raw_output whose status contradicts is_error is refused at /is_error."""
    record = to_llamaindex(ToolResponse.error("NOT_FOUND", "gone"), tool_name="t")
    record["is_error"] = False
    with pytest.raises(DialectError) as caught:
        from_llamaindex(record)
    assert "/is_error" == caught.value.errors[0].pointer


def _through_llamaindex(response: ToolResponse) -> None:
    record = to_llamaindex(response, tool_name="tool_1")
    output = ToolOutput.model_validate(record)
    assert model_text(response) == output.content
    assert response.is_error is output.is_error
    back = from_llamaindex(output.model_dump(mode="json")).to_dict()
    assert carried_back("llamaindex", response, tool="tool_1") == back


# -- AutoGen ---------------------------------------------------------------------------------


async def _caller_loop() -> list[dict[str, Any]]:
    """The FunctionExecutionResults of AutoGen's tool agent, in its caller loop, for two calls of
    get_weather (one raising), made by a replayed model."""
    runtime = SingleThreadedAgentRuntime()
    tool = AutoGenTool(get_weather, description="The weather of a city.")
    tools: list[AutoGenToolBase] = [tool]
    await ToolAgent.register(runtime, "tools", lambda: ToolAgent("the tools", tools))
    runtime.start()
    calls = [
        FunctionCall(id="call_1", arguments='{"city": "Paris"}', name="get_weather"),
        FunctionCall(id="call_2", arguments='{"city": "Atlantis"}', name="get_weather"),
    ]
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    model = ReplayChatCompletionClient(
        [CreateResult(finish_reason="function_calls", content=calls, usage=usage, cached=False), "done"]
    )
    try:
        messages = await tool_agent_caller_loop(
            runtime, AgentId("tools", "default"), model, [UserMessage(content="go", source="user")], tools
        )
    finally:
        await runtime.stop()
    results = [message for message in messages if isinstance(message, FunctionExecutionResultMessage)]
    return [result.model_dump(mode="json") for result in results[0].content]


def test_what_autogen_s_tool_agent_makes_is_read() -> None:
    """The caller loop's results: a success (a Python repr, kept as text) and an error (is_error;
    AutoGen writes "Error: " and nothing of the exception) read with their ids and tool."""
    ok, failed = asyncio.run(_caller_loop())
    assert {
        "status": "success",
        "text": "{'temp_c': 21.5}",
        "context": {"call_id": "call_1", "tool_name": "get_weather"},
    } == from_autogen(ok).to_dict()
    assert True is failed["is_error"]
    response = from_autogen(failed)
    assert ("EXECUTION_ERROR", failed["content"]) == (response.code.value, response.text)  # type: ignore[union-attr]
    assert {"call_id": "call_2", "tool_name": "get_weather"} == response.context
    assert from_autogen(FunctionExecutionResult.model_validate(ok)).to_dict() == from_autogen(ok).to_dict()


@pytest.mark.parametrize(
    ("is_error", "status"),
    [pytest.param(None, "error", id="unknown"), pytest.param(False, "success", id="ok")],
)
def test_autogen_s_unknown_flag_lets_the_text_decide(is_error: bool | None, status: str) -> None:
    """With is_error null, text that opens as failures do is an error; with false, a success."""
    record = {"content": "Error: boom", "name": "t", "call_id": "", "is_error": is_error}
    assert status == from_autogen(record).status.value


def _through_autogen(response: ToolResponse) -> None:
    record = to_autogen(response, name="tool_1", call_id="call_1")
    result = FunctionExecutionResult.model_validate(record)
    FunctionExecutionResultMessage(content=[result])
    assert response.is_error is result.is_error
    assert (
        carried_back("autogen", response, call_id="call_1", tool="tool_1")
        == from_autogen(result.model_dump(mode="json")).to_dict()
    )


# -- both, loading what to_ writes ---------------------------------------------------------------

LOADED = [
    pytest.param(_through_llamaindex, id="llamaindex"),
    pytest.param(_through_autogen, id="autogen"),
]


@pytest.mark.parametrize("through", LOADED)
@pytest.mark.parametrize(("fixture", "data"), VALID_FIXTURES, ids=FIXTURE_IDS)
def test_the_libraries_load_every_fixture_as_converted(
    through: Callable[[ToolResponse], None], fixture: str, data: Any
) -> None:
    """Each valid fixture, as a ToolOutput and as a FunctionExecutionResult, loads into the library's
    class and reads back unchanged."""
    through(ToolResponse.from_dict(data))


@pytest.mark.parametrize("through", LOADED)
@settings(max_examples=60, deadline=None)
@given(response=responses())
def test_the_libraries_load_generated_responses_as_converted(
    through: Callable[[ToolResponse], None], response: ToolResponse
) -> None:
    """Generated responses, as a ToolOutput and as a FunctionExecutionResult, load into the library's
    class and read back unchanged."""
    through(response)
