"""The MCP binding's mapping, written once: ToolResponse <-> MCP ``CallToolResult``, as plain data.

``docs/mcp-binding.md`` is the normative text: one text block (the model text), ``structuredContent``
the data of a non-error, ``isError``, the rest of the response in ``_meta[MCP_META_KEY]`` and an
error's ToolFailure member (SEP-3313) in ``_meta[TOOL_FAILURE_KEY]``; a result without our key is
read from its ToolFailure member or its text. Nothing here imports the MCP SDK; ``clock`` gives
seconds since the Unix epoch (for ``retryNotBefore``).
"""

from __future__ import annotations

import dataclasses
import math
import re
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Final

from toolresponse_generated import (
    ERROR_CODE_INFO,
    TOOL_FAILURE_CODES,
    TOOL_FAILURE_SHAPE,
    ErrorCode,
    ErrorInfo,
    ToolFailureClass,
    ToolStatus,
)

from .._errors import DialectError, ResponseValidationError
from .._response import ToolResponse
from .._violation import SchemaViolation
from ._carry import agreeing, context_value, text_parts
from ._dialects import dialect
from ._shape import Shape
from ._text import CODES, infer_code, model_text, stated_text, text_error

MCP_META_KEY: Final = "dev.toolresponse/response"
"""The ``_meta`` key of the whole response: reverse DNS of the schema's ``$id`` host
(``toolresponse.dev``), then ``/response``."""

TOOL_FAILURE_KEY: Final = "io.modelcontextprotocol/toolFailure"
"""The ``_meta`` key of the MCP ToolFailure member of an error result: an open MCP proposal
(SEP-3313, schema draft in modelcontextprotocol PR #3312), not yet part of MCP."""

PARTIAL_MARKER: Final = "[partial result] "
"""How the text block of a partial result begins, for clients that do not read ``_meta``."""

STRUCTURED_MEMBER: Final = "result"
"""The ``data`` member that holds a ``structuredContent`` that is not a JSON object (as the MCP
Python SDK wraps a tool's non-object return value)."""

CONTENT_MEMBER: Final = "mcp_content"
"""The ``data`` member that keeps the blocks that are not text (image, audio, resource, resource
link), each exactly as the server sent it."""

_DIALECT = "mcp"

_RELIABILITY: Final = ToolFailureClass.RELIABILITY.value
_SAFE_INTEGER: Final = 2**53 - 1
"""The latest ``retryNotBefore``: an exact integer in every JSON reader (``TOOL_FAILURE_SHAPE``'s
maximum)."""


# -- ToolResponse -> CallToolResult ----------------------------------------------------------


def to_mcp(response: ToolResponse, *, clock: Callable[[], float] = time.time) -> dict[str, Any]:
    """The ``CallToolResult`` (wire JSON) that carries ``response``; ``from_mcp`` gives it back."""
    wire = response.to_dict()
    is_error = response.status is ToolStatus.ERROR
    # An error's data (rare) rides in _meta: it is not the tool's output, and clients check
    # structuredContent against the tool's outputSchema even on errors (the TypeScript SDK does).
    meta = {name: value for name, value in wire.items() if name != "text" and (is_error or name != "data")}
    text = response.text
    if response.status is ToolStatus.PARTIAL:
        text = PARTIAL_MARKER + text
    elif is_error:
        text = model_text(response)  # a client that reads only the text still reads the code
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if not is_error:
        result["structuredContent"] = response.data
    result["isError"] = is_error
    result["_meta"] = {MCP_META_KEY: meta}
    if response.error_info is not None:
        result["_meta"][TOOL_FAILURE_KEY] = _tool_failure(response, response.error_info, clock)
    return result


def _tool_failure(response: ToolResponse, info: ErrorInfo, clock: Callable[[], float]) -> dict[str, Any]:
    """The ToolFailure member of an error (docs/mcp-binding.md): class ``reliability`` whenever the
    response is retryable (the proposal retries nothing else), a UUID4 without a call id."""
    entry = ERROR_CODE_INFO[info.code].mcp_tool_failure
    retryable = response.is_retryable
    kind = _RELIABILITY if retryable else entry.failure_class.value
    failure: dict[str, Any] = {"class": kind, "code": entry.code}
    if kind == _RELIABILITY:
        failure["retryable"] = retryable
        if retryable and info.retry_after_ms is not None:
            failure["retryNotBefore"] = min(_now_ms(clock) + info.retry_after_ms, _SAFE_INTEGER)
    failure["correlationId"] = context_value(response, "call_id") or str(uuid.uuid4())
    return failure


def _now_ms(clock: Callable[[], float]) -> int:
    """The clock's time in milliseconds, rounded (not floored: milliseconds made seconds come back)."""
    return round(clock() * 1000)


# -- CallToolResult -> ToolResponse ----------------------------------------------------------


_META_POINTER: Final = "/_meta/" + MCP_META_KEY.replace("~", "~0").replace("/", "~1")


