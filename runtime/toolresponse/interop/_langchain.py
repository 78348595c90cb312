"""LangChain: the ``ToolMessage`` (as a record and as the real class), and registry tools as LangChain tools.

A ``ToolMessage`` has ``status`` and ``artifact`` (kept beside the message, never sent to the
model), so nothing rides in the text: ``content`` is the model text, ``artifact`` the whole
response; a foreign artifact is kept in ``data.artifact``. ``*_dict``: the same in the form
``messages_to_dict`` saves. ``as_langchain_tools``: a registry's tools for a caller (``_offered``).
langchain-core is imported only by ``to_langchain_message`` and ``as_langchain_tools``.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .._response import ToolResponse
from ..tools._policy import LOCAL_CALLER
from ._carry import agreeing, blocks_wire, context_value, is_response_wire, record_context
from ._dialects import dialect
from ._offered import library, offered_tools
from ._text import model_text

if TYPE_CHECKING:
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool

    from ..tools._registry import ToolRegistry


_EXTRA = "'toolresponse[langchain]'"


def to_langchain(
    response: ToolResponse, *, tool_call_id: str | None = None, text: str | None = None
) -> dict[str, Any]:
    """The fields of the ``ToolMessage`` of ``response``: ``ToolMessage(**to_langchain(r))`` builds it;
    ``tool_call_id`` defaults to ``context.call_id`` (else ""), ``text`` to the model text."""
    record: dict[str, Any] = {
        "type": "tool",
        "content": model_text(response) if text is None else text,
        "tool_call_id": (context_value(response, "call_id") or "") if tool_call_id is None else tool_call_id,
        "status": "error" if response.is_error else "success",
        "artifact": response.to_dict(),
    }
    name = context_value(response, "tool_name")
    if name is not None:
        record["name"] = name
    return record


def to_langchain_message(
    response: ToolResponse, *, tool_call_id: str | None = None, text: str | None = None
) -> ToolMessage:
    """The LangChain ``ToolMessage`` of ``response`` (needs langchain-core)."""
    library("langchain_core", "to_langchain_message", _EXTRA)
    from langchain_core.messages import ToolMessage

    return ToolMessage(**to_langchain(response, tool_call_id=tool_call_id, text=text))


def wire_from_langchain(
    record: Mapping[str, Any], *, dialect: str = "langchain", at: str = ""
) -> dict[str, Any]:
    """The ToolResponse wire object of a ToolMessage record known to have its shape (unchecked);
    ``dialect`` and ``at`` (the fields' pointer) name where a contradiction is."""
    artifact = record.get("artifact")
    context = record_context(record["tool_call_id"], record.get("name"))
    if is_response_wire(artifact):
        return _agreeing(artifact, record.get("status", "success"), context, dialect, at)
    content = record["content"]
    parts = [content] if isinstance(content, str) else content
    texts = [part if isinstance(part, str) else part.get("text", "") for part in parts if _is_text(part)]
    others = [part for part in parts if not _is_text(part)]
    wire = blocks_wire(["".join(texts)], others, is_error=record.get("status") == "error", context=context)
    if artifact is not None:
        wire.setdefault("data", {})["artifact"] = artifact
    return wire


def _agreeing(
    artifact: Mapping[str, Any],
    status: str,
    context: dict[str, Any] | None,
    dialect: str = "langchain",
    at: str = "",
) -> dict[str, Any]:
    """The wire object ``artifact`` (a ToolResponse's status will do, to check it), when its status
    agrees with the message's, with the message's call id and tool name (``context``)."""
    flag = f"{at}status is {status!r}"
    return agreeing(
        dialect, artifact, is_error=status == "error", flag=flag, carrier="its artifact", context=context
    )


def _is_text(part: Any) -> bool:
    return isinstance(part, str) or (isinstance(part, Mapping) and part.get("type") == "text")


def from_langchain(record: Any) -> ToolResponse:
    """The ToolResponse of a ``ToolMessage`` or its fields; ``DialectError`` for any other record."""
    if isinstance(record, ToolResponse):
        return record
    if not isinstance(record, Mapping) and callable(getattr(record, "model_dump", None)):
        artifact = getattr(record, "artifact", None)
        if isinstance(artifact, ToolResponse):
            _agreeing({"status": artifact.status.value}, getattr(record, "status", "success"), None)
            context = record_context(getattr(record, "tool_call_id", None), getattr(record, "name", None))
            return artifact.with_context(**context) if context else artifact
        record = record.model_dump()
    return dialect("langchain").read(record)


# -- the saved form: messages_to_dict ------------------------------------------------------


def to_langchain_dict(
    response: ToolResponse, *, tool_call_id: str | None = None, text: str | None = None
) -> dict[str, Any]:
    """The saved form of the ``ToolMessage`` of ``response``, which ``messages_from_dict`` reads."""
    return {"type": "tool", "data": to_langchain(response, tool_call_id=tool_call_id, text=text)}


def wire_from_langchain_dict(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a saved ToolMessage known to have its shape (unchecked)."""
    return wire_from_langchain(record["data"], dialect="langchain-dict", at="data/")


def from_langchain_dict(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse of a ``ToolMessage`` saved by ``messages_to_dict`` (as ``from_langchain``)."""
    return dialect("langchain-dict").read(record)


# -- registry tools as LangChain tools ------------------------------------------------------

_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("toolresponse_langchain_call_id")


@contextlib.contextmanager
def _call_id(kwargs: Mapping[str, Any]) -> Iterator[None]:
    """The id of the tool call being run, for ``_run`` / ``_arun`` (LangChain does not pass it)."""
    token = _CALL_ID.set(kwargs.get("tool_call_id"))
    try:
        yield
    finally:
        _CALL_ID.reset(token)


def as_langchain_tools(registry: ToolRegistry, *, caller: str = LOCAL_CALLER) -> list[BaseTool]:
    """One LangChain tool per tool of ``registry`` that ``caller`` may see, in its order (needs
    langchain-core). A call runs through the registry as ``caller`` with the tool call's id, and
    answers ``(content, artifact)``: a tool node's ``ToolMessage`` gets the model text, the whole
    response as artifact, and ``status="error"`` for an error."""
    library("langchain_core", "as_langchain_tools", _EXTRA)
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
            with _call_id(kwargs):
                return marked(super().run(tool_input, *args, **kwargs))

        async def arun(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
            with _call_id(kwargs):
                return marked(await super().arun(tool_input, *args, **kwargs))

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
