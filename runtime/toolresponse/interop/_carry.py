"""How a whole ToolResponse travels inside a dialect that has only text for the model.

OpenAI's tool messages (Chat Completions and Responses) and Anthropic's
``tool_result`` have no member for structured data, no error code and (OpenAI)
no error flag, and nothing beside the content reaches the other side: there is
no side channel. So the converters write two things into the content:

1. the **model text**: what the model should read (``model_text``: the text, its
   status stated as ``_text`` says);
2. a **trailer**, unless the caller asks for none: one last line
   ``<toolresponse>{...}</toolresponse>`` holding the response as compact I-JSON,
   its ``context.call_id`` the id of the tool call the record answers (``trailer``).

Compact JSON never holds a raw line break (JSON escapes them), so the trailer
is exactly the last line, whatever the model text holds. The model reads the
trailer too: it is JSON models read well, it costs the tokens of the response,
and it gives the model the ``data`` that a text alone throws away (HelloAgents
1.0's agent drops it).

A tool's output can end in anything, a line that looks like a trailer included
(a web page quoting one, a forgery). So a trailer is **honoured** only when the
record is exactly what ``to_`` writes for the response it carries
(``carried_response``): the text before it is that response's model text, laid
out as ``to_`` lays it out (a blank line, then the trailer; or a text block and a
trailer block); the response's ``context.call_id`` is the record's own call id;
and its status agrees with the record's error flag (Anthropic's ``is_error``) or,
where there is none (OpenAI), with the code the text states (``ERROR <CODE>:``).
Then ``from_`` gives back exactly the response that ``to_`` was given (with the
record's call id). Any other record carries no response: the trailer-looking line
is part of the tool's output, and ``_text.inferred`` reads the whole text (an
error flag keeps its error, a stated code its code), as a record written by
another framework is read. Nothing the tool prints can turn a record into
another response, and nothing is refused for printing it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

import orjson

from .._errors import DialectError
from .._response import ToolResponse
from .._violation import SchemaViolation
from ._text import model_text, stated_code, wire_model_text

__all__ = [
    "CALL_ID",
    "TRAILER_END",
    "TRAILER_START",
    "agreeing",
    "call_id_or_context",
    "carried",
    "carried_response",
    "context_call_id",
    "shown_text",
    "text_parts",
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


def shown_text(response: ToolResponse, text: str | None, *, carry: bool) -> str:
    """What the model reads of a record of ``response``: ``text`` when given, else its model text.

    A trailer is honoured only after the model text of its response (see above), so ``text``
    goes with ``carry=False``; with ``carry`` it raises ``ValueError``."""
    if text is None:
        return model_text(response)
    if carry:
        raise ValueError(
            "text= replaces the response's model text, and a trailer is read back only after that"
            " text: pass carry=False with text= (the record is then read as its text)"
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
    elif start >= 3 and content.startswith("\n\n", start - 2):
        before = content[: start - 2]
    else:
        return None
    try:
        return before, orjson.loads(content[start + _START_LENGTH : -_END_LENGTH])
    except orjson.JSONDecodeError:
        return None


def carried_response(texts: Sequence[str], *, call_id: str, is_error: bool | None) -> dict[str, Any] | None:
    """The ToolResponse wire object a record carries, or None when it carries none (see above).

    ``texts`` is the record's text as ``to_`` writes it: one text (the model text, a blank line,
    the trailer: ``carried``) or two (the model text, then the trailer alone); ``call_id`` is the
    record's call id; ``is_error`` its error flag (None: the dialect has none, and the code the
    text states stands for it)."""
    if len(texts) == 1:
        found = _split(texts[0])
    elif len(texts) == 2:
        alone = _split(texts[1])
        found = (texts[0], alone[1]) if alone is not None and alone[0] == "" else None
    else:
        found = None
    if found is None:
        return None
    shown, wire = found
    if not isinstance(wire, dict) or wire_model_text(wire) != shown:
        return None
    context = wire.get("context")
    if not isinstance(context, dict) or context.get("call_id") != call_id:
        return None
    status_error = wire["status"] == "error"
    if is_error is None:
        info = wire.get("error_info")
        code = stated_code(shown)
        agrees = (code is not None and code.value == info["code"]) if status_error else code is None
    else:
        agrees = status_error is is_error
    return wire if agrees else None


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
