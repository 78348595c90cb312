"""HelloAgents 1.0 and 1.0.1: the dict its ``ToolResponse`` serialises to, read and written.

::

    {"status": "error", "text": "...", "data": {}, "error": {"code": "NOT_FOUND", "message": "..."},
     "stats": {"time_ms": 3}, "context": {"tool_name": "read_file", "params_input": {...}}}

The differences from ToolResponse v1, and what each converter does with them:

========================  ==================================  ===========================================
HelloAgents 1.0 / 1.0.1   ToolResponse v1                     conversion
========================  ==================================  ===========================================
``error``                 ``error_info``                      renamed both ways
error ``code``: any str   one of the 15 standard codes        read as is: a code that is not standard
                                                              makes the record invalid (the validator
                                                              names the nearest code), never guessed
``error``: a free dict    ``code``, ``message``, and          read: the members of those names as
(``code``, ``message``,   ``details``, ``retryable``,         themselves, any other kept in ``details``
any other member)         ``retry_after_ms``                  under its own name; written: ``code`` and
                                                              ``message`` only
``data`` always written   absent means ``{}``                 read: ``{}`` either way; written always
``stats``/``context``     null or absent when unset           read as absent; written only when non-empty
only when non-empty
``time_ms``: a number     a number >= 0                       read as is; written rounded to an integer
(its timing: an integer)                                      (what its timing writes)
``context.input`` (plain  ``context.params_input``            read: renamed; written: ``params_input``
function)                                                     (what its ``Tool.run_with_timing`` writes)
no ``x-`` members         ``x-`` extensions                   written: dropped; read: absent
========================  ==================================  ===========================================

So ``from_helloagents(to_helloagents(r))`` is ``r`` less ``details``,
``retryable``, ``retry_after_ms`` and ``x-`` members, with ``time_ms``
rounded; everything HelloAgents writes is read without loss, its
``ToolResponse`` objects too (through their ``to_dict()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import error_info_of
from ._shape import Shape, record_schema

__all__ = ["HELLOAGENTS_SHAPE", "from_helloagents", "to_helloagents", "wire_from_helloagents"]

_OBJECT_OR_NULL = {"type": ["object", "null"]}

HELLOAGENTS_SHAPE: dict[str, Any] = record_schema(
    "HelloAgents 1.0 ToolResponse dict",
    ["status", "text"],
    {
        "status": {"enum": ["success", "partial", "error"]},
        "text": {"type": "string"},
        "data": _OBJECT_OR_NULL,
        "error": {
            "type": ["object", "null"],
            "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        },
        "stats": {
            "type": ["object", "null"],
            "properties": {"time_ms": {"type": "number", "minimum": 0}},
        },
        "context": _OBJECT_OR_NULL,
    },
    **{
        "if": {"properties": {"status": {"const": "error"}}},
        "then": {"required": ["error"], "properties": {"error": {"type": "object"}}},
        "else": {"properties": {"error": {"type": "null"}}},
    },
)
"""One HelloAgents 1.0 / 1.0.1 ``ToolResponse.to_dict()`` (or its JSON)."""

SHAPE = Shape("helloagents", HELLOAGENTS_SHAPE)


def to_helloagents(response: ToolResponse) -> dict[str, Any]:
    """The dict HelloAgents 1.0 writes for ``response`` (see the table above for what is dropped)."""
    record: dict[str, Any] = {"status": response.status.value, "text": response.text, "data": response.data}
    info = response.error_info
    if info is not None:
        record["error"] = {"code": info.code.value, "message": info.message}
    if response.stats:
        stats = dict(response.stats)
        if "time_ms" in stats:
            stats["time_ms"] = round(stats["time_ms"])
        record["stats"] = stats
    if response.context:
        record["context"] = response.context
    return record


def wire_from_helloagents(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a HelloAgents dict known to have its shape (unchecked)."""
    wire: dict[str, Any] = {"status": record["status"], "text": record["text"]}
    data = record.get("data")
    if data:
        wire["data"] = data
    error = record.get("error")
    if error is not None:
        wire["error_info"] = error_info_of(error)
    stats = record.get("stats")
    if stats:
        wire["stats"] = stats
    context = record.get("context")
    if context:
        if "input" in context and "params_input" not in context:
            context = {
                ("params_input" if name == "input" else name): value for name, value in context.items()
            }
        wire["context"] = context
    return wire


def from_helloagents(record: Any) -> ToolResponse:
    """The ToolResponse of a HelloAgents 1.0 / 1.0.1 dict, or of its ``ToolResponse`` object (any
    object with a ``to_dict()`` method is read as the dict that method gives).

    Raises ``DialectError("helloagents", ...)`` for a record not in its shape
    (or a value that is not JSON in it), and ``ResponseValidationError`` when
    the mapped response is not valid (an error code that is not standard, an
    empty error message, ...)."""
    if not isinstance(record, Mapping) and callable(getattr(record, "to_dict", None)):
        record = record.to_dict()
    return ToolResponse.from_dict(wire_from_helloagents(SHAPE.checked(record)))
