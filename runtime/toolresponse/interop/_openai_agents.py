"""Registry tools as OpenAI Agents SDK (``openai-agents``) ``FunctionTool``s.

The SDK gives a tool's result no status and no code: each tool answers the ``output`` that
``to_openai_responses`` writes (the model text and the trailer), so a run's ``to_input_list()`` is
a log ``from_openai_responses`` reads back; the output item's ``custom_data`` (which the model
never sees) is the response's wire object. openai-agents is imported only by
``as_openai_agents_tools``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tools._policy import LOCAL_CALLER
from ._offered import OfferedTool, library, offered_tools
from ._openai import to_openai_responses, wire_from_openai_responses

if TYPE_CHECKING:
    from agents import FunctionTool, Tool
    from agents.tool import FunctionToolCustomDataContext
    from agents.tool_context import ToolContext

    from ..tools._registry import ToolRegistry


def _custom_data(context: FunctionToolCustomDataContext) -> dict[str, Any] | None:
    """The response of the output the tool answered (None when something replaced it)."""
    output = context.output
    if not isinstance(output, str):
        return None
    record = {"type": "function_call_output", "call_id": context.tool_context.tool_call_id, "output": output}
    return wire_from_openai_responses(record)


def as_openai_agents_tools(
    registry: ToolRegistry, *, caller: str = LOCAL_CALLER, carry: bool = True
) -> list[Tool]:
    """One openai-agents ``FunctionTool`` per tool of ``registry`` that ``caller`` may see, in its
    order (needs openai-agents), its schema the registry's as it is (strict mode would rewrite it);
    a call runs through the registry as ``caller`` with the tool call's id."""
    library("agents", "as_openai_agents_tools", "openai-agents")
    from agents import FunctionTool

    def tool_of(tool: OfferedTool) -> FunctionTool:
        async def invoke(context: ToolContext[Any], arguments: str) -> str:
            call_id = context.tool_call_id
            response = await tool.aexecute(arguments or None, call_id=call_id)
            output: str = to_openai_responses(response, call_id=call_id, carry=carry)["output"]
            return output

        return FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=tool.parameters,
            on_invoke_tool=invoke,
            strict_json_schema=False,
            custom_data_extractor=_custom_data,
        )

    return [tool_of(tool) for tool in offered_tools(registry, caller=caller)]
