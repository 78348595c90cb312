"""How a whole ToolResponse travels inside another dialect's record: in a trailer, or in a JSON slot.

A dialect with no member for data gets the model text and (unless ``carry=False``) a trailer line,
``<toolresponse>{compact I-JSON}</toolresponse>``. A tool cannot know the record's call id, so a
trailer is the record's only when laid out as ``to_`` lays it out and bound to that id; it must
then agree with the record's flag and text, or ``DialectError``. A dialect with a JSON member
carries the wire object in its outcome slot. Whatever carries it, the response read takes the
record's call id and tool name (``agreeing``). docs/migrating.md, "What each dialect carries".
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeGuard

import orjson

from toolresponse_generated import ErrorInfo

from .._errors import DialectError
from .._response import ToolResponse
from .._suggest import shortened
from .._violation import SchemaViolation
from ._dialects import DIALECTS
from ._text import CODES, inferred, model_text, wire_model_text

TRAILER_START = "<toolresponse>"
TRAILER_END = "</toolresponse>"
_TRAILER: Final = re.compile(rf"(?:\A|\n\n){TRAILER_START}([^\n]*){TRAILER_END}\Z")
"""A trailer as ``written`` lays it out: the last line, alone or after a blank line."""

_NEEDED: Final = {
    "call_id": ("it answers one tool call by its id", "ID"),
    "tool_name": ("it names the tool that answers", "NAME"),
}


def context_value(response: ToolResponse, key: str) -> str | None:
    """``response``'s ``context[key]`` (``call_id``, ``tool_name``), when it is a string."""
    known = (response.context or {}).get(key)
    return known if isinstance(known, str) else None


def required(response: ToolResponse, key: str, given: str | None, *, dialect: str) -> str:
    """The value of the member that ``dialect``'s row names for ``key`` (also ``to_``'s keyword):
    ``given``, else ``response``'s ``context[key]``; without one (or "") ``DialectError`` at
    ``/context/KEY``."""
    value = context_value(response, key) if given is None else given
    if value:
        return value
    member = getattr(DIALECTS[dialect], key)
    why, placeholder = _NEEDED[key]
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
    and tool name that are non-empty strings; None when neither is."""
    context = {"call_id": call_id, "tool_name": tool_name}
    kept = {key: value for key, value in context.items() if isinstance(value, str) and value}
    return kept or None


def text_parts(
    blocks: str | Sequence[Mapping[str, Any]], text_type: str, key: str = "type"
) -> tuple[list[str], list[Any]]:
    """The texts of the blocks whose ``key`` is ``text_type``, and the other blocks, in order; a
    string is content of one text."""
    if isinstance(blocks, str):
        return [blocks], []
    texts = [block["text"] for block in blocks if block[key] == text_type]
    others = [block for block in blocks if block[key] != text_type]
    return texts, others


def blocks_wire(
    texts: Sequence[str],
    others: Sequence[Any],
    *,
    is_error: bool | None,
    context: Mapping[str, Any] | None,
    kept: str = "blocks",
) -> dict[str, Any]:
    """The wire object of content that carries no response: ``texts`` joined by line breaks, read
    by ``_text.inferred``, and the ``others`` blocks as they are in ``data[kept]``."""
    wire = inferred("\n".join(texts), is_error=is_error, context=context)
    if others:
        wire["data"] = {kept: list(others)}
    return wire


def written(response: ToolResponse, text: str | None, *, call_id: str, carry: bool) -> list[str]:
    """The texts of a record of ``response``: what the model reads (``text``, else its model
    text), then with ``carry`` the trailer line (its ``context.call_id`` ``call_id``). A trailer
    must follow the model text of its response, so ``text`` with ``carry`` is a ``ValueError``."""
    if text is not None and carry:
        raise ValueError(
            "text= replaces the response's model text, and a trailer must follow that text:"
            " pass carry=False with text= (the record is then read as its text)"
        )
    shown = model_text(response) if text is None else text
    if not carry:
        return [shown]
    if context_value(response, "call_id") != call_id:
        response = response.with_context(call_id=call_id)
    return [shown, TRAILER_START + response.to_json() + TRAILER_END]


def carried_text(response: ToolResponse, text: str | None, *, call_id: str, carry: bool) -> str:
    """``written`` as one text: the trailer after a blank line (alone for an empty text)."""
    return "\n\n".join(part for part in written(response, text, call_id=call_id, carry=carry) if part)


def slot_value(response: ToolResponse, carry: bool) -> Any:
    """What a dialect's JSON slot holds of ``response``: its wire object (``carry=False``: its model
    text)."""
    return response.to_dict() if carry else model_text(response)


def _bound_trailer(texts: Sequence[str], call_id: str) -> tuple[str, Mapping[str, Any]] | None:
    """The text before the trailer ``texts`` end with and the response it carries, when they are
    laid out as ``written`` lays them out (one text, or the model text then the trailer) and the
    trailer is bound to ``call_id``; None otherwise (a trailer not holding JSON too)."""
    content = "\n\n".join(texts)
    if len(texts) > 2 or not content.endswith(TRAILER_END):
        return None
    # Searched from the blank line before the last line only: a long text costs no more than a short one.
    found = _TRAILER.search(content, max(content.rfind("\n") - 1, 0))
    if found is None:
        return None
    try:
        wire = orjson.loads(found[1])
    except orjson.JSONDecodeError:
        return None
    bound = wire.get("context") if is_response_wire(wire) else None
    if not call_id or not isinstance(bound, Mapping) or bound.get("call_id") != call_id:
        return None
    return content[: found.start()], wire


def text_wire(
    dialect: str,
    texts: Sequence[str],
    others: Sequence[Any] = (),
    *,
    call_id: str,
    tool_name: str | None = None,
    is_error: bool | None,
    text_at: str,
    kept: str = "blocks",
) -> dict[str, Any]:
    """The wire object of a record of text (its call id and tool name in ``context``): the response
    its trailer carries (content without ``others`` blocks only), else what ``blocks_wire`` reads;
    ``DialectError`` when the trailer contradicts ``is_error`` (None: no flag) or the text before it."""
    context = record_context(call_id, tool_name)
    found = None if others else _bound_trailer(texts, call_id)
    if found is None:
        return blocks_wire(texts, others, is_error=is_error, context=context, kept=kept)
    shown, wire = found
    if is_error is not None:
        said = f"is_error is {'true' if is_error else 'false'}"
        agreeing(dialect, wire, is_error=is_error, flag=said, carrier="its trailer")
    carried = owned(wire, context)
    model = wire_model_text(carried)
    if model is not None and model != shown:
        message = (
            f"{dialect} record: the text before its trailer is not the model text of the response the"
            f" trailer carries ({shortened(repr(model), 120)}): what the model read is the record's own"
            " word, and a trailer that says otherwise is not believed over it"
        )
        raise DialectError(dialect, (SchemaViolation(pointer=text_at, keyword="const", message=message),))
    return carried


def agreeing(
    dialect: str,
    wire: Mapping[str, Any],
    *,
    is_error: bool,
    flag: str,
    carrier: str,
    context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``wire``, the response a record carries in ``carrier``, when its status agrees with the
    record's error flag (``flag``: ``NAME VALUE`` in the record's terms), else ``DialectError``;
    with the record's own call id and tool name (of ``context``) in its context (``owned``)."""
    status = wire.get("status")
    if (status == "error") is is_error:
        return owned(wire, context)
    name = flag.split(" ", 1)[0]
    message = (
        f"{dialect} record: {flag}, but the response in {carrier} has status {shortened(repr(status), 60)}:"
        f" a record's {name} says error exactly for status error, and the record's own flag is not"
        " overruled"
    )
    raise DialectError(dialect, (SchemaViolation(pointer="/" + name, keyword="const", message=message),))


