"""LangChain: the ``ToolMessage`` (as a record and as the real class), and registry tools as LangChain tools.

A ``ToolMessage`` has what the other chat dialects lack: ``status``
("success" | "error") and ``artifact``, any value that is kept beside the
message and never sent to the model. So nothing rides in the text here:

- ``to_langchain(response)`` gives the message's fields as a dict
  (``ToolMessage(**record)`` builds it; ``to_langchain_message`` does that for
  you): ``content`` the model text, ``status`` "error" exactly for an error
  (a partial result is "success" with its ``PARTIAL:`` prefix: LangChain has no
  partial state), ``artifact`` the whole response as JSON, ``name`` the tool.
- ``from_langchain(record)`` reads such a dict or a ``ToolMessage`` itself: an
  ``artifact`` that is a ToolResponse (an object with ``status`` and ``text``)
  is the response, exactly, when its status agrees with the message's own
  ``status`` (absent: "success"; an error exactly for "error"): one that
  contradicts it is refused with ``DialectError`` at ``/status``; otherwise
  the content is read as its text, an error when ``status`` is "error" (coded
  as every dialect codes an error's text: ``_text``), a
  foreign artifact is kept in ``data.artifact``, and content blocks that are
  not text in ``data.blocks``.
- ``to_langchain_dict`` / ``from_langchain_dict``: the same fields in the form
  ``messages_to_dict`` saves a message in (``{"type": "tool", "data": {...}}``),
  which ``messages_from_dict`` reads; a contradiction is at ``/data/status``.
- ``as_langchain_tools(registry, caller=...)`` gives one LangChain ``BaseTool``
  per tool that caller may see (``LOCAL_CALLER`` by default, as the agent's own
  calls: ``_offered``): each call goes through the registry as that caller
  (access policies, parameters checked, breaker, timeouts, listeners), and a
  tool node gets a ``ToolMessage`` with the status and the artifact above.

langchain-core is imported only by ``to_langchain_message`` and
``as_langchain_tools``.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from .._response import ToolResponse
from ..tools._policy import LOCAL_CALLER
from ._carry import agreeing, context_value, is_response_wire
from ._offered import offered_tools
from ._shape import Shape, record_schema
from ._text import inferred, model_text

if TYPE_CHECKING:
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool

    from ..tools._registry import ToolRegistry

__all__ = [
    "LANGCHAIN_DICT_SHAPE",
    "LANGCHAIN_SHAPE",
    "as_langchain_tools",
    "from_langchain",
    "from_langchain_dict",
    "to_langchain",
    "to_langchain_dict",
    "to_langchain_message",
    "wire_from_langchain",
    "wire_from_langchain_dict",
]

LANGCHAIN_SHAPE: dict[str, Any] = record_schema(
    "LangChain ToolMessage",
    ["content", "tool_call_id"],
    {
        "type": {"const": "tool"},
        "content": {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": ["string", "object"]}},
            ]
        },
        "tool_call_id": {"type": "string"},
        "status": {"enum": ["success", "error"]},
        "artifact": {},
        "name": {"type": ["string", "null"]},
        "id": {"type": ["string", "null"]},
        "additional_kwargs": {"type": "object"},
        "response_metadata": {"type": "object"},
    },
)
"""One ``ToolMessage`` as its fields (``ToolMessage.model_dump()``, or the dict it is built from)."""

SHAPE = Shape("langchain", LANGCHAIN_SHAPE)

_Artifact = TypeVar("_Artifact")


def to_langchain(
    response: ToolResponse, *, tool_call_id: str | None = None, text: str | None = None
) -> dict[str, Any]:
    """The fields of the ``ToolMessage`` of ``response``: ``ToolMessage(**to_langchain(r))`` builds it.

    ``tool_call_id`` defaults to ``context.call_id`` ("" when there is none),
    ``text`` (the content) to ``model_text(response)``."""
    record: dict[str, Any] = {
        "type": "tool",
        "content": model_text(response) if text is None else text,
        "tool_call_id": (context_value(response, "call_id") or "") if tool_call_id is None else tool_call_id,
        "status": "error" if response.is_error else "success",
        "artifact": response.to_dict(),
    }
    name = (response.context or {}).get("tool_name")
    if isinstance(name, str):
        record["name"] = name
    return record


LANGCHAIN_EXTRA_HINT = "install langchain-core: pip install 'toolresponse[langchain]'"


def _langchain_core(what: str) -> None:
    try:
        import langchain_core  # noqa: F401  (present or not: that is the question here)
    except ImportError as error:
        raise ImportError(f"{what} needs langchain-core; {LANGCHAIN_EXTRA_HINT}") from error


def to_langchain_message(
    response: ToolResponse, *, tool_call_id: str | None = None, text: str | None = None
) -> ToolMessage:
    """The LangChain ``ToolMessage`` of ``response`` (needs langchain-core)."""
    _langchain_core("to_langchain_message")
    from langchain_core.messages import ToolMessage

    return ToolMessage(**to_langchain(response, tool_call_id=tool_call_id, text=text))


def wire_from_langchain(
    record: Mapping[str, Any], *, dialect: str = "langchain", at: str = ""
) -> dict[str, Any]:
    """The ToolResponse wire object of a ToolMessage record known to have its shape (unchecked);
    ``dialect`` and ``at`` (the fields' pointer in the record) name where a contradiction is."""
    artifact = record.get("artifact")
    if is_response_wire(artifact):
        return dict(_agreeing(artifact, record.get("status", "success"), dialect, at))
    content = record["content"]
    if isinstance(content, str):
        texts, others = [content], []
    else:
        texts = [
            part if isinstance(part, str) else part.get("text", "") for part in content if _is_text(part)
        ]
        others = [part for part in content if not _is_text(part)]
    call_id = record["tool_call_id"]
    wire = inferred(
        "".join(texts),
        is_error=record.get("status") == "error",
        context={"call_id": call_id} if call_id else None,
    )
    data: dict[str, Any] = {}
    if others:
        data["blocks"] = others
    if artifact is not None:
        data["artifact"] = artifact
    if data:
        wire["data"] = data
    name = record.get("name")
    if isinstance(name, str) and name:
        wire["context"] = {**wire.get("context", {}), "tool_name": name}
    return wire


def _agreeing(artifact: _Artifact, status: str, dialect: str = "langchain", at: str = "") -> _Artifact:
    """``artifact`` (a ToolResponse or its wire object), when its status agrees with the message's."""
    wire = {"status": artifact.status.value} if isinstance(artifact, ToolResponse) else artifact
    flag = f"{at}status is {status!r}"
    agreeing(dialect, wire, is_error=status == "error", flag=flag, carrier="its artifact")
    return artifact


def _is_text(part: Any) -> bool:
    return isinstance(part, str) or (isinstance(part, Mapping) and part.get("type") == "text")


def from_langchain(record: Any) -> ToolResponse:
    """The ToolResponse of a ``ToolMessage`` or its fields (see the module docstring).

    Raises ``DialectError("langchain", ...)`` for a record that is not a
    ToolMessage, and ``ResponseValidationError`` when its artifact is a
    ToolResponse that is not valid."""
    if isinstance(record, ToolResponse):
        return record
    if not isinstance(record, Mapping) and callable(getattr(record, "model_dump", None)):
        artifact = getattr(record, "artifact", None)
        if isinstance(artifact, ToolResponse):
            return _agreeing(artifact, getattr(record, "status", "success"))
        record = record.model_dump()
    return ToolResponse.from_dict(wire_from_langchain(SHAPE.checked(record)))


# -- the saved form: messages_to_dict ------------------------------------------------------

LANGCHAIN_DICT_SHAPE: dict[str, Any] = record_schema(
    "LangChain saved ToolMessage (messages_to_dict)",
    ["type", "data"],
    {
        "type": {"const": "tool"},
        "data": {name: value for name, value in LANGCHAIN_SHAPE.items() if name != "$schema"},
    },
)
"""One ``ToolMessage`` as ``messages_to_dict`` saves it: ``{"type": "tool", "data": its fields}``."""

DICT_SHAPE = Shape("langchain-dict", LANGCHAIN_DICT_SHAPE)


def to_langchain_dict(
    response: ToolResponse, *, tool_call_id: str | None = None, text: str | None = None
) -> dict[str, Any]:
    """The saved form of the ``ToolMessage`` of ``response`` (``to_langchain``'s fields under
    ``data``), which ``messages_from_dict`` reads."""
    return {"type": "tool", "data": to_langchain(response, tool_call_id=tool_call_id, text=text)}


def wire_from_langchain_dict(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a saved ToolMessage known to have its shape (unchecked)."""
    return wire_from_langchain(record["data"], dialect="langchain-dict", at="data/")


def from_langchain_dict(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse of a ``ToolMessage`` saved by ``messages_to_dict``, read as ``from_langchain``
    reads its fields; ``DialectError("langchain-dict", ...)`` for a record of another shape (a
    contradicting artifact at ``/data/status``)."""
    return ToolResponse.from_dict(wire_from_langchain_dict(DICT_SHAPE.checked(record)))


# -- registry tools as LangChain tools ------------------------------------------------------

_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("toolresponse_langchain_call_id")


def as_langchain_tools(registry: ToolRegistry, *, caller: str = LOCAL_CALLER) -> list[BaseTool]:
    """One LangChain tool per tool of ``registry`` that ``caller`` may see, in its order (needs
    langchain-core).

    The model is offered only those tools (``registry.list_tools(caller=caller)``: a tool the
    access policies hide from the caller is not there, nor its description or schema). Each
    tool's arguments are described by the registry's JSON Schema; a call (sync or async) runs
    through ``registry.execute`` / ``aexecute`` as ``caller``, with the tool call's id as
    ``call_id``; the tool answers ``(content, artifact)``
    (``response_format="content_and_artifact"``), so that a tool node's
    ``ToolMessage`` has the model text as content, the whole response as
    artifact, and ``status="error"`` for an error response.
    """
    _langchain_core("as_langchain_tools")
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool

    def marked(output: Any) -> Any:
        artifact = getattr(output, "artifact", None)
        if (
            isinstance(output, ToolMessage)
            and isinstance(artifact, Mapping)
            and artifact.get("status") == "error"
        ):
            output.status = "error"
        return output

    class RegistryTool(BaseTool):
        """A tool of a ToolRegistry, called through it."""

        response_format: Any = "content_and_artifact"
        offered: Any = None
        """The ``OfferedTool`` this tool calls (``offered_tools``)."""

        def run(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
            token = _CALL_ID.set(kwargs.get("tool_call_id"))
            try:
                return marked(super().run(tool_input, *args, **kwargs))
            finally:
                _CALL_ID.reset(token)

        async def arun(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
            token = _CALL_ID.set(kwargs.get("tool_call_id"))
            try:
                return marked(await super().arun(tool_input, *args, **kwargs))
            finally:
                _CALL_ID.reset(token)

        def _run(self, *args: Any, **kwargs: Any) -> tuple[str, dict[str, Any]]:
            response = self.offered.execute(kwargs, call_id=_CALL_ID.get(None))
            return model_text(response), response.to_dict()

        async def _arun(self, *args: Any, **kwargs: Any) -> tuple[str, dict[str, Any]]:
            response = await self.offered.aexecute(kwargs, call_id=_CALL_ID.get(None))
            return model_text(response), response.to_dict()

    return [
        RegistryTool(name=tool.name, description=tool.description, args_schema=tool.parameters, offered=tool)
        for tool in offered_tools(registry, caller=caller)
    ]
