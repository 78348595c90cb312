"""From LangChain tools: registry tools inside a LangGraph graph, and ToolMessages read back.

Needs langchain-core and langgraph (``pip install langchain-core langgraph``). Run it:
``python examples/migrating_from_langchain.py`` (docs/migrating.md walks through it).
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from toolresponse import ToolRegistry, ToolResponse
from toolresponse.interop import as_langchain_tools, from_langchain

registry = ToolRegistry()


@registry.tool
def lookup(city: str) -> ToolResponse:
    """Look up a city's population."""
    known = {"Paris": 2_100_000}
    if city not in known:
        return ToolResponse.error("NOT_FOUND", f"No data for {city}.", details={"city": city})
    return ToolResponse.success(f"{city}: {known[city]:,} people.", data={"population": known[city]})


def main() -> None:
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(as_langchain_tools(registry)))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    calls = [
        {"name": "lookup", "args": {"city": "Paris"}, "id": "call_1"},
        {"name": "lookup", "args": {"city": "Atlantis"}, "id": "call_2"},
    ]
    result = graph.compile().invoke({"messages": [AIMessage(content="", tool_calls=calls)]})
    for message in result["messages"][1:]:
        assert isinstance(message, ToolMessage)
        response = from_langchain(message)  # the artifact is the whole response
        print(message.status, repr(message.content), response.data or response.code)
    statuses = [message.status for message in result["messages"][1:]]
    assert ["success", "error"] == statuses

    # A ToolMessage written by another LangChain tool is read too: status error is an error.
    foreign = from_langchain(ToolMessage(content="Error: timeout", tool_call_id="c9", status="error"))
    print(foreign.to_json())
    assert foreign.is_error


if __name__ == "__main__":
    main()
