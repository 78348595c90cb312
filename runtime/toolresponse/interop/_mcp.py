"""The MCP binding's mapping, written once: ToolResponse <-> MCP ``CallToolResult``, as plain data.

``to_mcp(response)`` is the ``CallToolResult`` (JSON, camelCase as on the wire)
that a server sends for a response; ``from_mcp(record)`` is the response a
client reads from any server's ``CallToolResult``; ``from_mcp_error(error)``
is the response for a JSON-RPC error answering ``tools/call``. Nothing here
imports the MCP SDK: the faces (``toolresponse.mcp``) turn the SDK's models
into dicts (``model_dump(by_alias=True)``) and back.

``docs/mcp-binding.md`` is the normative text; in short:

* ``content`` is one text block (``text``; a partial result's begins with
  ``PARTIAL_MARKER``; an error's is its model text, ``ERROR <CODE>: <message>``
  and the text, so that a client that reads only the text keeps the code;
  ``from_mcp`` takes the marker or the header out again); ``structuredContent`` is ``data`` for a success or a
  partial result, always (``{}`` when empty), and absent for an error;
  ``isError`` is true exactly for status error; ``_meta[MCP_META_KEY]`` holds
  the rest of the response (status, error_info, stats, context, x- members,
  and an error's data), so that ``from_mcp(to_mcp(r)) == r``.
* A result without that key: success (or partial, when its first text block
  begins with the marker), text from the text blocks, data from
  ``structuredContent`` (a value that is not an object under
  ``STRUCTURED_MEMBER``), other blocks kept under ``CONTENT_MEMBER``; an error
  is coded from a structured failure in ``_meta`` (the ToolFailure proposal's
  shape) when present, else from its text as every dialect reads an error's text
  (``_text.text_error``: the code it states at its start, else the one its words
  signal, ``infer_code``), else EXECUTION_ERROR, the original text kept but for a
  stated code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from toolresponse_generated import ErrorCode, ToolStatus

from .._errors import DialectError, ResponseValidationError
from .._response import ToolResponse
from .._violation import SchemaViolation
from ._carry import agreeing
from ._shape import Shape
from ._text import infer_code, model_text, stated_text, text_error

__all__ = [
    "CONTENT_MEMBER",
    "MCP_META_KEY",
    "MCP_RESULT_SHAPE",
    "PARTIAL_MARKER",
    "STRUCTURED_MEMBER",
    "TOOL_FAILURE_KEY",
    "from_mcp",
    "from_mcp_error",
    "to_mcp",
    "wire_from_mcp",
]

MCP_META_KEY: Final = "dev.toolresponse/response"
"""The ``_meta`` key of the whole response: reverse DNS of the schema's ``$id`` host
(``toolresponse.dev``), then ``/response``."""

TOOL_FAILURE_KEY: Final = "toolFailure"
"""The last segment of a ``_meta`` key holding a structured failure (the MCP ToolFailure
proposal): ``io.example/toolFailure``, or the bare name."""

PARTIAL_MARKER: Final = "[partial result] "
"""How the text block of a partial result begins, for clients that do not read ``_meta``."""

STRUCTURED_MEMBER: Final = "result"
"""The ``data`` member that holds a ``structuredContent`` that is not a JSON object (as the MCP
Python SDK wraps a tool's non-object return value)."""

CONTENT_MEMBER: Final = "mcp_content"
"""The ``data`` member that keeps the blocks that are not text (image, audio, resource, resource
link), each exactly as the server sent it."""

_DIALECT = "mcp"

# What each kind of block must hold. The kinds exclude each other, so the rules are one chain of
# if/then/else (a text block, by far the most common, is matched at the first test) rather than
# an allOf of independent if/then pairs that every block would go through.
_BLOCK_RULES: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = (
    (
        {"const": "text"},
        {"required": ["text"], "properties": {"text": {"type": "string"}}},
    ),
    (
        {"enum": ["image", "audio"]},
        {
            "required": ["data", "mimeType"],
            "properties": {"data": {"type": "string"}, "mimeType": {"type": "string"}},
        },
    ),
    (
        {"const": "resource_link"},
        {
            "required": ["uri", "name"],
            "properties": {"uri": {"type": "string"}, "name": {"type": "string"}},
        },
    ),
    (
        {"const": "resource"},
        {
            "required": ["resource"],
            "properties": {
                "resource": {"type": "object", "required": ["uri"], "properties": {"uri": {"type": "string"}}}
            },
        },
    ),
)


def _chained(rules: tuple[tuple[dict[str, Any], dict[str, Any]], ...]) -> dict[str, Any]:
    kind, then = rules[0]
    chain: dict[str, Any] = {"if": {"properties": {"type": kind}}, "then": then}
    if len(rules) > 1:
        chain["else"] = _chained(rules[1:])
    return chain


_BLOCK = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"type": "string"}, "_meta": {"type": "object"}},
    **_chained(_BLOCK_RULES),
}

