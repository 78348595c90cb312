"""LlamaIndex: the ``ToolOutput`` a tool call gives (``llama_index.core.tools``).

``raw_output`` holds the whole response, ``raw_input`` ``context.params_input``; a foreign
record's ``raw_output`` is kept in ``data.raw_output`` and its Python repr text stays text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import agreeing, blocks_wire, is_response_wire, record_context, required, text_parts
from ._dialects import dialect
from ._shape import dumped
from ._text import model_text


def to_llamaindex(response: ToolResponse, *, tool_name: str | None = None) -> dict[str, Any]:
    """The ``ToolOutput`` of ``response``, as ``model_dump(mode="json")`` writes one:
    ``ToolOutput.model_validate`` builds it (see the module docstring)."""
    params = (response.context or {}).get("params_input")
    return {
        "blocks": [{"block_type": "text", "text": model_text(response)}],
        "tool_name": required(response, "tool_name", tool_name, dialect="llamaindex"),
        "raw_input": params if isinstance(params, dict) else {},
        "raw_output": response.to_dict(),
        "is_error": response.is_error,
    }


def wire_from_llamaindex(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``ToolOutput`` known to have its shape (unchecked)."""
    is_error, raw_output = record.get("is_error", False), record.get("raw_output")
    if is_response_wire(raw_output):
        flag = f"is_error is {'true' if is_error else 'false'}"
        return agreeing("llamaindex", raw_output, is_error=is_error, flag=flag, carrier="its raw_output")
    texts, others = text_parts(record.get("blocks", []), "text", "block_type")
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
    """The ToolResponse of a ``ToolOutput``, its JSON or the object itself; ``DialectError`` for any
    other record."""
    return dialect("llamaindex").read(dumped("llamaindex", record))
