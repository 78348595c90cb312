"""OpenAI: the Chat Completions tool message and the Responses API ``function_call_output`` item.

Neither has an error flag, a code, a partial state or room for data: ``to_`` writes the model text
and the trailer (``_carry``); other parts are kept in ``data.parts``. The Responses item's
``status`` is its lifecycle, not the call's outcome: neither written nor read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import carried_text, required, text_parts, text_wire
from ._dialects import dialect


def to_openai_chat(
    response: ToolResponse, *, tool_call_id: str | None = None, text: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The Chat Completions tool message of ``response``: ``tool_call_id`` defaults to
    ``context.call_id``, ``text`` (with ``carry=False`` only) to the model text; with ``carry``
    the trailer follows, so that ``from_openai_chat`` gives the response back exactly."""
    call_id = required(response, "call_id", tool_call_id, dialect="openai-chat")
    content = carried_text(response, text, call_id=call_id, carry=carry)
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def to_openai_responses(
    response: ToolResponse, *, call_id: str | None = None, text: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The Responses API ``function_call_output`` item of ``response`` (as ``to_openai_chat``)."""
    call_id = required(response, "call_id", call_id, dialect="openai-responses")
    output = carried_text(response, text, call_id=call_id, carry=carry)
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _from_text(dialect: str, content: Any, text_type: str, call_id: str, text_at: str) -> dict[str, Any]:
    texts, parts = text_parts(content, text_type)
    text = "".join(texts)
    return text_wire(dialect, [text], parts, call_id=call_id, is_error=None, text_at=text_at, kept="parts")


def wire_from_openai_chat(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a tool message already known to have its shape (unchecked)."""
    return _from_text("openai-chat", record["content"], "text", record["tool_call_id"], "/content")


def wire_from_openai_responses(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``function_call_output`` known to have its shape (unchecked)."""
    return _from_text("openai-responses", record["output"], "input_text", record["call_id"], "/output")


def from_openai_chat(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a Chat Completions tool message holds; ``DialectError`` for any other record."""
    return dialect("openai-chat").read(record)


def from_openai_responses(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a Responses API ``function_call_output`` item holds (see ``from_openai_chat``)."""
    return dialect("openai-responses").read(record)
