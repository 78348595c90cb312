"""The dialect table: every format a tool result can be converted from and to, by name.

One row per dialect: the module that maps it (imported on first use), the
names of its ``to_`` and ``from_`` functions and of its record shape (a JSON
Schema 2020-12 dict), and optionally the name of an unchecked mapping of a
record already known to have its shape into the ToolResponse wire object (the
fast path of ``validate --from``; without it, ``from_`` builds the response).
The CLI (``convert``, ``validate --from``) and the agent find dialects here;
loading the table loads none of the dialects' modules (nor the response).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._response import ToolResponse
    from ._shape import Shape

__all__ = ["DIALECTS", "Dialect", "dialect", "from_toolresponse", "to_toolresponse"]


def to_toolresponse(response: ToolResponse) -> dict[str, Any]:
    """The response itself, as its wire object."""
    return response.to_dict()


def from_toolresponse(record: Any) -> ToolResponse:
    """The response the wire object ``record`` is (``ToolResponse.from_dict``); a record that is
    none raises ``DialectError`` naming the dialect ``toolresponse``, as every ``from_`` does."""
    # The table itself loads no response: `validate` lists it.
    from .._errors import DialectError, ResponseValidationError
    from .._response import ToolResponse

    try:
        return ToolResponse.from_dict(record)
    except ResponseValidationError as error:  # a value that is not JSON (JsonValueError) too
        raise DialectError("toolresponse", error.errors) from None


def _same(record: Any) -> Any:
    return record


@dataclass(frozen=True)
class Dialect:
    """One row of the table; its functions and shape are loaded from ``module`` when first used."""

    name: str
    module: str
    to_name: str
    from_name: str
    shape_name: str | None
    """The record shape's name in ``module``; None: the ToolResponse schema itself."""
    wire_name: str | None = None
    description: str = ""
    call_id: str | None = None
    """The record's member (and ``to_``'s keyword) holding the id of the tool call it answers, for a
    dialect whose records need one: ``to_`` refuses a response without ``context.call_id`` unless
    it is given there."""
    tool_name: str | None = None
    """The record's member (and ``to_``'s keyword) naming the tool, for a dialect whose records need
    one: ``to_`` refuses a response without ``context.tool_name`` unless it is given there."""

    def _attribute(self, name: str) -> Any:
        return getattr(importlib.import_module(self.module), name)

    @cached_property
    def to(self) -> Callable[..., Any]:
        """``to_<dialect>(response, ...)``: the record of a response."""
        function: Callable[..., Any] = self._attribute(self.to_name)
        return function

    @cached_property
    def from_(self) -> Callable[[Any], ToolResponse]:
        """``from_<dialect>(record)``: the response of a record; raises ``DialectError``."""
        function: Callable[[Any], ToolResponse] = self._attribute(self.from_name)
        return function

    @cached_property
    def shape(self) -> Shape:
        """The record shape, compiled on first check."""
        from ..validation import bundled_schema
        from ._shape import Shape

        schema = bundled_schema() if self.shape_name is None else self._attribute(self.shape_name)
        return Shape(self.name, schema)

    @cached_property
    def wire(self) -> Callable[[Any], Any]:
        """A record known to have the shape, as the ToolResponse wire object it maps to."""
        if self.shape_name is None:
            return _same
        if self.wire_name is not None:
            function: Callable[[Any], Any] = self._attribute(self.wire_name)
            return function
        build = self.from_
        return lambda record: build(record).to_dict()


_INTEROP = "toolresponse.interop."

