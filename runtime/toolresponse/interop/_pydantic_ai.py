"""pydantic-ai: the ``ToolReturnPart`` (and a stored ``RetryPromptPart``), and registry tools as
pydantic-ai tools.

``content`` is the model text, ``metadata`` the whole response (never sent to the model),
``outcome`` the record's own word (``outcome_for``); a part without such metadata is an error for
any outcome but ``success``, coded as docs/migrating.md ("From pydantic-ai") tabulates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import orjson

from toolresponse_generated import ErrorCode

from .._response import ToolResponse
from ..tools._policy import DENIAL_CODES, LOCAL_CALLER
from ._carry import agreeing, is_response_wire, record_context, required
from ._dialects import dialect
from ._offered import OfferedTool, library, offered_tools
from ._outcomes import DENIED, INTERRUPTED
from ._shape import dumped
from ._text import inferred, model_text

if TYPE_CHECKING:
    from pydantic_ai import Tool

    from ..tools._registry import ToolRegistry


_OUTCOMES: Final = {outcome.name: outcome for outcome in (DENIED, INTERRUPTED)}
_NAMED: Final = (*_OUTCOMES, "retried")
"""The outcomes an error's ``details.outcome`` may name (``failed`` is every other error's)."""

_UNCOUNTED: Final = {"attempt": None, "max_retries": None}
"""The ``RetryInfo`` counts of a retry loaded from a ``RetryPromptPart`` (pydantic-ai knows none)."""

_CAUSE_CODES: Final = {
    "validation_error": ErrorCode.INVALID_PARAM,
    "unknown_tool": ErrorCode.NOT_FOUND,
    "unavailable_tool": ErrorCode.NOT_FOUND,
}


def outcome_for(response: ToolResponse) -> str:
    """The ``outcome`` of ``response``: ``success`` for a non-error; for an error the one
    ``details.outcome`` names, else ``denied`` for an access policy's denial (``details.policy``),
    ``retried`` for INVALID_PARAM (the model must correct its arguments), else ``failed``."""
    info = response.error_info
    if info is None:
        return "success"
    details = info.details or {}
    named = details.get("outcome")
    if named in _NAMED:
        return str(named)
    if info.code in DENIAL_CODES and "policy" in details:
        return "denied"
    return "retried" if info.code is ErrorCode.INVALID_PARAM else "failed"


def to_pydantic_ai(
    response: ToolResponse, *, tool_call_id: str | None = None, tool_name: str | None = None
) -> dict[str, Any]:
    """The ``ToolReturnPart`` of ``response``, as pydantic-ai writes one; ``tool_call_id`` and
    ``tool_name`` default to the response's context."""
    return {
        "part_kind": "tool-return",
        "tool_name": required(response, "tool_name", tool_name, dialect="pydantic-ai"),
        "tool_call_id": required(response, "call_id", tool_call_id, dialect="pydantic-ai"),
        "content": model_text(response),
        "metadata": response.to_dict(),
        "outcome": outcome_for(response),
    }


def wire_from_pydantic_ai(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a part known to have its shape (unchecked)."""
    content, retry = record["content"], record.get("retry")
    if record["part_kind"] == "retry-prompt":
        outcome = "retried"
        retry = None if isinstance(content, str) else {"cause": "validation_error", **_UNCOUNTED}
    else:
        outcome = record.get("outcome", "success")
    metadata = record.get("metadata")
    if is_response_wire(metadata):
        flag, is_error = f"outcome is {outcome!r}", outcome != "success"
        return agreeing("pydantic-ai", metadata, is_error=is_error, flag=flag, carrier="its metadata")
    named = _OUTCOMES.get(outcome)
    implied = named.code if named is not None else _CAUSE_CODES.get((retry or {}).get("cause", ""))
    text = content if isinstance(content, str) else orjson.dumps(content).decode()
    if named is not None and not text.strip():
        text = named.message
    context = record_context(record.get("tool_call_id"), record["tool_name"])
    wire = inferred(text, is_error=outcome != "success", context=context, implied=implied)
    if outcome not in ("success", "failed"):
        details = wire["error_info"].setdefault("details", {})
        details["outcome"] = outcome
        if retry:
            details["retry"] = retry
    data = {"content": content} if not isinstance(content, str) else {}
    if metadata is not None:
        data["metadata"] = metadata
    if data:
        wire["data"] = data
    return wire


def from_pydantic_ai(record: Any) -> ToolResponse:
    """The ToolResponse of a ``ToolReturnPart`` (or a stored ``RetryPromptPart``), its JSON or the
    part itself; ``DialectError`` for any other record."""
    return dialect("pydantic-ai").read(dumped("pydantic-ai", record))


# -- registry tools as pydantic-ai tools ----------------------------------------------------


def as_pydantic_ai_tools(registry: ToolRegistry, *, caller: str = LOCAL_CALLER) -> list[Tool[Any]]:
    """One pydantic-ai ``Tool`` per tool of ``registry`` that ``caller`` may see, in its order
    (needs pydantic-ai). A call runs through the registry as ``caller`` with the tool call's id and
    answers by ``outcome_for``: a ``ToolReturn`` with the response as ``metadata``, ``ToolFailed``,
    ``ModelRetry`` (``retried``) or ``ToolDenied``; the model text is the content."""
    library("pydantic_ai", "as_pydantic_ai_tools", "pydantic-ai-slim")
    from pydantic_ai import ModelRetry, RunContext, Tool, ToolDenied, ToolFailed
    from pydantic_ai.messages import ToolReturn

    def answer(response: ToolResponse) -> Any:
        outcome, text = outcome_for(response), model_text(response)
        if outcome == "success":
            return ToolReturn(return_value=text, metadata=response.to_dict())
        if outcome == "denied":
            return ToolDenied(text)
        raise ModelRetry(text) if outcome == "retried" else ToolFailed(text)

    def tool_of(tool: OfferedTool) -> Tool[Any]:
        async def execute(context: RunContext[Any], **arguments: Any) -> Any:
            return answer(await tool.aexecute(arguments, call_id=context.tool_call_id))

        return Tool.from_schema(execute, tool.name, tool.description, tool.parameters, takes_ctx=True)

    return [tool_of(tool) for tool in offered_tools(registry, caller=caller)]