def from_mcp(
    record: Mapping[str, Any], *, shape_known: bool = False, clock: Callable[[], float] = time.time
) -> ToolResponse:
    """The ToolResponse that the ``CallToolResult`` ``record`` (wire JSON) carries; ``DialectError``
    for a record that is not one or makes no valid response (pointers into the record).
    ``shape_known=True``: the caller vouches for the shape (the MCP SDK checked it)."""
    wire = wire_from_mcp(record if shape_known else dialect(_DIALECT).shape.checked(record), clock=clock)
    try:
        return ToolResponse.from_dict(wire)
    except ResponseValidationError as error:
        located = tuple(
            dataclasses.replace(violation, pointer=_relocated(violation.pointer))
            for violation in error.errors
        )
        raise DialectError(_DIALECT, located) from None


def wire_from_mcp(record: Mapping[str, Any], *, clock: Callable[[], float] = time.time) -> dict[str, Any]:
    """The ToolResponse wire object of a ``CallToolResult`` already known to have its shape
    (unchecked). A result whose ``resultType`` is ``input_required`` is refused (``DialectError``
    at ``/resultType``): the server asks for more input, so it is not the call's outcome."""
    if record.get("resultType") == _INPUT_REQUIRED:
        raise DialectError(_DIALECT, (_NOT_AN_OUTCOME,))
    texts, others = text_parts(record["content"], "text")
    data = _data(record.get("structuredContent"), others)
    meta = record.get("_meta")
    carried = meta.get(MCP_META_KEY) if meta else None
    is_error = record.get("isError", False)
    if carried is not None:
        wire = _carried(carried, texts, data)
        flag = f"isError is {str(is_error).lower()}"
        return agreeing(
            _DIALECT, wire, is_error=is_error is True, flag=flag, carrier=f"_meta[{MCP_META_KEY!r}]"
        )
    text = "\n".join(texts)
    if is_error:
        return _error(text, data, meta, clock)
    if text.startswith(PARTIAL_MARKER):
        return {"status": "partial", "text": text[len(PARTIAL_MARKER) :], "data": data}
    return {"status": "success", "text": text, "data": data}


_INPUT_REQUIRED: Final = "input_required"
_NOT_AN_OUTCOME: Final = SchemaViolation(
    pointer="/resultType",
    keyword="const",
    message=(
        f"{_DIALECT} record: resultType is {_INPUT_REQUIRED!r}: the server asks for more input before"
        " the tool answers, so the record is not the call's outcome (ToolResponse has no status for a"
        " call still waiting); read the result that completes the call (resultType 'complete' or absent)"
    ),
)


def _carried(carried: Any, texts: list[str], data: dict[str, Any]) -> dict[str, Any]:
    """The response a ToolResponse server sent: its ``_meta`` member with text and data put back."""
    if not isinstance(carried, dict):  # decoded JSON: objects are dicts
        message = f"{MCP_META_KEY} holds {type(carried).__name__}, not a ToolResponse object"
        raise DialectError(
            _DIALECT, (SchemaViolation(pointer=_META_POINTER, keyword="type", message=message),)
        )
    wire = dict(carried)
    text = texts[0] if texts else ""
    info = wire.get("error_info")
    if text.startswith(PARTIAL_MARKER) and wire.get("status") == "partial":
        text = text[len(PARTIAL_MARKER) :]
    elif (
        isinstance(info, dict) and isinstance(info.get("code"), str) and isinstance(info.get("message"), str)
    ):
        text = stated_text(text, info["code"], info["message"])
    wire["text"] = text
    if data:
        own = wire.get("data")
        wire["data"] = {**data, **own} if isinstance(own, dict) else data
    return wire


def _relocated(pointer: str) -> str:
    """A pointer into the rebuilt response, as a pointer into the record."""
    if pointer == "/text" or pointer.startswith("/text/"):
        return "/content/0/text"
    if pointer == "/data" or pointer.startswith("/data/"):
        return "/structuredContent" + pointer[len("/data") :]
    return _META_POINTER + pointer


def _data(structured: Any, others: list[dict[str, Any]]) -> dict[str, Any]:
    """``data`` from ``structuredContent`` and the blocks that are not text."""
    if structured is None:
        data: dict[str, Any] = {}
    elif isinstance(structured, dict) and CONTENT_MEMBER not in structured:
        data = dict(structured) if others else structured  # the record's own object, when unchanged
    else:
        data = {STRUCTURED_MEMBER: structured}
    if others:
        data[CONTENT_MEMBER] = others
    return data


# -- errors: the ToolFailure member, or a code inferred from the text ------------------------

_FAILURE_SHAPE: Final = Shape(_DIALECT, TOOL_FAILURE_SHAPE)
_FAILURE_POINTER: Final = "/_meta/" + TOOL_FAILURE_KEY.replace("~", "~0").replace("/", "~1")
_SHOWN_VIOLATIONS: Final = 5
_BY_CLASS: Final = {
    # The code of a ToolFailure whose code is none of ours, by its class.
    ToolFailureClass.CAPABILITY.value: ErrorCode.EXECUTION_ERROR,
    ToolFailureClass.RELIABILITY.value: ErrorCode.EXECUTION_ERROR,  # retryable as the failure says
    ToolFailureClass.GOVERNANCE.value: ErrorCode.PERMISSION_DENIED,
}


