"""The dialect table: every format a tool result can be converted from and to, by name.

One row per dialect: its name, description and the module that maps it (imported on first use,
its functions found by name). The CLI (``convert``, ``validate --from``) and the agent find
dialects here; loading the table loads none of the dialects' modules (nor the response).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .._response import ToolResponse
    from ._shape import Shape


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


RESPONSE = "toolresponse"
"""The dialect whose records are ToolResponses themselves."""


@dataclass(frozen=True)
class Dialect:
    """One row of the table. Its functions are loaded from its module when first used, by their
    names there: ``to_<stem>``, ``from_<stem>`` and ``wire_from_<stem>``, the stem being the
    dialect's name with ``_`` for ``-``; its shape is ``schema/v1/interop/<name>.schema.json`` (MCP's
    ``mcp-call-tool-result.schema.json``, ToolResponse's the v1 schema itself)."""

    name: str
    description: str
    module: str
    call_id: str | None = None
    """The record's member (and ``to_``'s keyword) holding the tool call's id, where it is required."""
    tool_name: str | None = None
    """The record's member (and ``to_``'s keyword) naming the tool, where it is required."""

    def _attribute(self, prefix: str) -> Any:
        return getattr(importlib.import_module(_INTEROP + self.module), prefix + self.name.replace("-", "_"))

    @cached_property
    def to(self) -> Callable[..., Any]:
        """``to_<dialect>(response, ...)``: the record of a response."""
        return cast("Callable[..., Any]", self._attribute("to_"))

    @cached_property
    def from_(self) -> Callable[[Any], ToolResponse]:
        """``from_<dialect>(record)``: the response of a record; raises ``DialectError``."""
        return cast("Callable[[Any], ToolResponse]", self._attribute("from_"))

    @cached_property
    def shape(self) -> Shape:
        """The record shape (the ToolResponse schema for ``toolresponse``), compiled on first check."""
        from toolresponse_generated import interop

        from ..validation import bundled_schema
        from ._shape import Shape

        if self.name == RESPONSE:
            return Shape(self.name, bundled_schema())
        # Generated from schema/v1/interop; MCP's file is named for what it is, a CallToolResult.
        stem = "MCP_RESULT" if self.name == "mcp" else self.name.replace("-", "_").upper()
        return Shape(self.name, getattr(interop, stem + "_SHAPE"))

    def read(self, record: Any) -> ToolResponse:
        """The response of ``record``: its shape checked (else ``DialectError``), then mapped."""
        from .._response import ToolResponse

        return ToolResponse.from_dict(self.wire(self.shape.checked(record)))

    @cached_property
    def wire(self) -> Callable[[Any], Any]:
        """A record known to have the shape, as the ToolResponse wire object it maps to (unchecked)."""
        if self.name == RESPONSE:
            return lambda record: record
        return cast("Callable[[Any], Any]", self._attribute("wire_from_"))


_INTEROP = "toolresponse.interop."
_CHAT = "OpenAI Chat Completions tool message"
_RESPONSES = "OpenAI Responses API function_call_output item"
_INTERACTIONS = "Google Gemini Interactions API function_result step"
_VERCEL = "Vercel AI SDK tool-result (or tool-error) part"
_PYDANTIC_AI = "pydantic-ai ToolReturnPart (or a stored RetryPromptPart)"

DIALECTS: Mapping[str, Dialect] = {
    row.name: row
    for row in (
        Dialect(RESPONSE, "ToolResponse v1 itself", "_dialects"),
        Dialect("mcp", "MCP CallToolResult", "_mcp"),
        Dialect("openai-chat", _CHAT, "_openai", call_id="tool_call_id"),
        Dialect("openai-responses", _RESPONSES, "_openai", call_id="call_id"),
        Dialect("anthropic", "Anthropic tool_result block", "_anthropic", call_id="tool_use_id"),
        Dialect("langchain", "LangChain ToolMessage (its fields)", "_langchain"),
        Dialect("langchain-dict", "LangChain ToolMessage as messages_to_dict saves it", "_langchain"),
        Dialect("bedrock", "AWS Bedrock Converse toolResult block", "_bedrock", call_id="toolUseId"),
        Dialect("gemini", "Google Gemini FunctionResponse", "_gemini", tool_name="name"),
        Dialect("gemini-interactions", _INTERACTIONS, "_gemini", call_id="call_id"),
        Dialect("vercel", _VERCEL, "_vercel", call_id="toolCallId", tool_name="toolName"),
        Dialect("helloagents", "HelloAgents 1.0 / 1.0.1 ToolResponse dict", "_helloagents"),
        Dialect("pydantic-ai", _PYDANTIC_AI, "_pydantic_ai", call_id="tool_call_id", tool_name="tool_name"),
        Dialect("llamaindex", "LlamaIndex ToolOutput", "_llamaindex", tool_name="tool_name"),
        Dialect(
            "autogen", "AutoGen FunctionExecutionResult", "_autogen", call_id="call_id", tool_name="name"
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