DIALECTS: Mapping[str, Dialect] = {
    row.name: row
    for row in (
        Dialect(
            "toolresponse",
            _INTEROP + "_dialects",
            "to_toolresponse",
            "from_toolresponse",
            None,
            description="ToolResponse v1 itself",
        ),
        Dialect(
            "mcp",
            _INTEROP + "_mcp",
            "to_mcp",
            "from_mcp",
            "MCP_RESULT_SHAPE",
            "wire_from_mcp",
            description="MCP CallToolResult",
        ),
        Dialect(
            "openai-chat",
            _INTEROP + "_openai",
            "to_openai_chat",
            "from_openai_chat",
            "OPENAI_CHAT_SHAPE",
            "wire_from_openai_chat",
            description="OpenAI Chat Completions tool message",
            call_id="tool_call_id",
        ),
        Dialect(
            "openai-responses",
            _INTEROP + "_openai",
            "to_openai_responses",
            "from_openai_responses",
            "OPENAI_RESPONSES_SHAPE",
            "wire_from_openai_responses",
            description="OpenAI Responses API function_call_output item",
            call_id="call_id",
        ),
        Dialect(
            "anthropic",
            _INTEROP + "_anthropic",
            "to_anthropic",
            "from_anthropic",
            "ANTHROPIC_SHAPE",
            "wire_from_anthropic",
            description="Anthropic tool_result block",
            call_id="tool_use_id",
        ),
        Dialect(
            "langchain",
            _INTEROP + "_langchain",
            "to_langchain",
            "from_langchain",
            "LANGCHAIN_SHAPE",
            "wire_from_langchain",
            description="LangChain ToolMessage (its fields)",
        ),
        Dialect(
            "langchain-dict",
            _INTEROP + "_langchain",
            "to_langchain_dict",
            "from_langchain_dict",
            "LANGCHAIN_DICT_SHAPE",
            "wire_from_langchain_dict",
            description="LangChain ToolMessage as messages_to_dict saves it",
        ),
        Dialect(
            "bedrock",
            _INTEROP + "_bedrock",
            "to_bedrock",
            "from_bedrock",
            "BEDROCK_SHAPE",
            "wire_from_bedrock",
            description="AWS Bedrock Converse toolResult block",
            call_id="toolUseId",
        ),
        Dialect(
            "gemini",
            _INTEROP + "_gemini",
            "to_gemini",
            "from_gemini",
            "GEMINI_SHAPE",
            "wire_from_gemini",
            description="Google Gemini FunctionResponse",
            tool_name="name",
        ),
        Dialect(
            "gemini-interactions",
            _INTEROP + "_gemini",
            "to_gemini_interactions",
            "from_gemini_interactions",
            "GEMINI_INTERACTIONS_SHAPE",
            "wire_from_gemini_interactions",
            description="Google Gemini Interactions API function_result step",
            call_id="call_id",
        ),
        Dialect(
            "vercel",
            _INTEROP + "_vercel",
            "to_vercel",
            "from_vercel",
            "VERCEL_SHAPE",
            "wire_from_vercel",
            description="Vercel AI SDK tool-result (or tool-error) part",
            call_id="toolCallId",
            tool_name="toolName",
        ),
        Dialect(
            "helloagents",
            _INTEROP + "_helloagents",
            "to_helloagents",
            "from_helloagents",
            "HELLOAGENTS_SHAPE",
            "wire_from_helloagents",
            description="HelloAgents 1.0 / 1.0.1 ToolResponse dict",
        ),
        Dialect(
            "pydantic-ai",
            _INTEROP + "_pydantic_ai",
            "to_pydantic_ai",
            "from_pydantic_ai",
            "PYDANTIC_AI_SHAPE",
            "wire_from_pydantic_ai",
            description="pydantic-ai ToolReturnPart (or a stored RetryPromptPart)",
            call_id="tool_call_id",
            tool_name="tool_name",
        ),
        Dialect(
            "llamaindex",
            _INTEROP + "_llamaindex",
            "to_llamaindex",
            "from_llamaindex",
            "LLAMAINDEX_SHAPE",
            "wire_from_llamaindex",
            description="LlamaIndex ToolOutput",
            tool_name="tool_name",
        ),
        Dialect(
            "autogen",
            _INTEROP + "_autogen",
            "to_autogen",
            "from_autogen",
            "AUTOGEN_SHAPE",
            "wire_from_autogen",
            description="AutoGen FunctionExecutionResult",
            tool_name="name",
        ),
    )
}
"""Every dialect by name, in the order ``--help`` lists them."""


def dialect(name: str) -> Dialect:
    """The dialect called ``name``; ``ValueError`` listing the names for any other."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise ValueError(f"unknown dialect {name!r}: use one of {', '.join(DIALECTS)}") from None
