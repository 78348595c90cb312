"""Anthropic: the ``tool_result`` content block of a user message.

::

    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
     "content": [{"type": "text", "text": "..."}]}          content: text, or blocks

``is_error`` says error or not; there is no code, no partial state and no room
for data. ``to_anthropic`` writes a text block with the model text and, unless
``carry=False``, a second text block with the whole response as a trailer (see
``_carry``), which ``from_anthropic`` gives back exactly; a trailer whose status
contradicts ``is_error`` (absent: false) is refused with ``DialectError`` at
``/is_error``, never believed over the flag. A block without one
(written by another framework) is read as its text blocks joined, an error when
``is_error`` is true (coded as every dialect codes an error's text: ``_text``),
else a success (or partial, by a ``PARTIAL:`` prefix);
blocks that are not text (image, document, search_result ...) are kept in
``data.blocks`` and the id in ``context.call_id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import (
    CALL_ID,
    agreeing,
    blocks_wire,
    call_id_or_context,
    carried,
    record_context,
    text_parts,
    trailer_of,
)
from ._shape import Shape, record_schema, text_or_blocks
from ._text import model_text

__all__ = ["ANTHROPIC_SHAPE", "from_anthropic", "to_anthropic", "wire_from_anthropic"]

ANTHROPIC_SHAPE: dict[str, Any] = record_schema(
    "Anthropic tool_result content block",
    ["type", "tool_use_id"],
    {
        "type": {"const": "tool_result"},
        "tool_use_id": CALL_ID,
        "content": text_or_blocks({"type": "string"}, "text"),
        "is_error": {"type": "boolean"},
        "cache_control": {"type": ["object", "null"]},
        "toolset_name": {"type": ["string", "null"]},
    },
)
"""One ``tool_result`` block (``ToolResultBlockParam``)."""

SHAPE = Shape("anthropic", ANTHROPIC_SHAPE)


def to_anthropic(
    response: ToolResponse, *, tool_use_id: str | None = None, text: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The ``tool_result`` block of ``response``; ``is_error`` is true exactly for an error.

    ``tool_use_id`` defaults to ``context.call_id``; without either, ``DialectError``;
    ``text`` is what the model reads (default ``model_text(response)``); with
    ``carry`` the whole response follows in a second text block.
    """
    blocks = [{"type": "text", "text": model_text(response) if text is None else text}]
    if carry:
        blocks.append({"type": "text", "text": carried("", response)})
    return {
        "type": "tool_result",
        "tool_use_id": call_id_or_context(tool_use_id, response, dialect="anthropic", member="tool_use_id"),
        "content": blocks,
        "is_error": response.is_error,
    }


def wire_from_anthropic(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``tool_result`` known to have its shape (unchecked)."""
    content = record.get("content", "")
    texts, others = ([content], []) if isinstance(content, str) else text_parts(content, "text")
    trailer = trailer_of(texts[-1]) if texts else None
    is_error = record.get("is_error", False)
    if trailer is not None:
        flag = f"is_error is {'true' if is_error else 'false'}"
        return agreeing("anthropic", trailer, is_error=is_error, flag=flag, carrier="its trailer")
    return blocks_wire(texts, others, is_error=is_error, context=record_context(record["tool_use_id"]))


def from_anthropic(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a ``tool_result`` block holds (see the module docstring).

    Raises ``DialectError("anthropic", ...)`` for a record that is not a
    ``tool_result`` block, and ``ResponseValidationError`` when its trailer is
    not a valid response."""
    return ToolResponse.from_dict(wire_from_anthropic(SHAPE.checked(record)))
