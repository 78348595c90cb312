"""How a whole ToolResponse travels inside another dialect's record: in a trailer, or in a JSON slot.

OpenAI's tool messages (Chat Completions and Responses) and Anthropic's
``tool_result`` have no member for structured data, no error code and (OpenAI)
no error flag, and nothing beside the content reaches the other side: there is
no side channel. So the converters write two things into the content:

1. the **model text**: what the model should read (``model_text``: the text, its
   status stated as ``_text`` says; or the caller's own text, such as the
   agent's feedback);
2. a **trailer**, unless the caller asks for none: one last line
   ``<toolresponse>{...}</toolresponse>`` holding the response as compact I-JSON.

Compact JSON never holds a raw line break (JSON escapes them), so the trailer
is exactly the last line, whatever the model text holds; ``trailer_of``
finds it, and ``from_`` then gives back exactly the response that ``to_`` was
given. The model reads the trailer too: it is JSON models read well, it costs
the tokens of the response, and it gives the model the ``data`` that a text
alone throws away (HelloAgents 1.0's agent drops it). A record without a
trailer (written by another framework) is read by ``_text.inferred``: its text,
and the status and code its flag and its words say.

Dialects with a member for JSON (Bedrock's ``json`` content, Gemini's ``response``
``output`` / ``error``, its Interactions ``result``, Vercel's ``json`` / ``error-json``
outputs) carry the response's wire object there, in the slot of its outcome:
``slot_wire`` reads it back (``agreeing`` with the record's flag), and a value
written by another framework with ``foreign_wire``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeGuard, TypeVar

import orjson

from toolresponse_generated import ErrorCode, ErrorInfo

from .._errors import DialectError
from .._response import ToolResponse
from .._violation import SchemaViolation
from ._text import inferred

__all__ = [
    "CALL_ID",
    "TOOL_NAME",
    "TRAILER_END",
    "TRAILER_START",
    "agreeing",
    "blocks_wire",
    "call_id_or_context",
    "carried",
    "context_call_id",
    "error_info_of",
    "foreign_wire",
    "is_response_wire",
    "record_context",
    "slot_wire",
    "text_parts",
    "tool_name_or_context",
    "trailer_of",
]

_Carried = TypeVar("_Carried")

TRAILER_START = "<toolresponse>"
TRAILER_END = "</toolresponse>"
_START_LENGTH = len(TRAILER_START)
_END_LENGTH = len(TRAILER_END)


CALL_ID: Final = {"type": "string", "minLength": 1}
"""The schema of a record's call id member: the id of the model's tool call the record answers
(the provider matches the two; an empty id matches none)."""

TOOL_NAME: Final = {"type": "string", "minLength": 1}
"""The schema of a record's tool name member, where the dialect requires one (Gemini, Vercel)."""


def context_call_id(response: ToolResponse) -> str | None:
    """``response``'s ``context.call_id``, when it is a string."""
    known = (response.context or {}).get("call_id")
    return known if isinstance(known, str) else None


def call_id_or_context(call_id: str | None, response: ToolResponse, *, dialect: str, member: str) -> str:
    """The call id a record of ``dialect`` gets in ``member`` (also the keyword of its ``to_``):
    ``call_id`` when given, else ``response``'s ``context.call_id``. Without one (or with "") the
    record cannot be written: ``DialectError`` at ``/context/call_id`` says how to give it."""
    if call_id is None:
        call_id = context_call_id(response)
    return call_id or _missing(dialect, member, "call_id", "it answers one tool call by its id", "ID")


def tool_name_or_context(name: str | None, response: ToolResponse, *, dialect: str, member: str) -> str:
    """The tool name a record of ``dialect`` gets in ``member`` (also the keyword of its ``to_``):
    ``name`` when given, else ``response``'s ``context.tool_name``; ``DialectError`` at
    ``/context/tool_name`` without one, as ``call_id_or_context``."""
    if name is None:
        known = (response.context or {}).get("tool_name")
        name = known if isinstance(known, str) else None
    return name or _missing(dialect, member, "tool_name", "it names the tool that answers", "NAME")


def _missing(dialect: str, member: str, key: str, why: str, placeholder: str) -> str:
    function = "to_" + dialect.replace("-", "_")
    message = (
        f"{dialect} record: no {member}: {why}, and the response has no context.{key}; put it in"
        f" context.{key} (or pass {function}(..., {member}={placeholder}))"
    )
    raise DialectError(
        dialect, (SchemaViolation(pointer=f"/context/{key}", keyword="required", message=message),)
    )


def record_context(call_id: Any, tool_name: Any = None) -> dict[str, Any] | None:
    """The ``context`` of a response read from a record without one of ours: the record's call id
    and tool name, those that are non-empty strings; None when neither is."""
    context = {"call_id": call_id, "tool_name": tool_name}
    kept = {key: value for key, value in context.items() if isinstance(value, str) and value}
    return kept or None


def text_parts(blocks: Sequence[Mapping[str, Any]], text_type: str) -> tuple[list[str], list[Any]]:
    """The texts of the blocks of type ``text_type``, in order, and the other blocks, in order."""
    texts = [block["text"] for block in blocks if block["type"] == text_type]
    others = [block for block in blocks if block["type"] != text_type]
    return texts, others


