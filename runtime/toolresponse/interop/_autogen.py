"""AutoGen: the ``FunctionExecutionResult`` of a tool call (``autogen_core.models``).

``content`` is its only room, so ``to_autogen`` writes the model text and the trailer (``_carry``),
which needs a call id (AutoGen allows "": ``carry=False`` then). A ``FunctionTool``'s text is
``str()`` of what it returned, a Python repr: it stays text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import carried_text, context_value, required, text_wire
from ._dialects import dialect
from ._shape import dumped


def to_autogen(
    response: ToolResponse,
    *,
    name: str | None = None,
    call_id: str | None = None,
    text: str | None = None,
    carry: bool = True,
) -> dict[str, Any]:
    """The ``FunctionExecutionResult`` of ``response`` as ``model_dump(mode="json")`` writes one;
    ``name`` and ``call_id`` default to the response's context, ``text`` as ``to_anthropic``."""
    if carry:
        call_id = required(response, "call_id", call_id, dialect="autogen")
    elif call_id is None:
        call_id = context_value(response, "call_id") or ""
    return {
        "content": carried_text(response, text, call_id=call_id, carry=carry),
        "name": required(response, "tool_name", name, dialect="autogen"),
        "call_id": call_id,
        "is_error": response.is_error,
    }


def wire_from_autogen(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``FunctionExecutionResult`` known to have its shape."""
    return text_wire(
        "autogen",
        [record["content"]],
        call_id=record["call_id"],
        tool_name=record.get("name"),
        is_error=record.get("is_error"),
        text_at="/content",
    )


def from_autogen(record: Any) -> ToolResponse:
    """The ToolResponse of a ``FunctionExecutionResult``, its JSON or the object itself;
    ``DialectError`` for any other record."""
    return dialect("autogen").read(dumped("autogen", record))
