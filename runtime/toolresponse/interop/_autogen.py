"""AutoGen: the ``FunctionExecutionResult`` of a tool call (``autogen_core.models``).

::

    {"content": "{'temp_c': 21.5}", "name": "get_weather", "call_id": "call_1", "is_error": false}

(``model_dump(mode="json")``; an item of a ``FunctionExecutionResultMessage``'s ``content``.)
``content`` is text the model reads, ``is_error`` (null: unknown) says error or not; there is no
code, no partial state and no room for data, so ``to_autogen`` writes what the OpenAI dialects
write: the model text and, unless ``carry=False``, the whole response as a trailer line (see
``_carry``), which ``from_autogen`` gives back exactly; a trailer whose status contradicts
``is_error`` is refused with ``DialectError`` at ``/is_error``. ``name`` is ``context.tool_name``
(or the ``name`` given; without either, ``DialectError``), ``call_id`` ``context.call_id`` (""
when there is none: AutoGen allows it empty).

A record without a trailer (written by AutoGen) is read as its text, an error when ``is_error``
is true, or, when it is null, when the text opens as failures do (coded as every dialect codes an
error's text: ``_text``; AutoGen's own errors begin ``Error: ``); ``call_id`` and ``name`` go to
``context``. A successful ``FunctionTool``'s text is ``str()`` of what it returned, a Python repr
for a dict (``{'temp_c': 21.5}``): it stays text, never parsed, and the response has no ``data``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import (
    TOOL_NAME,
    agreeing,
    carried,
    context_call_id,
    record_context,
    tool_name_or_context,
    trailer_of,
)
from ._shape import Shape, dumped, record_schema
from ._text import inferred, model_text

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
    response: ToolResponse, *, name: str | None = None, text: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The ``FunctionExecutionResult`` of ``response``, as ``model_dump(mode="json")`` writes one
    (``FunctionExecutionResult.model_validate`` builds it); ``text`` is what the model reads
    (default ``model_text(response)``), followed by the trailer unless ``carry=False``."""
    return {
        "content": carried(model_text(response) if text is None else text, response if carry else None),
        "name": tool_name_or_context(name, response, dialect="autogen", member="name"),
        "call_id": context_call_id(response) or "",
        "is_error": response.is_error,
    }


def wire_from_autogen(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``FunctionExecutionResult`` known to have its shape
    (unchecked)."""
    content, is_error = record["content"], record.get("is_error")
    trailer = trailer_of(content)
    if trailer is not None:
        if is_error is None:
            return trailer  # type: ignore[no-any-return]
        flag = f"is_error is {'true' if is_error else 'false'}"
        return agreeing("autogen", trailer, is_error=is_error, flag=flag, carrier="its trailer")
    return inferred(content, is_error=is_error, context=record_context(record["call_id"], record.get("name")))


def from_autogen(record: Any) -> ToolResponse:
    """The ToolResponse of a ``FunctionExecutionResult``, as its JSON or the object itself (see the
    module docstring).

    Raises ``DialectError("autogen", ...)`` for a record that is not one, and
    ``ResponseValidationError`` when its trailer is not a valid response."""
    return ToolResponse.from_dict(wire_from_autogen(SHAPE.checked(dumped("autogen", record))))
