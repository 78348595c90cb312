"""AutoGen: the ``FunctionExecutionResult`` of a tool call (``autogen_core.models``).

::

    {"content": "{'temp_c': 21.5}", "name": "get_weather", "call_id": "call_1", "is_error": false}

(``model_dump(mode="json")``; an item of a ``FunctionExecutionResultMessage``'s ``content``.)
``content`` is text the model reads, ``is_error`` (null: unknown) says error or not; there is no
code, no partial state and no room for data, so ``to_autogen`` writes what the OpenAI dialects
write: the model text and, unless ``carry=False``, the whole response as a trailer line bound to
the ``call_id`` (see ``_carry``), which ``from_autogen`` gives back exactly; a trailer so bound
whose status contradicts ``is_error`` is refused with ``DialectError`` at ``/is_error``, and one
that is not the model text's at ``/content``. ``name`` is ``context.tool_name`` (or the ``name``
given; without either, ``DialectError``), ``call_id`` ``context.call_id`` (or the ``call_id``
given). AutoGen allows an empty ``call_id``, but a trailer is bound to a call id: without one, a
response is written only with ``carry=False`` (``call_id`` ""), else ``DialectError``.

A record without a trailer (written by AutoGen, or whose text only ends like one) is read as its
text, an error when ``is_error`` is true, or, when it is null, when the text opens as failures do
(coded as every dialect codes an error's text: ``_text``; AutoGen's own errors begin ``Error:
``); ``call_id`` and ``name`` go to ``context``. A successful ``FunctionTool``'s text is ``str()``
of what it returned, a Python repr for a dict (``{'temp_c': 21.5}``): it stays text, never
parsed, and the response has no ``data``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import (
    TOOL_NAME,
    call_id_or_context,
    carried,
    carried_response,
    context_call_id,
    record_context,
    shown_text,
    tool_name_or_context,
)
from ._shape import Shape, dumped, record_schema
from ._text import inferred

__all__ = ["AUTOGEN_SHAPE", "from_autogen", "to_autogen", "wire_from_autogen"]

AUTOGEN_SHAPE: dict[str, Any] = record_schema(
    "AutoGen FunctionExecutionResult",
    ["content", "call_id"],
    {
        "content": {"type": "string"},
        "name": TOOL_NAME,
        "call_id": {"type": "string"},
        "is_error": {"type": ["boolean", "null"]},
    },
)
"""One ``FunctionExecutionResult`` (``name`` since autogen-core 0.4.8)."""

SHAPE = Shape("autogen", AUTOGEN_SHAPE)


def to_autogen(
    response: ToolResponse,
    *,
    name: str | None = None,
    call_id: str | None = None,
    text: str | None = None,
    carry: bool = True,
) -> dict[str, Any]:
    """The ``FunctionExecutionResult`` of ``response``, as ``model_dump(mode="json")`` writes one
    (``FunctionExecutionResult.model_validate`` builds it); ``text`` is what the model reads
    (default ``model_text(response)``; given, it needs ``carry=False``, else ``ValueError``),
    followed by the trailer unless ``carry=False``."""
    if carry:
        call_id = call_id_or_context(call_id, response, dialect="autogen", member="call_id")
    elif call_id is None:
        call_id = context_call_id(response) or ""
    return {
        "content": carried(
            shown_text(response, text, carry=carry), response if carry else None, call_id=call_id
        ),
        "name": tool_name_or_context(name, response, dialect="autogen", member="name"),
        "call_id": call_id,
        "is_error": response.is_error,
    }


def wire_from_autogen(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``FunctionExecutionResult`` known to have its shape
    (unchecked)."""
    content, is_error = record["content"], record.get("is_error")
    flag = None if is_error is None else ("is_error", is_error)
    carried = carried_response("autogen", [content], call_id=record["call_id"], flag=flag, text_at="/content")
    if carried is not None:
        return carried
    return inferred(content, is_error=is_error, context=record_context(record["call_id"], record.get("name")))


def from_autogen(record: Any) -> ToolResponse:
    """The ToolResponse of a ``FunctionExecutionResult``, as its JSON or the object itself (see the
    module docstring).

    Raises ``DialectError("autogen", ...)`` for a record that is not one, and
    ``ResponseValidationError`` when its trailer is not a valid response."""
    return ToolResponse.from_dict(wire_from_autogen(SHAPE.checked(dumped("autogen", record))))