_OWN: Final = ("call_id", "tool_name")


def owned(carried: Mapping[str, Any], context: Mapping[str, Any] | None) -> dict[str, Any]:
    """The wire object ``carried`` whose context has the record's call id and tool name (of
    ``context``), over its own: the record names the call it answers, as its flag states the
    status (docs/migrating.md, "What each dialect carries"). A context that is no object is left
    for the schema to report."""
    own = {key: context[key] for key in _OWN if key in context} if context else {}
    kept = carried.get("context", {})
    if not own or not isinstance(kept, Mapping):
        return dict(carried)
    return {**carried, "context": {**kept, **own}}


def is_response_wire(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``value`` stands for a ToolResponse (an object with ``status`` and ``text``)."""
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
    """The wire object of the JSON ``value`` in a record's outcome slot: the response it is
    (``agreeing``), else another framework's value (``foreign_wire``)."""
    if is_response_wire(value):
        return agreeing(dialect, value, is_error=is_error, flag=flag, carrier=carrier, context=context)
    return foreign_wire(value, is_error=is_error, context=context)


_ERROR_INFO_MEMBERS: Final = tuple(member.name for member in dataclasses.fields(ErrorInfo))


def error_info_of(error: Mapping[str, Any]) -> dict[str, Any]:
    """``error_info`` of another framework's error object: its members of ``error_info``'s names as
    themselves, any other kept in ``details`` (an explicit ``details`` member wins a clash)."""
    info = {name: error[name] for name in _ERROR_INFO_MEMBERS if name in error}
    others = {name: value for name, value in error.items() if name not in _ERROR_INFO_MEMBERS}
    if others:
        details = info.get("details", {})
        info["details"] = {**others, **details} if isinstance(details, Mapping) else details
    return info


def foreign_wire(value: Any, *, is_error: bool, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """The wire object of a JSON value another framework wrote as a call's outcome: a string read as
    text, an error object with one of the 15 codes and a message as that error, any other value as
    its compact JSON text (an error's message if it has one), kept in ``data`` (``data.result`` or
    ``data.error`` but for a success's object)."""
    if isinstance(value, str):
        return inferred(value, is_error=is_error, context=context)
    message = value.get("message") if is_error and isinstance(value, Mapping) else None
    wire: dict[str, Any]
    # str(): a code that is a list or an object is none of ours, and cannot be looked up as it is.
    if isinstance(message, str) and message and str(value.get("code")) in CODES:
        wire = {"status": "error", "text": message, "error_info": error_info_of(value)}
    elif value in ({}, None):
        wire = inferred("", is_error=is_error, context=None)
    else:
        if not isinstance(message, str):
            message = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        wire = inferred(message, is_error=is_error, context=None)
        kept = isinstance(value, Mapping) and not is_error
        wire["data"] = dict(value) if kept else {"error" if is_error else "result": value}
    if context:
        wire["context"] = dict(context)
    return wire
