"""Vercel AI SDK: the ``tool-result`` part of a tool message, and the ``tool-error`` part of a step.

A ``ToolResultPart`` (the content of a ``ModelMessage`` of role ``tool``)::

    {"type": "tool-result", "toolCallId": "call_1", "toolName": "get_weather",
     "output": {"type": "json", "value": ...}}
        output types: text, json, error-text, error-json (a value), execution-denied (a reason;
        AI SDK 6 and later), content (text and media items)

A ``tool-error`` part, in a step's content when a tool threw (never sent to the model)::

    {"type": "tool-error", "toolCallId": "call_1", "toolName": "get_weather", "input": {...},
     "error": ...}

The output's type says error or not (``error-*``) and denied; there is no code
and no partial state. ``to_vercel`` writes ``json`` with the whole response,
``error-json`` for an error (its ``error_info``, the code, in it); with
``carry=False``, ``text`` or ``error-text`` with the model text. A denial
(``_outcomes.DENIED``) is written ``execution-denied``, its message the reason,
when that loses nothing (with ``carry=False``, always). ``from_vercel`` gives a
carried response back exactly; one whose status contradicts the output's type
is refused with ``DialectError`` at ``/output/type``. ``execution-denied`` is
the DENIED outcome (PERMISSION_DENIED, ``details.outcome`` "denied"), its reason
the message. Other values are read by ``_carry.foreign_wire`` (a text as
``_text`` reads one; ``content`` items as text items joined, the others in
``data.blocks``); a ``tool-error`` is an error read from its ``error`` so, its
``input`` in ``context.params_input``. The id and the tool name go to
``context``; ``providerOptions`` and a ``tool-error``'s metadata are not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import (
    CALL_ID,
    TOOL_NAME,
    blocks_wire,
    call_id_or_context,
    record_context,
    slot_wire,
    text_parts,
    tool_name_or_context,
)
from ._outcomes import DENIED
from ._shape import Shape, record_schema, text_or_blocks
from ._text import model_text

__all__ = ["VERCEL_SHAPE", "from_vercel", "to_vercel", "wire_from_vercel"]

_OBJECT = {"type": "object"}
_ITEMS = text_or_blocks({"type": "string"}, "text")["anyOf"][1]


def _when(kinds: list[str], then: dict[str, Any]) -> dict[str, Any]:
    return {"if": {"properties": {"type": {"enum": kinds}}}, "then": then}


_OUTPUT = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"enum": ["text", "json", "error-text", "error-json", "execution-denied", "content"]},
        "value": {},
        "reason": {"type": "string"},
        "providerOptions": _OBJECT,
    },
    "additionalProperties": False,
    "allOf": [
        _when(["text", "error-text"], {"required": ["value"], "properties": {"value": {"type": "string"}}}),
        _when(["json", "error-json"], {"required": ["value"]}),
        _when(["content"], {"required": ["value"], "properties": {"value": _ITEMS}}),
        # A denial has a reason and no value; only a denial has a reason.
        {
            **_when(["execution-denied"], {"properties": {"value": False}}),
            "else": {"properties": {"reason": False}},
        },
    ],
}
_RESULT_MEMBERS = {"output": _OUTPUT, "providerOptions": _OBJECT}
_ERROR_MEMBERS = {
    "input": {},
    "error": {},
    "providerExecuted": {"type": "boolean"},
    "providerMetadata": _OBJECT,
    "toolMetadata": _OBJECT,
    "dynamic": {"type": "boolean"},
    "title": {"type": "string"},
}

VERCEL_SHAPE: dict[str, Any] = record_schema(
    "Vercel AI SDK tool-result or tool-error part",
    ["type", "toolCallId", "toolName"],
    {
        "type": {"enum": ["tool-result", "tool-error"]},
        "toolCallId": CALL_ID,
        "toolName": TOOL_NAME,
        **_RESULT_MEMBERS,
        **_ERROR_MEMBERS,
    },
    **{
        "if": {"properties": {"type": {"const": "tool-error"}}},
        "then": {"properties": dict.fromkeys(_RESULT_MEMBERS, False)},
        "else": {"required": ["output"], "properties": dict.fromkeys(_ERROR_MEMBERS, False)},
    },
)
"""One ``ToolResultPart`` (AI SDK 5 to 7) or ``tool-error`` content part."""

SHAPE = Shape("vercel", VERCEL_SHAPE)


def to_vercel(
    response: ToolResponse, *, toolCallId: str | None = None, toolName: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The ``tool-result`` part of ``response`` (see the module docstring for its output).

    ``toolCallId`` defaults to ``context.call_id`` and ``toolName`` to
    ``context.tool_name``; without either, ``DialectError``."""
    record: dict[str, Any] = {
        "type": "tool-result",
        "toolCallId": call_id_or_context(toolCallId, response, dialect="vercel", member="toolCallId"),
        "toolName": tool_name_or_context(toolName, response, dialect="vercel", member="toolName"),
    }
    info = response.error_info
    if info is not None and DENIED.of(response):
        denied = {**record, "output": {"type": "execution-denied", "reason": info.message}}
        if not carry or wire_from_vercel(denied) == response.to_dict():
            return denied
    kind = "error-" if response.is_error else ""
    if carry:
        record["output"] = {"type": kind + "json", "value": response.to_dict()}
    else:
        record["output"] = {"type": kind + "text", "value": model_text(response)}
    return record


def wire_from_vercel(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``tool-result`` or ``tool-error`` part known to have its
    shape (unchecked)."""
    context = record_context(record["toolCallId"], record["toolName"])
    if record["type"] == "tool-error":
        if "input" in record:
            context = {**(context or {}), "params_input": record["input"]}
        error = record.get("error", "")
        flag = "type is 'tool-error'"
        return slot_wire("vercel", error, is_error=True, flag=flag, carrier="its error", context=context)
    output = record["output"]
    kind = output["type"]
    if kind == "execution-denied":
        return DENIED.wire(output.get("reason"), context=context)
    if kind == "content":
        return blocks_wire(*text_parts(output["value"], "text"), is_error=False, context=context)
    flag = f"output/type is {kind!r}"
    is_error = kind.startswith("error-")
    return slot_wire(
        "vercel", output["value"], is_error=is_error, flag=flag, carrier="its output", context=context
    )


def from_vercel(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a ``tool-result`` or ``tool-error`` part holds (see the module docstring).

    Raises ``DialectError("vercel", ...)`` for a record that is neither, and
    ``ResponseValidationError`` when the response it carries is not valid."""
    return ToolResponse.from_dict(wire_from_vercel(SHAPE.checked(record)))
