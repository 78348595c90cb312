"""How a whole ToolResponse travels inside a dialect that has only text for the model.

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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

import orjson

from .._errors import DialectError
from .._response import ToolResponse
from .._violation import SchemaViolation

__all__ = [
    "CALL_ID",
    "TRAILER_END",
    "TRAILER_START",
    "agreeing",
    "call_id_or_context",
    "carried",
    "context_call_id",
    "text_parts",
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
    if call_id:
        return call_id
    function = "to_" + dialect.replace("-", "_")
    message = (
        f"{dialect} record: no {member}: it answers one tool call by its id, and the response has no"
        f" context.call_id; put the id in context.call_id (or pass {function}(..., {member}=ID))"
    )
    raise DialectError(
        dialect, (SchemaViolation(pointer="/context/call_id", keyword="required", message=message),)
    )


def text_parts(blocks: Sequence[Mapping[str, Any]], text_type: str) -> tuple[list[str], list[Any]]:
    """The texts of the blocks of type ``text_type``, in order, and the other blocks, in order."""
    texts = [block["text"] for block in blocks if block["type"] == text_type]
    others = [block for block in blocks if block["type"] != text_type]
    return texts, others


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
