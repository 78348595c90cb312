"""Anthropic: the ``tool_result`` content block of a user message.

::

    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
     "content": [{"type": "text", "text": "..."}]}          content: text, or blocks

``is_error`` says error or not; there is no code, no partial state and no room
for data. ``to_anthropic`` writes a text block with the model text and, unless
``carry=False``, a second text block with the whole response as a trailer bound
to the ``tool_use_id`` (see ``_carry``), which ``from_anthropic`` gives back
exactly; a trailer so bound whose status contradicts ``is_error`` (absent:
false) is refused with ``DialectError`` at ``/is_error``, and one that is not
the model text's at ``/content``: never believed over the record. A block
without one (written by another framework, or whose text only ends like a
trailer) is read as its text blocks joined, an error when ``is_error`` is true
(coded as every dialect codes an error's text: ``_text``), else a success (or
partial, by a ``PARTIAL:`` prefix); blocks that are not text (image, document,
search_result ...) are kept in ``data.blocks`` and the id in ``context.call_id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import (
    CALL_ID,
    blocks_wire,
    call_id_or_context,
    carried_response,
    record_context,
    shown_text,
    text_parts,
    trailer,
)
from ._shape import Shape, record_schema, text_or_blocks

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
    ``text`` is what the model reads (default ``model_text(response)``; given, it needs
    ``carry=False``, else ``ValueError``); with ``carry`` the whole response (its
    ``context.call_id`` the ``tool_use_id``) follows in a second text block.
    """
    call_id = call_id_or_context(tool_use_id, response, dialect="anthropic", member="tool_use_id")
    blocks = [{"type": "text", "text": shown_text(response, text, carry=carry)}]
    if carry:
        blocks.append({"type": "text", "text": trailer(response, call_id)})
    return {"type": "tool_result", "tool_use_id": call_id, "content": blocks, "is_error": response.is_error}


def wire_from_anthropic(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``tool_result`` known to have its shape (unchecked)."""
    content = record.get("content", "")
    texts, others = ([content], []) if isinstance(content, str) else text_parts(content, "text")
    is_error = record.get("is_error", False)
    if not others:
        flag = ("is_error", is_error)
        carried = carried_response(
            "anthropic", texts, call_id=record["tool_use_id"], flag=flag, text_at="/content"
        )
        if carried is not None:
            return carried
    return blocks_wire(texts, others, is_error=is_error, context=record_context(record["tool_use_id"]))


def from_anthropic(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a ``tool_result`` block holds (see the module docstring).

    Raises ``DialectError("anthropic", ...)`` for a record that is not a
    ``tool_result`` block, and ``ResponseValidationError`` when its trailer is
    not a valid response."""
    return ToolResponse.from_dict(wire_from_anthropic(SHAPE.checked(record)))
