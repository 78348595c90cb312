"""Registry tools as openai-agents FunctionTools, for real: invoked through their own
``on_invoke_tool``, and run by the SDK's runner with its ``ScriptedModel`` (offline). The model reads
each error's code, the run's output items read back to the registry's responses, and each item's
``custom_data`` is the response."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext
from interop_cases import adapted_registry

from toolresponse.interop import as_openai_agents_tools, from_openai_responses

# (tool, arguments, call id, code, what the model text begins with)
CALLS = [
    ("add", '{"a": 2, "b": 3}', "call_1", None, "5"),
    ("read_file", '{"path": "x.py"}', "call_2", "NOT_FOUND", "ERROR NOT_FOUND: x.py does not exist"),
    ("add", '{"a": "two"}', "call_3", "INVALID_PARAM", "ERROR INVALID_PARAM: "),
    ("add", "{not json", "call_4", "INVALID_PARAM", "ERROR INVALID_PARAM: "),
]


def _tools(**options: Any) -> dict[str, FunctionTool]:
    tools = as_openai_agents_tools(adapted_registry(), **options)
    return {tool.name: tool for tool in tools if isinstance(tool, FunctionTool)}


async def _invoked(tool: FunctionTool, context: ToolContext[None], arguments: str) -> str:
    output = await tool.on_invoke_tool(context, arguments)
    assert isinstance(output, str)
    return output


@pytest.mark.parametrize(("name", "arguments", "call_id", "code", "shown"), CALLS)
def test_on_invoke_tool_answers_the_responses_output(
    name: str, arguments: str, call_id: str, code: str | None, shown: str
) -> None:
    """The FunctionTool's own on_invoke_tool answers the model text and the trailer: as a Responses
    item it reads back to the registry's response, with its code and call id."""
    tool = _tools()[name]
    context = ToolContext(context=None, tool_name=name, tool_call_id=call_id, tool_arguments=arguments)
    output = asyncio.run(_invoked(tool, context, arguments))
    assert output.startswith(shown)
    response = from_openai_responses({"type": "function_call_output", "call_id": call_id, "output": output})
    assert code == (response.code.value if response.code else None)
    assert call_id == (response.context or {})["call_id"]
    assert name == (response.context or {})["tool_name"]


def test_the_registry_s_schema_is_given_as_it_is() -> None:
    """params_json_schema is the registry's schema, not made strict."""
    registry = adapted_registry()
    tools = [tool for tool in as_openai_agents_tools(registry) if isinstance(tool, FunctionTool)]
    assert [spec.parameters for spec in registry.list_tools()] == [tool.params_json_schema for tool in tools]
    assert [False] * len(tools) == [tool.strict_json_schema for tool in tools]


@pytest.mark.parametrize("carry", [True, False])
def test_a_runner_runs_registry_tools(carry: bool) -> None:
    """Runner.run with the SDK's ScriptedModel: the model's next input holds each code in its text;
    the run's input list reads back to each response (whole with the trailer, its status and code
    without it), and each output item's custom_data is that response."""
    model = ScriptedModel(
        [
            [function_call(name, arguments, call_id=call_id) for name, arguments, call_id, *_ in CALLS],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="assistant", model=model, tools=list(_tools(carry=carry).values()))
    result = asyncio.run(Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))
    model.assert_complete()
    sent = [dict(item) for item in model.calls[1].input if item.get("type") == "function_call_output"]
    logged: list[dict[str, Any]] = [
        dict(item) for item in result.to_input_list() if item.get("type") == "function_call_output"
    ]
    custom = [item.custom_data for item in result.new_items if isinstance(item, ToolCallOutputItem)]
    ids = [call[2] for call in CALLS]
    assert ids == [item["call_id"] for item in sent] == [item["call_id"] for item in logged]
    for (name, _, call_id, code, shown), item, data in zip(CALLS, logged, custom, strict=True):
        assert item["output"].startswith(shown)
        assert ("<toolresponse>" in item["output"]) is carry
        response = from_openai_responses(item)
        assert code == (response.code.value if response.code else None)
        assert response.to_dict() == data
        if carry:
            assert {"call_id": call_id, "tool_name": name} == {
                key: (response.context or {})[key] for key in ("call_id", "tool_name")
            }
    assert "done" == result.final_output
