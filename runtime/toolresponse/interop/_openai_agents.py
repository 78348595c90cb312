"""Registry tools as OpenAI Agents SDK (``openai-agents``) ``FunctionTool``s.

The SDK gives a tool's result no status and no code: the model gets the ``output`` of a Responses
``function_call_output`` item, a string. So each tool answers exactly the ``output`` that the
``openai-responses`` dialect writes for the registry's response (``to_openai_responses``): the model
text (``ERROR CODE: message`` for an error) and, unless ``carry=False``, the whole response as a
trailer line; a run's ``to_input_list()`` is then a log that ``from_openai_responses`` (and
``toolresponse convert --from openai-responses``) reads back. The response also rides where the
SDK keeps data of its own that the model never sees: the output item's ``custom_data``
(``ToolCallOutputItem.custom_data`` in ``result.new_items``) is the response's wire object, read
back from the output by that same dialect (without the trailer: the status and code its text
states).

openai-agents is imported only by ``as_openai_agents_tools``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._openai import to_openai_responses, wire_from_openai_responses

if TYPE_CHECKING:
    from agents import FunctionTool, Tool
    from agents.tool import FunctionToolCustomDataContext
    from agents.tool_context import ToolContext

    from ..tools import ToolRegistry

__all__ = ["as_openai_agents_tools"]


def _custom_data(context: FunctionToolCustomDataContext) -> dict[str, Any] | None:
    """The response of the output the tool answered (None when something replaced it)."""
    output = context.output
    if not isinstance(output, str):
        return None
    record = {"type": "function_call_output", "call_id": context.tool_context.tool_call_id, "output": output}
    return wire_from_openai_responses(record)


def as_openai_agents_tools(registry: ToolRegistry, *, carry: bool = True) -> list[Tool]:
    """One openai-agents ``FunctionTool`` per tool of ``registry``, in its order (needs openai-agents).

    Each tool's ``params_json_schema`` is the registry's JSON Schema as it is
    (``strict_json_schema=False``: strict mode would rewrite it, every property required), and the
    registry checks the arguments; a call runs through ``registry.aexecute`` with the tool call's
    id as ``call_id`` and answers the output and ``custom_data`` of the module docstring. The
    registry answers every call, so the SDK's failure handler (which turns an exception into one
    fixed sentence) never runs.
    """
    try:
        from agents import FunctionTool
    except ImportError as error:
        raise ImportError("as_openai_agents_tools needs openai-agents: pip install openai-agents") from error

    def tool_of(name: str, description: str, parameters: dict[str, Any]) -> FunctionTool:
        async def invoke(context: ToolContext[Any], arguments: str) -> str:
            call_id = context.tool_call_id
            response = await registry.aexecute(name, arguments or None, call_id=call_id)
            output: str = to_openai_responses(response, call_id=call_id, carry=carry)["output"]
            return output

        return FunctionTool(
            name=name,
            description=description,
            params_json_schema=parameters,
            on_invoke_tool=invoke,
            strict_json_schema=False,
            custom_data_extractor=_custom_data,
        )

    return [
        tool_of(spec.name, spec.description or spec.name, spec.parameters) for spec in registry.list_tools()
    ]