def blocks_wire(
    texts: Sequence[str], others: Sequence[Any], *, is_error: bool | None, context: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The wire object of a record's content that carries no response: its ``texts`` joined by line
    breaks, read by ``_text.inferred``, and its ``others`` blocks kept as they are in ``data.blocks``."""
    wire = inferred("\n".join(texts), is_error=is_error, context=context)
    if others:
        wire["data"] = {"blocks": list(others)}
    return wire


def carried(text: str, response: ToolResponse | None) -> str:
    """``text`` with the trailer of ``response`` as its last line (``text`` alone for None)."""
    if response is None:
        return text
    trailer = TRAILER_START + response.to_json() + TRAILER_END
    return f"{text}\n\n{trailer}" if text else trailer


def trailer_of(content: str) -> Any:
    """The decoded JSON of ``content``'s trailer; None when it has none (a last line that looks
    like a trailer but does not hold JSON is no trailer: it stays text)."""
    if not content.endswith(TRAILER_END):
        return None
    start = content.rfind("\n") + 1
    if not content.startswith(TRAILER_START, start):
        return None
    try:
        return orjson.loads(content[start + _START_LENGTH : -_END_LENGTH])
    except orjson.JSONDecodeError:
        return None


def agreeing(dialect: str, wire: _Carried, *, is_error: bool, flag: str, carrier: str) -> _Carried:
    """``wire``, the response a record carries, when its status agrees with the record's error flag
    (``is_error``: the flag says error; ``flag``: the flag as ``NAME VALUE`` in the record's terms,
    its member the pointer); else ``DialectError`` at the flag, naming ``carrier``, where the
    response was found."""
    status = wire.get("status") if isinstance(wire, Mapping) else None
    if (status == "error") is is_error:
        return wire
    name = flag.split(" ", 1)[0]
    message = (
        f"{dialect} record: {flag}, but the response in {carrier} has status {status!r}: a record's"
        f" {name} says error exactly for status error, and the record's own flag is not overruled"
    )
    raise DialectError(dialect, (SchemaViolation(pointer="/" + name, keyword="const", message=message),))


def is_response_wire(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``value`` stands for a ToolResponse (an object with ``status`` and ``text``), as a
    response carried in a record is; ``ToolResponse.from_dict`` then says whether it is a valid one."""
    return isinstance(value, Mapping) and "status" in value and "text" in value


def slot_wire(
    dialect: str,
    value: Any,
    *,
    is_error: bool,
    flag: str,
    carrier: str,
    context: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The wire object of the JSON ``value`` in a record's outcome slot (``carrier``): the response
    it is (``agreeing`` with the record's flag), else another framework's value (``foreign_wire``)."""
    if is_response_wire(value):
        return dict(agreeing(dialect, value, is_error=is_error, flag=flag, carrier=carrier))
    return foreign_wire(value, is_error=is_error, context=context)


_CODES: Final = frozenset(ErrorCode)
_ERROR_INFO_MEMBERS: Final = tuple(member.name for member in dataclasses.fields(ErrorInfo))


def error_info_of(error: Mapping[str, Any]) -> dict[str, Any]:
    """``error_info`` of another framework's error object: its members of ``error_info``'s names as
    themselves, any other kept in ``details`` under its own name (an explicit ``details`` member wins
    a clash); ``ToolResponse.from_dict`` then judges it (a code that is not one of the 15 ...)."""
    info = {name: error[name] for name in _ERROR_INFO_MEMBERS if name in error}
    others = {name: value for name, value in error.items() if name not in _ERROR_INFO_MEMBERS}
    if others:
        details = info.get("details", {})
        info["details"] = {**others, **details} if isinstance(details, Mapping) else details
    return info


def foreign_wire(value: Any, *, is_error: bool, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """The wire object of a JSON value another framework wrote as a call's outcome (an error when
    ``is_error``, the record's flag): a string is read as text (``_text.inferred``); an error object
    with one of the 15 codes and a message is that error (``error_info_of``); any other value is read
    as its compact JSON text (an error's, as its ``message`` when it has one; ``{}`` and null as no
    text) and kept in ``data``: a success's object as ``data`` itself, any other value but ``{}``
    and null under ``data.result`` or ``data.error``."""
    if isinstance(value, str):
        return inferred(value, is_error=is_error, context=context)
    message = value.get("message") if is_error and isinstance(value, Mapping) else None
    wire: dict[str, Any]
    if isinstance(message, str) and message and value.get("code") in _CODES:
        wire = {"status": "error", "text": message, "error_info": error_info_of(value)}
    else:
        if isinstance(message, str):
            text = message
        else:
            text = "" if value in ({}, None) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        wire = inferred(text, is_error=is_error, context=None)
        if value not in ({}, None):
            kept = isinstance(value, Mapping) and not is_error
            wire["data"] = dict(value) if kept else {"error" if is_error else "result": value}
    if context:
        wire["context"] = dict(context)
    return wire
