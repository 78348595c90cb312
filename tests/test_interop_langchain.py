"""Registry tools as LangChain tools, run by a LangGraph tool node: each ToolMessage carries the status
and, as its artifact, the whole response (sync and async)."""

from __future__ import annotations

from typing import Any

import pytest
from interop_cases import adapted_registry
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from toolresponse import ToolRegistry
from toolresponse.interop import as_langchain_tools, from_langchain

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
    result = _graph(adapted_registry()).invoke({"messages": [AIMessage(content="", tool_calls=CALLS)]})
    _check(result["messages"][1:])


@pytest.mark.asyncio
async def test_a_tool_node_run_asynchronously_gets_the_same() -> None:
    """The asynchronous run goes through the registry's aexecute with the same messages."""
    result = await _graph(adapted_registry()).ainvoke({"messages": [AIMessage(content="", tool_calls=CALLS)]})
    _check(result["messages"][1:])


def test_the_tools_describe_the_registry_parameters() -> None:
    """Each LangChain tool has its registry tool's name, description and JSON Schema arguments."""
    registry = adapted_registry()
    tools = as_langchain_tools(registry)
    assert registry.names() == [tool.name for tool in tools]
    assert {"a": {"type": "integer"}, "b": {"type": "integer"}} == tools[0].args
    assert "Add two whole numbers." == tools[0].description


def test_a_tool_called_directly_answers_the_model_text() -> None:
    """Invoked without a tool call id, a tool answers only its content (LangChain's own rule)."""
    assert "5" == as_langchain_tools(adapted_registry())[0].invoke({"a": 2, "b": 3})
