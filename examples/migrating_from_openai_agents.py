"""From hand-written openai-agents FunctionTools: registry tools run by the Agents SDK's runner.

Needs openai-agents (``pip install openai-agents``). Run it:
``python examples/migrating_from_openai_agents.py`` (docs/migrating.md walks through it). The model
is the SDK's ``ScriptedModel`` and tracing is off, so nothing leaves the machine.
"""

from __future__ import annotations

import asyncio

from agents import Agent, RunConfig, Runner
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call

from toolresponse import ToolRegistry, ToolResponse
from toolresponse.interop import as_openai_agents_tools, from_openai_responses

registry = ToolRegistry()
CITIES = ("Paris", "Atlantis")


@registry.tool
def lookup(city: str) -> ToolResponse:
    """Look up a city's population."""
    known = {"Paris": 2_100_000}
    if city not in known:
        return ToolResponse.error("NOT_FOUND", f"No data for {city}.", details={"city": city})
    return ToolResponse.success(f"{city}: {known[city]:,} people.", data={"population": known[city]})


async def main() -> None:
    model = ScriptedModel(
        [
            [function_call("lookup", {"city": city}, call_id=f"call_{city}") for city in CITIES],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="assistant", model=model, tools=as_openai_agents_tools(registry))
    result = await Runner.run(agent, "How many people?", run_config=RunConfig(tracing_disabled=True))

    for item in result.new_items:
        if isinstance(item, ToolCallOutputItem):  # custom_data: the response, never sent to the model
            print(str(item.output).splitlines()[0], "->", item.custom_data)
    outputs = [item for item in result.to_input_list() if item.get("type") == "function_call_output"]
    responses = [from_openai_responses(item) for item in outputs]  # the log reads back exactly
    assert [None, "NOT_FOUND"] == [response.code and response.code.value for response in responses]


if __name__ == "__main__":
    asyncio.run(main())
