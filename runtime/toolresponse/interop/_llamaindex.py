"""LlamaIndex: the ``ToolOutput`` a tool call gives (``llama_index.core.tools``).

::

    {"blocks": [{"block_type": "text", "text": "{'temp_c': 21.5}"}], "tool_name": "get_weather",
     "raw_input": {"args": [], "kwargs": {"city": "Paris"}}, "raw_output": {"temp_c": 21.5},
     "is_error": false}

(``model_dump(mode="json")``; llama-index-core 0.12.0 wrote a ``content`` string where ``blocks``
are.) ``is_error`` says error or not; there is no code and no partial state, but
``raw_output`` holds any value beside the text the model reads:

- ``to_llamaindex(response)``: one text block with the model text, ``raw_output`` the whole
  response, ``raw_input`` ``context.params_input`` (when it is an object), ``tool_name``
  ``context.tool_name`` (or the ``tool_name`` given; without either, ``DialectError``).
  ``from_llamaindex`` gives that response back exactly, when its status agrees with
  ``is_error``; one that contradicts it is refused with ``DialectError`` at ``/is_error``.
- A record without it (written by LlamaIndex) is read as its text blocks joined by line breaks,
  an error when ``is_error`` is true (coded as every dialect codes an error's text: ``_text``);
  ``raw_output`` is kept in ``data.raw_output``, other blocks in ``data.blocks``, ``raw_input``
  in ``context.params_input``. A successful ``FunctionTool``'s text is ``str()`` of what it
  returned, a Python repr for a dict (``{'temp_c': 21.5}``): it stays text, never parsed (the
  value itself is ``raw_output``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import TOOL_NAME, agreeing, blocks_wire, is_response_wire, record_context, tool_name_or_context
from ._shape import Shape, dumped, record_schema
from ._text import model_text

__all__ = ["LLAMAINDEX_SHAPE", "from_llamaindex", "to_llamaindex", "wire_from_llamaindex"]

LLAMAINDEX_SHAPE: dict[str, Any] = record_schema(
    "LlamaIndex ToolOutput",
    ["tool_name"],
    {
        "blocks": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["block_type"],
                "properties": {"block_type": {"type": "string"}},
                "if": {"properties": {"block_type": {"const": "text"}}},
                "then": {"required": ["text"], "properties": {"text": {"type": "string"}}},
            },
        },
        "content": {"type": "string"},
        "tool_name": TOOL_NAME,
        "raw_input": {"type": "object"},
        "raw_output": {},
        "is_error": {"type": "boolean"},
    },
    oneOf=[{"required": ["blocks"]}, {"required": ["content"]}],
)
"""One ``ToolOutput`` (its ``blocks``, or the ``content`` of llama-index-core 0.12.0)."""

SHAPE = Shape("llamaindex", LLAMAINDEX_SHAPE)


def to_llamaindex(response: ToolResponse, *, tool_name: str | None = None) -> dict[str, Any]:
    """The ``ToolOutput`` of ``response``, as ``model_dump(mode="json")`` writes one:
    ``ToolOutput.model_validate`` builds it (see the module docstring)."""
    params = (response.context or {}).get("params_input")
    return {
        "blocks": [{"block_type": "text", "text": model_text(response)}],
        "tool_name": tool_name_or_context(tool_name, response, dialect="llamaindex", member="tool_name"),
        "raw_input": params if isinstance(params, dict) else {},
        "raw_output": response.to_dict(),
        "is_error": response.is_error,
    }


def wire_from_llamaindex(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``ToolOutput`` known to have its shape (unchecked)."""
    is_error, raw_output = record.get("is_error", False), record.get("raw_output")
    if is_response_wire(raw_output):
        flag = f"is_error is {'true' if is_error else 'false'}"
        return dict(
            agreeing("llamaindex", raw_output, is_error=is_error, flag=flag, carrier="its raw_output")
        )
    blocks = record.get("blocks", [])
    texts = [block["text"] for block in blocks if block["block_type"] == "text"]
    others = [block for block in blocks if block["block_type"] != "text"]
    context = record_context(None, record["tool_name"])
    wire = blocks_wire(
        [record["content"]] if "content" in record else texts, others, is_error=is_error, context=context
    )
    if raw_output is not None:
        wire.setdefault("data", {})["raw_output"] = raw_output
    if record.get("raw_input"):
        wire.setdefault("context", {})["params_input"] = record["raw_input"]
    return wire


def from_llamaindex(record: Any) -> ToolResponse:
    """The ToolResponse of a ``ToolOutput``, as its JSON or the object itself (see the module
    docstring).

    Raises ``DialectError("llamaindex", ...)`` for a record that is not a ``ToolOutput``, and
    ``ResponseValidationError`` when its ``raw_output`` is a ToolResponse that is not valid."""
    return ToolResponse.from_dict(wire_from_llamaindex(SHAPE.checked(dumped("llamaindex", record))))