MCP_RESULT_SHAPE: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://toolresponse.dev/schema/v1/interop/mcp-call-tool-result.schema.json",
    "title": "MCP CallToolResult",
    "description": "One MCP tools/call result (revision 2026-07-28; earlier revisions are a subset).",
    "type": "object",
    "required": ["content"],
    "properties": {
        "content": {"type": "array", "items": _BLOCK},
        "structuredContent": True,
        "isError": {"type": "boolean"},
        "resultType": {"enum": ["complete", "input_required"]},
        "_meta": {"type": "object"},
    },
}
"""JSON Schema 2020-12 of one ``CallToolResult`` record: what ``from_mcp`` accepts."""


# -- ToolResponse -> CallToolResult ----------------------------------------------------------


def to_mcp(response: ToolResponse) -> dict[str, Any]:
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
    return result


# -- CallToolResult -> ToolResponse ----------------------------------------------------------


SHAPE: Final = Shape(_DIALECT, MCP_RESULT_SHAPE)
_META_POINTER: Final = "/_meta/" + MCP_META_KEY.replace("~", "~0").replace("/", "~1")


def from_mcp(record: Mapping[str, Any], *, shape_known: bool = False) -> ToolResponse:
    """The ToolResponse that the ``CallToolResult`` ``record`` (wire JSON) carries.

    Raises ``DialectError("mcp", violations)`` for a record that is not a valid
    ``CallToolResult`` (``MCP_RESULT_SHAPE``), or whose ``_meta[MCP_META_KEY]`` does not
    make a valid ToolResponse (each violation's pointer then points into the record).

    ``shape_known=True`` is for a caller that vouches for the record's shape: decoded JSON
    already checked as a ``CallToolResult`` (the MCP SDK's validated result, rebuilt as a
    dict). The shape check is then skipped; the response the record makes is checked all the
    same, so a server's bad ``_meta`` is still a ``DialectError``.
    """
    wire = wire_from_mcp(record if shape_known else SHAPE.checked(record))
    try:
        return ToolResponse.from_dict(wire)
    except ResponseValidationError as error:
        located = tuple(
            SchemaViolation(
                pointer=_relocated(violation.pointer, _META_POINTER),
                keyword=violation.keyword,
                message=violation.message,
                schema_path=violation.schema_path,
            )
            for violation in error.errors
        )
        raise DialectError(_DIALECT, located) from None


