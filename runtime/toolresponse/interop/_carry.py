"""How a whole ToolResponse travels inside another dialect's record: in a trailer, or in a JSON slot.

OpenAI's tool messages (Chat Completions and Responses), Anthropic's
``tool_result`` and AutoGen's ``FunctionExecutionResult`` have no member for
structured data, no error code and (OpenAI) no error flag, and nothing beside
the content reaches the other side: there is no side channel. So the converters
write two things into the content:

1. the **model text**: what the model should read (``model_text``: the text, its
   status stated as ``_text`` says);
2. a **trailer**, unless the caller asks for none: one last line
   ``<toolresponse>{...}</toolresponse>`` holding the response as compact I-JSON,
   its ``context.call_id`` the id of the tool call the record answers (``trailer``),
   after a blank line (or in a block of its own).

Compact JSON never holds a raw line break (JSON escapes them), so the trailer
is exactly the last line, whatever the model text holds. The model reads the
trailer too: it is JSON models read well, it costs the tokens of the response,
and it gives the model the ``data`` that a text alone throws away (HelloAgents
1.0's agent drops it).

A tool's output can end in anything, a line that looks like a trailer included
(a web page quoting one, a forgery), and the tool does not know the id of the
call it answers. So a trailer is the record's (``carried_response``) only when it
is laid out as ``to_`` lays it out and its ``context.call_id`` is the record's own
call id; then it must agree with what the record itself states, or the record
is refused (``DialectError``), as the MCP mapping refuses a ``_meta`` response
that contradicts ``isError``: its status with the record's error flag
(``agreeing``), and the text before it must be its model text (what the model
read). Any other trailer-looking line is part of the tool's output: the record is
read from its text by ``_text.inferred``, as a record written by another
framework is (an error flag keeps its error, a stated code its code). Nothing a
tool prints turns a record into another response, and no tool output makes a
record unreadable.

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
from ._shape import cut
from ._text import inferred, model_text, wire_model_text

__all__ = [
    "CALL_ID",
    "TOOL_NAME",
    "TRAILER_END",
    "TRAILER_START",
    "agreeing",
    "blocks_wire",
    "call_id_or_context",
    "carried",
    "carried_response",
    "context_call_id",
    "error_info_of",
    "foreign_wire",
    "is_response_wire",
    "record_context",
    "shown_text",
    "slot_wire",
    "text_parts",
    "tool_name_or_context",
    "trailer",
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


def shown_text(response: ToolResponse, text: str | None, *, carry: bool) -> str:
    """What the model reads of a record of ``response``: ``text`` when given, else its model text.

    A trailer must follow the model text of its response (see above), so ``text`` goes with
    ``carry=False``; with ``carry`` it raises ``ValueError``."""
    if text is None:
        return model_text(response)
    if carry:
        raise ValueError(
            "text= replaces the response's model text, and a trailer must follow that text:"
            " pass carry=False with text= (the record is then read as its text)"
        )
    return text


def trailer(response: ToolResponse, call_id: str) -> str:
    """The trailer line of ``response`` in the record answering the tool call ``call_id``: the
    response with that ``context.call_id``, as compact I-JSON."""
    if context_call_id(response) != call_id:
        response = response.with_context(call_id=call_id)
    return TRAILER_START + response.to_json() + TRAILER_END


def carried(text: str, response: ToolResponse | None, *, call_id: str) -> str:
    """``text`` with the trailer of ``response`` (answering ``call_id``) as its last line, after a
    blank line (the trailer alone for an empty ``text``; ``text`` alone for None)."""
    if response is None:
        return text
    line = trailer(response, call_id)
    return f"{text}\n\n{line}" if text else line


def _split(content: str) -> tuple[str, Any] | None:
    """The text before ``content``'s trailer and the trailer's decoded JSON, when ``content`` is
    laid out as ``carried`` lays it out; None otherwise (a last line that looks like a trailer
    but does not hold JSON is no trailer)."""
    if not content.endswith(TRAILER_END):
        return None
    start = content.rfind("\n") + 1
    if not content.startswith(TRAILER_START, start):
        return None
    if start == 0:
        before = ""
    elif content.startswith("\n\n", start - 2):
        before = content[: start - 2]
    else:
        return None
    try:
        return before, orjson.loads(content[start + _START_LENGTH : -_END_LENGTH])
    except orjson.JSONDecodeError:
        return None


def carried_response(
    dialect: str, texts: Sequence[str], *, call_id: Any, flag: tuple[str, bool] | None, text_at: str
) -> dict[str, Any] | None:
    """The ToolResponse wire object a record carries in a trailer, or None when it carries none
    (see above).

    ``texts`` is the record's text as ``to_`` writes it: one text (the model text, a blank line,
    the trailer: ``carried``) or two (the model text, then the trailer alone); ``call_id`` is the
    record's call id; ``flag`` its error flag as ``(pointer name, says error)`` (None: the dialect
    has none, or it is null). A carried response that contradicts the flag, or whose model text is
    not the text before it (``text_at``, the pointer of the record's text), is refused with
    ``DialectError``."""
    if len(texts) == 1:
        found = _split(texts[0])
    elif len(texts) == 2:
        alone = _split(texts[1])
        found = (texts[0], alone[1]) if alone is not None and alone[0] == "" else None
    else:
        found = None
    if found is None or not is_response_wire(found[1]):
        return None
    shown, wire = found
    context = wire.get("context")
    if not (isinstance(call_id, str) and call_id and isinstance(context, Mapping)):
        return None
    if context.get("call_id") != call_id:
        return None
    if flag is not None:
        name, is_error = flag
        said = f"{name} is {'true' if is_error else 'false'}"
        agreeing(dialect, wire, is_error=is_error, flag=said, carrier="its trailer")
    written = wire_model_text(wire)
    if written is not None and written != shown:
        message = (
            f"{dialect} record: the text before its trailer is not the model text of the response the"
            f" trailer carries ({cut(repr(written), 120)}): what the model read is the record's own"
            " word, and a trailer that says otherwise is not believed over it"
        )
        raise DialectError(dialect, (SchemaViolation(pointer=text_at, keyword="const", message=message),))
    return dict(wire)


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
        f"{dialect} record: {flag}, but the response in {carrier} has status {cut(repr(status), 60)}:"
        f" a record's {name} says error exactly for status error, and the record's own flag is not"
        " overruled"
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