def _failure_code(failure: Mapping[str, Any]) -> tuple[ErrorCode, dict[str, Any]]:
    """The code a well-formed ToolFailure stands for, and what ``details`` says of where it came
    from: the schema's table, one of ours (any case, ``-`` for ``_``), its words, else its class."""
    code: str = failure["code"]
    known = TOOL_FAILURE_CODES.get(code) or CODES.get(code.strip().upper().replace("-", "_"))
    if known is not None:
        return known, {"code_from": "tool_failure.code"}
    inferred = infer_code(code.replace("_", " "))
    if inferred is not None:
        return inferred[0], {"code_from": "tool_failure.code", "inferred": True, "signal": inferred[1]}
    return _BY_CLASS[failure["class"]], {"code_from": "tool_failure.class"}


def _ignored(failure: Any) -> list[dict[str, Any]] | None:
    """Why the ToolFailure member ``failure`` is not read (its first violations); None: well-formed."""
    found = _FAILURE_SHAPE.violations(failure)
    if not found:
        return None
    return [
        {
            "pointer": _FAILURE_POINTER + violation.pointer,
            "keyword": violation.keyword,
            "message": violation.message,
        }
        for violation in found[:_SHOWN_VIOLATIONS]
    ]


def _error(
    text: str, data: dict[str, Any], meta: Mapping[str, Any] | None, clock: Callable[[], float]
) -> dict[str, Any]:
    """Status error for a third-party ``isError`` result: coded from its well-formed ToolFailure
    member, else from its text (``text_error``); the member is kept in ``details.tool_failure``."""
    read = text_error(text, is_error=True)
    assert read is not None  # an error flag always makes an error
    details: dict[str, Any] = {"source": "mcp"}
    info: dict[str, Any] = {"message": read.message, "details": details}
    failure = meta.get(TOOL_FAILURE_KEY) if meta else None
    ignored = None if failure is None else _ignored(failure)
    if failure is not None:
        details["tool_failure"] = failure
    if failure is not None and ignored is None:
        code, source = _failure_code(failure)
        details.update(source)
        # The proposal lets a client retry only a reliability failure that says it is retryable.
        retryable = failure["class"] == _RELIABILITY and failure.get("retryable") is True
        if retryable is not ERROR_CODE_INFO[code].retryable:
            info["retryable"] = retryable
        not_before = failure.get("retryNotBefore")
        if retryable and not_before is not None:
            info["retry_after_ms"] = max(0, math.ceil(not_before - _now_ms(clock)))
    else:
        code = read.code
        if ignored is not None:
            details["tool_failure_ignored"] = ignored
        details.update(read.source)
    wire: dict[str, Any] = {"status": "error", "text": read.text, "error_info": {"code": code.value, **info}}
    if data:
        wire["data"] = data
    return wire


# -- JSON-RPC errors answering tools/call ----------------------------------------------------

_JSONRPC_CODES: Final[dict[float, ErrorCode]] = {
    -32601: ErrorCode.NOT_FOUND,  # method not found
    -32603: ErrorCode.INTERNAL_ERROR,  # internal error
    -32700: ErrorCode.INTERNAL_ERROR,  # parse error
    -32600: ErrorCode.INTERNAL_ERROR,  # invalid request
}
_INVALID_PARAMS: Final = -32602
_UNKNOWN_TOOL = re.compile(r"(?i)unknown tool|tool .*not found|no tool|not found")


def from_mcp_error(error: Mapping[str, Any], *, tool: str | None = None) -> ToolResponse:
    """The response for a JSON-RPC error object (``code``, ``message``, ``data``) that answered
    ``tools/call``: invalid params -> INVALID_PARAM (NOT_FOUND naming an unknown tool), method not
    found -> NOT_FOUND, internal, parse or request error -> INTERNAL_ERROR, else EXECUTION_ERROR."""
    number = error.get("code")
    text = error.get("message")
    message = text if isinstance(text, str) and text.strip() else "The MCP server answered with an error."
    if number == _INVALID_PARAMS:
        code = ErrorCode.NOT_FOUND if _UNKNOWN_TOOL.search(message) else ErrorCode.INVALID_PARAM
    else:
        known = _JSONRPC_CODES.get(number) if isinstance(number, (int, float)) else None
        code = known or ErrorCode.EXECUTION_ERROR
    details: dict[str, Any] = {"source": "mcp", "jsonrpc_code": number if isinstance(number, int) else None}
    if "data" in error:
        details["jsonrpc_data"] = error["data"]
    context = {"tool_name": tool} if tool else None
    prefix = f"MCP server error for tool {tool!r}: " if tool else "MCP server error: "
    return ToolResponse.error(code, prefix + message, details=details, context=context)
