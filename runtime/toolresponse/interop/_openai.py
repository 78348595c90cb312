"""OpenAI: the Chat Completions tool message and the Responses API ``function_call_output`` item.

Chat Completions::

    {"role": "tool", "tool_call_id": "call_1", "content": "..."}     content: text, or text parts

Responses API::

    {"type": "function_call_output", "call_id": "call_1", "output": "..."}
                                      output: text, or input_text / input_image / input_file parts

Neither has an error flag, an error code, a partial state or room for data,
and nothing else reaches the model (no side channel). ``to_`` writes the model
text (``model_text``; or the caller's ``text``, with ``carry=False``) and, unless
``carry=False``, the whole response as a one-line trailer (see ``_carry``);
``from_`` gives back exactly that response when its trailer is bound to the
record's call id (its ``context.call_id``), and refuses the record with
``DialectError`` at ``/content`` (``/output``) when the text before such a trailer
is not the response's model text (which states its status and code: OpenAI's only
flag). Any other record (written by another framework, or ending in a
line that only looks like a trailer) is read as its text, with the status and
code its words say (``_text``: a stated ``ERROR NOT_FOUND: ...`` or
``[NOT_FOUND]: ...``, a text that opens as failures do, ``PARTIAL: ...``;
anything else is a success) and ``context.call_id`` from the call id; Responses
parts that are not text (images, files) are kept in ``data.parts``. The Responses
item's ``status`` (in_progress, completed, incomplete) is the item's lifecycle,
not the call's outcome: it is neither written nor read as one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import CALL_ID, call_id_or_context, carried, carried_response, shown_text, text_parts
from ._shape import Shape, record_schema, text_or_blocks
from ._text import inferred

__all__ = [
    "OPENAI_CHAT_SHAPE",
    "OPENAI_RESPONSES_SHAPE",
    "from_openai_chat",
    "from_openai_responses",
    "to_openai_chat",
    "to_openai_responses",
    "wire_from_openai_chat",
    "wire_from_openai_responses",
]

_TEXT_PART = {
    "type": "object",
    "required": ["type", "text"],
    "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
    "additionalProperties": False,
}

OPENAI_CHAT_SHAPE: dict[str, Any] = record_schema(
    "OpenAI Chat Completions tool message",
    ["role", "tool_call_id", "content"],
    {
        "role": {"const": "tool"},
        "tool_call_id": CALL_ID,
        "content": {"anyOf": [{"type": "string"}, {"type": "array", "items": _TEXT_PART}]},
        "name": {"type": "string"},
    },
)
"""One Chat Completions tool message (``ChatCompletionToolMessageParam``)."""

OPENAI_RESPONSES_SHAPE: dict[str, Any] = record_schema(
    "OpenAI Responses API function_call_output item",
    ["type", "call_id", "output"],
    {
        "type": {"const": "function_call_output"},
        "call_id": CALL_ID,
        "output": text_or_blocks({"enum": ["input_text", "input_image", "input_file"]}, "input_text"),
        "id": {"type": ["string", "null"]},
        "status": {"enum": ["in_progress", "completed", "incomplete", None]},
        "name": {"type": ["string", "null"]},
        "namespace": {"type": ["string", "null"]},
        "caller": {"type": ["object", "null"]},
    },
)
"""One Responses API ``function_call_output`` input item (``FunctionCallOutput``)."""

CHAT = Shape("openai-chat", OPENAI_CHAT_SHAPE)
RESPONSES = Shape("openai-responses", OPENAI_RESPONSES_SHAPE)


def _content(response: ToolResponse, call_id: str, text: str | None, carry: bool) -> str:
    return carried(shown_text(response, text, carry=carry), response if carry else None, call_id=call_id)


def to_openai_chat(
    response: ToolResponse, *, tool_call_id: str | None = None, text: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The Chat Completions tool message of ``response``.

    ``tool_call_id`` defaults to ``context.call_id``; without either, ``DialectError``;
    ``text`` is what the model reads (default ``model_text(response)``; given, it needs
    ``carry=False``, else ``ValueError``); with ``carry`` (the default) the whole response
    follows as a trailer line, so that ``from_openai_chat`` gives it back exactly (its
    ``context.call_id`` the message's ``tool_call_id``).
    """
    call_id = call_id_or_context(tool_call_id, response, dialect="openai-chat", member="tool_call_id")
    return {"role": "tool", "tool_call_id": call_id, "content": _content(response, call_id, text, carry)}


def to_openai_responses(
    response: ToolResponse, *, call_id: str | None = None, text: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The Responses API ``function_call_output`` item of ``response`` (as ``to_openai_chat``)."""
    call_id = call_id_or_context(call_id, response, dialect="openai-responses", member="call_id")
    return {
        "type": "function_call_output",
        "call_id": call_id,
        "output": _content(response, call_id, text, carry),
    }


def _from_text(
    dialect: str, content: str, call_id: str, text_at: str, parts: list[Any] | None = None
) -> dict[str, Any]:
    wire = (
        None if parts else carried_response(dialect, [content], call_id=call_id, flag=None, text_at=text_at)
    )
    if wire is not None:
        return wire
    result = inferred(content, is_error=None, context={"call_id": call_id} if call_id else None)
    if parts:
        result["data"] = {"parts": parts}
    return result


def wire_from_openai_chat(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a tool message already known to have its shape (unchecked)."""
    content = record["content"]
    if not isinstance(content, str):
        content = "".join(part["text"] for part in content)
    return _from_text("openai-chat", content, record["tool_call_id"], "/content")


def wire_from_openai_responses(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``function_call_output`` known to have its shape (unchecked)."""
    output = record["output"]
    if isinstance(output, str):
        return _from_text("openai-responses", output, record["call_id"], "/output")
    texts, others = text_parts(output, "input_text")
    return _from_text("openai-responses", "".join(texts), record["call_id"], "/output", others)


def from_openai_chat(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a Chat Completions tool message holds (see the module docstring).

    Raises ``DialectError("openai-chat", ...)`` for a record that is not a tool
    message, and ``ResponseValidationError`` when its trailer is not a valid response."""
    return ToolResponse.from_dict(wire_from_openai_chat(CHAT.checked(record)))


def from_openai_responses(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a Responses API ``function_call_output`` item holds (see ``from_openai_chat``)."""
    return ToolResponse.from_dict(wire_from_openai_responses(RESPONSES.checked(record)))
