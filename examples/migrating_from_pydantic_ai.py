"""From pydantic-ai: registry tools run by a pydantic-ai agent, and its history read back.

Needs pydantic-ai (``pip install pydantic-ai-slim``). Run it:
``python examples/migrating_from_pydantic_ai.py`` (docs/migrating.md walks through it). The model
is pydantic-ai's ``FunctionModel``, scripted here, so nothing leaves the machine.
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolresponse import ToolRegistry, ToolResponse
from toolresponse.interop import as_pydantic_ai_tools, from_pydantic_ai

registry = ToolRegistry()
CITIES = ("Paris", "Atlantis")


@registry.tool
def lookup(city: str) -> ToolResponse:
    """Look up a city's population."""
    known = {"Paris": 2_100_000}
    if city not in known:
        return ToolResponse.error("NOT_FOUND", f"No data for {city}.", details={"city": city})
    return ToolResponse.success(f"{city}: {known[city]:,} people.", data={"population": known[city]})


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls lookup twice, then reads what came back."""
    if len(messages) == 1:
        calls = [ToolCallPart("lookup", {"city": city}, tool_call_id=f"call_{city}") for city in CITIES]
        return ModelResponse(parts=calls)
    shown = [part.model_response_str() for part in messages[-1].parts if isinstance(part, ToolReturnPart)]
    return ModelResponse(parts=[TextPart(" | ".join(shown))])


def main() -> None:
    result = Agent(FunctionModel(model), tools=as_pydantic_ai_tools(registry)).run_sync("How many people?")
    print("the model read:", result.output)
    assert "ERROR NOT_FOUND: No data for Atlantis." in result.output

    history = ModelMessagesTypeAdapter.dump_python(result.all_messages(), mode="json")
    parts = [part for message in history for part in message["parts"] if part["part_kind"] == "tool-return"]
    for part in parts:
        response = from_pydantic_ai(part)  # a success's metadata is the whole response
        print(part["outcome"], response.code or response.data)
    assert ["success", "failed"] == [part["outcome"] for part in parts]


if __name__ == "__main__":
    main()
