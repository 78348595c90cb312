"""Registry tools as LangChain tools, run by a LangGraph tool node: each ToolMessage carries the status
and, as its artifact, the whole response (sync and async)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from toolresponse import AccessControl, AccessRequest, DenyList, ReadOnly, ToolRegistry, ToolResponse
from toolresponse.interop import as_langchain_tools, from_langchain


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two whole numbers."""
        return a + b

    @registry.tool
    def read_file(path: str) -> ToolResponse:
        """Read a file."""
        return ToolResponse.error("NOT_FOUND", f"{path} does not exist", details={"path": path})

    @registry.tool
    def search(query: str) -> ToolResponse:
        """Search the notes."""
        return ToolResponse.partial("First 2 of 9 notes.", data={"returned": 2, "total": 9})

    return registry


CALLS = [
    {"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"},
    {"name": "read_file", "args": {"path": "x.py"}, "id": "c2"},
    {"name": "search", "args": {"query": "q"}, "id": "c3"},
    {"name": "add", "args": {"a": "two"}, "id": "c4"},
]
# (status, content, code) each call's ToolMessage has.
EXPECTED = [
    ("success", "5", None),
    ("error", "ERROR NOT_FOUND: x.py does not exist", "NOT_FOUND"),
    ("success", "PARTIAL: First 2 of 9 notes.", None),
    ("error", None, "INVALID_PARAM"),
]


def _graph(registry: ToolRegistry) -> Any:
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(as_langchain_tools(registry)))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    return graph.compile()


def _check(messages: list[Any]) -> None:
    assert [call["id"] for call in CALLS] == [message.tool_call_id for message in messages]
    for message, (status, content, code) in zip(messages, EXPECTED, strict=True):
        assert isinstance(message, ToolMessage)
        assert status == message.status
        if content is not None:
            assert content == message.content
        response = from_langchain(message)
        assert code == (response.code.value if response.code else None)
        assert response.to_dict() == message.artifact
        assert message.tool_call_id == (response.context or {})["call_id"]


def test_a_tool_node_gets_status_and_artifact() -> None:
    """A LangGraph tool node over the registry's tools answers each call with status and artifact."""
    result = _graph(_registry()).invoke({"messages": [AIMessage(content="", tool_calls=CALLS)]})
    _check(result["messages"][1:])


@pytest.mark.asyncio
async def test_a_tool_node_run_asynchronously_gets_the_same() -> None:
    """The asynchronous run goes through the registry's aexecute with the same messages."""
    result = await _graph(_registry()).ainvoke({"messages": [AIMessage(content="", tool_calls=CALLS)]})
    _check(result["messages"][1:])


def test_the_tools_describe_the_registry_parameters() -> None:
    """Each LangChain tool has its registry tool's name, description and JSON Schema arguments."""
    registry = _registry()
    tools = as_langchain_tools(registry)
    assert registry.names() == [tool.name for tool in tools]
    assert {"a": {"type": "integer"}, "b": {"type": "integer"}} == tools[0].args
    assert "Add two whole numbers." == tools[0].description


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


def test_the_model_is_offered_only_the_tools_the_caller_may_see() -> None:
    """A tool the policies hide from the caller (the agent's local caller by default) is not
    offered, nor its description or schema; another caller gets the tools it may see."""
    registry = _guarded([])
    assert ["add"] == [tool.name for tool in as_langchain_tools(registry)]
    offered = as_langchain_tools(registry, caller="ops")
    assert ["secret_launch", "add"] == [tool.name for tool in offered]
    assert "Launch at the target." == offered[0].description


@pytest.mark.asyncio
async def test_the_tools_run_as_their_caller() -> None:
    """Each call, sync or async, goes through the registry as the caller the tools were made for."""
    seen: list[str] = []
    registry = _guarded(seen)
    [secret, add] = as_langchain_tools(registry, caller="ops")
    assert "launched at moon" == secret.invoke({"code": 1, "target": "moon"})
    assert "5" == await add.ainvoke({"a": 2, "b": 3})
    [local_add] = as_langchain_tools(registry)
    assert "7" == local_add.invoke({"a": 3, "b": 4})
    assert ["ops", "ops", "local"] == seen


def test_a_tool_called_directly_answers_the_model_text() -> None:
    """Invoked without a tool call id, a tool answers only its content (LangChain's own rule)."""
    assert "5" == as_langchain_tools(_registry())[0].invoke({"a": 2, "b": 3})