def wire_from_mcp(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``CallToolResult`` already known to have its shape
    (unchecked: ``from_mcp`` checks both sides; ``validate --from mcp`` checks the result).

    It runs once per record of ``validate --from mcp``: the common case (one text block, an
    object or nothing as ``structuredContent``) takes no detour."""
    content = record["content"]
    others: list[dict[str, Any]] = []
    if len(content) == 1 and content[0]["type"] == "text":
        texts = [content[0]["text"]]
    else:
        texts = []
        for block in content:
            if block["type"] == "text":
                texts.append(block["text"])
            else:
                others.append(block)
    structured = record.get("structuredContent")
    if structured is None and not others:
        data: dict[str, Any] = {}
    elif not others and isinstance(structured, dict) and CONTENT_MEMBER not in structured:
        data = structured  # the record's own object, unchanged
    else:
        data = _data(structured, others)
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
        return _error(text, data, _failure_of(meta or {}))
    if text.startswith(PARTIAL_MARKER):
        return {"status": _PARTIAL, "text": text[len(PARTIAL_MARKER) :], "data": data}
    return {"status": "success", "text": text, "data": data}


_PARTIAL: Final = ToolStatus.PARTIAL.value


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
    if text.startswith(PARTIAL_MARKER) and wire.get("status") == _PARTIAL:
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


def _relocated(pointer: str, where: str) -> str:
    """A pointer into the rebuilt response, as a pointer into the record."""
    if pointer == "/text" or pointer.startswith("/text/"):
        return "/content/0/text"
    if pointer == "/data" or pointer.startswith("/data/"):
        return "/structuredContent" + pointer[len("/data") :]
    return where + pointer


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


# -- errors: a structured failure, or a code inferred from the text --------------------------


def _failure_of(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """The structured failure in ``_meta`` (a ``.../toolFailure`` key holding an object), if any."""
    for key, value in meta.items():
        if (key == TOOL_FAILURE_KEY or key.endswith("/" + TOOL_FAILURE_KEY)) and isinstance(value, Mapping):
            return dict(value)
    return None


_CODES = {code.value: code for code in ErrorCode}
_FAILURE_CLASSES = {
    "governance": ErrorCode.PERMISSION_DENIED,
    "reliability": ErrorCode.EXECUTION_ERROR,
    "capability": ErrorCode.EXECUTION_ERROR,
}


def _failure_code(failure: Mapping[str, Any]) -> tuple[ErrorCode, str] | None:
    """The code a structured failure names: its ``code`` when it is one of ours (any case,
    ``-`` for ``_``), else what its code's words signal, else its class's code."""
    code = failure.get("code")
    if isinstance(code, str):
        exact = _CODES.get(code.strip().upper().replace("-", "_"))
        if exact is not None:
            return exact, "code"
        inferred = infer_code(code.replace("_", " "))
        if inferred is not None:
            return inferred[0], "code"
    kind = failure.get("class")
    if isinstance(kind, str) and kind in _FAILURE_CLASSES:
        return _FAILURE_CLASSES[kind], "class"
    return None


def _error(text: str, data: dict[str, Any], failure: dict[str, Any] | None) -> dict[str, Any]:
    """Status error for a third-party ``isError`` result: coded from the failure, else from the
    text as every dialect codes it (``text_error``: a stated code, else an inferred one)."""
    read = text_error(text, is_error=True)
    assert read is not None  # an error flag always makes an error
    details: dict[str, Any] = {"source": "mcp"}
    info: dict[str, Any] = {"message": read.message, "details": details}
    coded = _failure_code(failure) if failure is not None else None
    if failure is not None:
        details["tool_failure"] = failure
        flag = failure.get("retryable")
        if isinstance(flag, bool):
            info["retryable"] = flag
    if coded is not None:
        code, field = coded
        details["code_from"] = f"tool_failure.{field}"
    else:
        code = read.code
        details.update({"code_from": read.code_from, **read.details()})
    wire: dict[str, Any] = {"status": "error", "text": read.text, "error_info": {"code": code.value, **info}}
    if data:
        wire["data"] = data
    return wire


# -- JSON-RPC errors answering tools/call ----------------------------------------------------

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
_UNKNOWN_TOOL = re.compile(r"(?i)unknown tool|tool .*not found|no tool|not found")


def from_mcp_error(error: Mapping[str, Any], *, tool: str | None = None) -> ToolResponse:
    """The response for a JSON-RPC error object (``code``, ``message``, ``data``) that answered
    ``tools/call``: invalid params -> INVALID_PARAM (NOT_FOUND when it names an unknown tool),
    method not found -> NOT_FOUND, internal error -> INTERNAL_ERROR, anything else ->
    EXECUTION_ERROR; the server's code and message are kept in ``details``."""
    number = error.get("code")
    text = error.get("message")
    message = text if isinstance(text, str) and text.strip() else "The MCP server answered with an error."
    if number == INVALID_PARAMS:
        code = ErrorCode.NOT_FOUND if _UNKNOWN_TOOL.search(message) else ErrorCode.INVALID_PARAM
    elif number == METHOD_NOT_FOUND:
        code = ErrorCode.NOT_FOUND
    elif number in (INTERNAL_ERROR, PARSE_ERROR, INVALID_REQUEST):
        code = ErrorCode.INTERNAL_ERROR
    else:
        code = ErrorCode.EXECUTION_ERROR
    details: dict[str, Any] = {"source": "mcp", "jsonrpc_code": number if isinstance(number, int) else None}
    if "data" in error:
        details["jsonrpc_data"] = error["data"]
    context = {"tool_name": tool} if tool else None
    prefix = f"MCP server error for tool {tool!r}: " if tool else "MCP server error: "
    return ToolResponse.error(code, prefix + message, details=details, context=context)
