"""A registry's tools offered to another framework (LangChain, pydantic-ai, openai-agents) are the
tools the caller may see, as on every other face, and each call runs as that caller."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from agents import FunctionTool
from agents.tool_context import ToolContext
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolresponse import AccessControl, DenyList, ReadOnly, ToolRegistry
from toolresponse.interop import as_langchain_tools, as_openai_agents_tools, as_pydantic_ai_tools
from toolresponse.tools._policy import AccessRequest


def _guarded(seen: list[str]) -> ToolRegistry:
    """A registry whose policies hide ``secret_launch`` from the local caller (not from "ops") and
    every writing tool from everyone; each call's caller is added to ``seen``."""

    def audit(request: AccessRequest) -> None:
        seen.append(request.caller)

    registry = ToolRegistry(access=AccessControl(DenyList("secret_*", callers="local"), ReadOnly(), audit))

    @registry.tool
    def secret_launch(code: int, target: str) -> str:
        """Launch at the target."""
        return f"launched at {target}"

    @registry.tool(writes=True)
    def write_note(text: str) -> str:
        """Write a note."""
        return text

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two whole numbers."""
        return a + b

    return registry


def _described(tool: Any) -> tuple[str, str]:
    return tool.name, tool.description


ADAPTERS = [
    pytest.param(as_langchain_tools, id="langchain"),
    pytest.param(as_pydantic_ai_tools, id="pydantic-ai"),
    pytest.param(as_openai_agents_tools, id="openai-agents"),
]


@pytest.mark.parametrize("adapt", ADAPTERS)
def test_only_the_tools_the_caller_may_see_are_offered(adapt: Callable[..., list[Any]]) -> None:
    """A tool the policies hide from the caller (the agent's local caller by default) is not offered,
    nor its description or schema; another caller is offered the tools it may see."""
    registry = _guarded([])
    assert [("add", "Add two whole numbers.")] == [_described(tool) for tool in adapt(registry)]
    assert [("secret_launch", "Launch at the target."), ("add", "Add two whole numbers.")] == [
        _described(tool) for tool in adapt(registry, caller="ops")
    ]


@pytest.mark.parametrize("adapt", ADAPTERS)
@pytest.mark.parametrize("caller", [None, ""])
def test_a_caller_that_names_no_one_is_refused_not_offered_every_tool(
    adapt: Callable[..., list[Any]], caller: str | None
) -> None:
    """``caller=None`` (which lists every tool to the registry) or an empty name is a TypeError,
    never an offer of the hidden tools."""
    with pytest.raises(TypeError, match="caller"):
        adapt(_guarded([]), caller=caller)


def test_langchain_tools_run_as_their_caller() -> None:
    """Each call, sync or async, goes through the registry as the caller the tools were made for."""
    seen: list[str] = []
    registry = _guarded(seen)
    [secret, add] = as_langchain_tools(registry, caller="ops")
    assert "launched at moon" == secret.invoke({"code": 1, "target": "moon"})
    assert "5" == asyncio.run(add.ainvoke({"a": 2, "b": 3}))
    [local_add] = as_langchain_tools(registry)
    assert "7" == local_add.invoke({"a": 3, "b": 4})
    assert ["ops", "ops", "local"] == seen


def test_openai_agents_tools_run_as_their_caller() -> None:
    """The FunctionTool's own on_invoke_tool calls the registry as the tools' caller."""
    seen: list[str] = []
    [secret, _] = as_openai_agents_tools(_guarded(seen), caller="ops", carry=False)
    assert isinstance(secret, FunctionTool)
    arguments = '{"code": 1, "target": "moon"}'
    context = ToolContext(context=None, tool_name=secret.name, tool_call_id="c1", tool_arguments=arguments)

    async def invoked() -> Any:
        return await secret.on_invoke_tool(context, arguments)

    assert "launched at moon" == asyncio.run(invoked())
    assert ["ops"] == seen


def test_pydantic_ai_tools_run_as_their_caller() -> None:
    """A pydantic-ai agent's call of an offered tool reaches the registry as the tools' caller."""
    seen: list[str] = []
    answered: list[str] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("secret_launch", {"code": 1, "target": "moon"}, "c1")])
        answered.extend(str(getattr(part, "content", "")) for part in messages[-1].parts)
        return ModelResponse(parts=[TextPart("done")])

    tools = as_pydantic_ai_tools(_guarded(seen), caller="ops")
    Agent(FunctionModel(respond), tools=tools).run_sync("go")
    assert (["ops"], ["launched at moon"]) == (seen, answered)
