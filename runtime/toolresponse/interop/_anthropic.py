"""Anthropic: the ``tool_result`` content block of a user message.

``is_error`` is its only flag (no code, no partial state, no room for data), so the response rides
in a second text block as a trailer (``_carry``); a block without one is read from its text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import required, text_parts, text_wire, written
from ._dialects import dialect


def to_anthropic(
    response: ToolResponse, *, tool_use_id: str | None = None, text: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The ``tool_result`` block of ``response``: ``tool_use_id`` defaults to ``context.call_id``,
    ``text`` (with ``carry=False`` only) to the model text; with ``carry`` the trailer follows."""
    call_id = required(response, "call_id", tool_use_id, dialect="anthropic")
    blocks = [
        {"type": "text", "text": part} for part in written(response, text, call_id=call_id, carry=carry)
    ]
    return {"type": "tool_result", "tool_use_id": call_id, "content": blocks, "is_error": response.is_error}


def wire_from_anthropic(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``tool_result`` known to have its shape (unchecked)."""
    texts, others = text_parts(record.get("content", ""), "text")
    is_error, call_id = record.get("is_error", False), record["tool_use_id"]
    return text_wire("anthropic", texts, others, call_id=call_id, is_error=is_error, text_at="/content")


def from_anthropic(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a ``tool_result`` block holds; ``DialectError`` for any other record."""
    return dialect("anthropic").read(record)
