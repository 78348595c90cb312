"""AWS Bedrock Converse: the ``toolResult`` content block of a user message.

The whole response rides in a ``json`` block after the model text; a lone foreign ``json`` block
is read by ``_carry.foreign_wire``, other blocks kept in ``data.blocks``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import blocks_wire, foreign_wire, is_response_wire, record_context, required, slot_wire
from ._dialects import dialect
from ._text import model_text


def to_bedrock(
    response: ToolResponse, *, toolUseId: str | None = None, text: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The ``toolResult`` block of ``response``: ``toolUseId`` defaults to ``context.call_id``,
    ``text`` to the model text; with ``carry`` the whole response follows in a ``json`` block."""
    content: list[dict[str, Any]] = [{"text": model_text(response) if text is None else text}]
    if carry:
        content.append({"json": response.to_dict()})
    return {
        "toolUseId": required(response, "call_id", toolUseId, dialect="bedrock"),
        "content": content,
        "status": "error" if response.is_error else "success",
    }


def wire_from_bedrock(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``toolResult`` known to have its shape (unchecked)."""
    status = record.get("status", "success")
    is_error, blocks = status == "error", record["content"]
    context = record_context(record["toolUseId"])
    ours = [block["json"] for block in blocks if is_response_wire(block.get("json"))]
    if ours:
        flag = f"status is {status!r}"
        return slot_wire(
            "bedrock", ours[-1], is_error=is_error, flag=flag, carrier="its json block", context=None
        )
    if len(blocks) == 1 and "json" in blocks[0]:
        return foreign_wire(blocks[0]["json"], is_error=is_error, context=context)
    texts = [block["text"] for block in blocks if "text" in block]
    others = [block for block in blocks if "text" not in block]
    return blocks_wire(texts, others, is_error=is_error, context=context)


def from_bedrock(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a ``toolResult`` block holds; ``DialectError`` for any other record."""
    return dialect("bedrock").read(record)
