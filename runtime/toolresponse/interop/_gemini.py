"""Google Gemini: the ``FunctionResponse`` (generateContent) and the Interactions API ``function_result``.

The whole response rides in ``response.output`` (``response.error`` for an error) or ``result``
(``carry=False``: the model text); a foreign value is read by ``_carry.foreign_wire``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import (
    blocks_wire,
    context_value,
    is_response_wire,
    record_context,
    required,
    slot_value,
    slot_wire,
    text_parts,
)
from ._dialects import dialect


def to_gemini(
    response: ToolResponse, *, name: str | None = None, id: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The ``FunctionResponse`` of ``response``: ``response.error`` for an error, else ``output``,
    holding the whole response (``carry=False``: the model text); ``name`` (required) and ``id``
    (left out without one) default to the response's context."""
    record: dict[str, Any] = {}
    call_id = context_value(response, "call_id") if id is None else id
    if call_id:
        record["id"] = call_id
    record["name"] = required(response, "tool_name", name, dialect="gemini")
    record["response"] = {"error" if response.is_error else "output": slot_value(response, carry)}
    return record


def to_gemini_interactions(
    response: ToolResponse, *, call_id: str | None = None, name: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The Interactions ``function_result`` of ``response``; ``call_id`` (required) and ``name``
    (left out without one) default to the response's context; ``carry`` as ``to_gemini``."""
    record: dict[str, Any] = {
        "type": "function_result",
        "call_id": required(response, "call_id", call_id, dialect="gemini-interactions"),
    }
    tool = context_value(response, "tool_name") if name is None else name
    if tool:
        record["name"] = tool
    record["result"] = slot_value(response, carry)
    record["is_error"] = response.is_error
    return record


def wire_from_gemini(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``FunctionResponse`` known to have its shape (unchecked)."""
    answer = record["response"]
    is_error = "error" in answer
    key = "error" if is_error else "output" if "output" in answer else None
    value = answer[key] if key is not None and len(answer) == 1 else answer
    flag = f"response/error is {'present' if is_error else 'absent'}"
    carrier = "its response" if value is answer else f"response.{key}"
    context = record_context(record.get("id"), record["name"])
    wire = slot_wire("gemini", value, is_error=is_error, flag=flag, carrier=carrier, context=context)
    parts = record.get("parts")
    if parts and not is_response_wire(value):
        wire["data"] = {**wire.get("data", {}), "parts": parts}
    return wire


def wire_from_gemini_interactions(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``function_result`` known to have its shape (unchecked)."""
    result, is_error = record["result"], record.get("is_error") is True
    context = record_context(record["call_id"], record.get("name"))
    if isinstance(result, list):
        return blocks_wire(*text_parts(result, "text"), is_error=is_error, context=context)
    flag = f"is_error is {'true' if is_error else 'false'}"
    return slot_wire(
        "gemini-interactions", result, is_error=is_error, flag=flag, carrier="its result", context=context
    )


def from_gemini(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a ``FunctionResponse`` holds; ``DialectError`` for any other record."""
    return dialect("gemini").read(record)


def from_gemini_interactions(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse an Interactions ``function_result`` holds (see ``from_gemini``)."""
    return dialect("gemini-interactions").read(record)
