"""The responses the tool runtime writes itself: a function's value as a response, and the answers
of calls that went wrong, their outside text made valid Unicode, cut (``shortened``) and masked."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
from collections.abc import Mapping
from typing import Any, Final, TypeGuard

import orjson

from toolresponse_generated import ErrorCode, ToolStatus

from .._errors import JsonValueError
from .._response import ToolResponse, trusted_response
from .._suggest import shortened
from .._violation import SchemaViolation
from ..validation import to_json_data
from ..validation._jsondata import NOT_PLAIN, is_plain, plain_object_copy
from ._trace import mask_secrets, secret_values

_log = logging.getLogger("toolresponse")

_MESSAGE_LIMIT: Final = 2000
_RESPONSE_MEMBERS = frozenset(field.name for field in dataclasses.fields(ToolResponse))

Success = tuple[str, dict[str, Any]]
"""The ``text`` and ``data`` of a plain function's success, not built into a response yet."""


def is_response(value: Any) -> TypeGuard[ToolResponse]:
    """Whether ``value`` is a real ToolResponse, every member set (not ``Mock(spec=ToolResponse)``)."""
    if not issubclass(type(value), ToolResponse):
        return False
    members = getattr(value, "__dict__", None)
    return type(members) is dict and members.keys() == _RESPONSE_MEMBERS


def plain_success(value: Any) -> Success | None:
    """The text and data ``wrap_value`` gives a value that is plain JSON, else None."""
    kind = type(value)
    if value is None:
        return "null", {"output": None}
    if kind is bool:
        return "true" if value else "false", {"output": value}
    if (kind is str or kind is int) and is_plain(value, 0, 1):
        return value if kind is str else str(value), {"output": value}
    if kind is dict:
        data = plain_object_copy(value)  # a copy: the function changing its dict later changes nothing
        if data is not NOT_PLAIN:
            return orjson.dumps(data).decode("utf-8"), data
    return None


def wrap_value(value: Any) -> ToolResponse:
    """A plain function's value as a response: a ToolResponse as it is; a mapping as ``data``;
    anything else as ``data`` ``{"output": value}``; ``text`` the value when it is a string, else
    its JSON. A value that is not JSON raises ``JsonValueError`` (pointer under ``/data``)."""
    if is_response(value):
        return value
    plain = plain_success(value)
    if plain is not None:
        return trusted_response(ToolResponse, ToolStatus.SUCCESS, *plain)
    if isinstance(value, Mapping):
        data = to_json_data(value, pointer="/data")
        return ToolResponse.success(orjson.dumps(data).decode("utf-8"), data)
    output = to_json_data(value, pointer="/data/output")
    text = output if type(output) is str else orjson.dumps(output).decode("utf-8")
    return ToolResponse.success(text, {"output": output})


def wrap_sync_value(tool: str, value: Any) -> ToolResponse:
    """``wrap_value`` of a synchronous call's value; an awaitable is closed and refused."""
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:
            close()
        raise TypeError(f"{tool} returned an awaitable from a synchronous call")
    return wrap_value(value)


def params_input_of(params: Any) -> Any:
    """``params`` as JSON for ``context.params_input``, or None when it cannot be."""
    if params is None:
        return {}
    if type(params) is dict:
        record = plain_object_copy(params)
        if record is not NOT_PLAIN:
            return record
    if isinstance(params, bytes | bytearray):
        params = bytes(params).decode("utf-8", "replace")
    if isinstance(params, str):
        return shortened(params, 10_000)
    try:
        return to_json_data(params)
    except JsonValueError:
        return None


def masked_error(response: ToolResponse, params: Any) -> ToolResponse:
    """An error answer masked, the values of the call's secret-named ``params`` among its secrets."""
    if isinstance(params, str):
        with contextlib.suppress(orjson.JSONDecodeError):
            params = orjson.loads(params)
    record = response.to_dict()
    masked = mask_secrets(record, secret_values(params))
    return response if masked == record else ToolResponse.from_dict(masked)


def _error(code: ErrorCode, text: str, **details: Any) -> ToolResponse:
    return ToolResponse.error(code, text, details=details)


def _described(error: BaseException, mask: bool) -> tuple[str, str]:
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    try:
        message = str(error)
    except Exception:  # an exception whose __str__ itself fails
        message = ""
    message = shortened(str.__str__(message), _MESSAGE_LIMIT)  # a str subclass from __str__ becomes a str
    return shortened(name, 200), mask_secrets(message) if mask else message


def _violations(violations: tuple[SchemaViolation, ...], root: str) -> tuple[str, list[dict[str, Any]]]:
    """The violations as text (the first five) and as JSON."""
    shown = "; ".join(f"{v.pointer or root}: {shortened(v.message, 300)}" for v in violations[:5])
    if len(violations) > 5:
        shown += f"; and {len(violations) - 5} more"
    return shown, [{**v.to_dict(), "message": shortened(v.message, 500)} for v in violations]


def invalid_params(tool: str, violations: tuple[SchemaViolation, ...]) -> ToolResponse:
    """INVALID_PARAM naming each violation of the parameters schema."""
    text, found = _violations(violations, "(arguments)")
    message = f"Invalid arguments for tool {tool!r}: {text}. Fix the arguments and call again."
    return _error(ErrorCode.INVALID_PARAM, message, reason="schema", violations=found)


def unreadable_params(tool: str, reason: str, detail: str) -> ToolResponse:
    """INVALID_PARAM for parameters that are not one JSON object."""
    text = f"Invalid arguments for tool {tool!r}: {detail}. Send the arguments as one JSON object."
    return _error(ErrorCode.INVALID_PARAM, shortened(text, _MESSAGE_LIMIT), reason=reason)


def output_violation(tool: str, violations: tuple[SchemaViolation, ...]) -> ToolResponse:
    """EXECUTION_ERROR for data that breaks the tool's output schema."""
    located = tuple(dataclasses.replace(v, pointer="/data" + v.pointer) for v in violations)
    text, found = _violations(located, "/data")
    message = f"Tool {tool!r} returned data that breaks its output schema: {text}."
    return _error(ErrorCode.EXECUTION_ERROR, message, reason="output_schema", violations=found)


def not_a_response(tool: str, value: Any) -> ToolResponse:
    kind = type(value).__name__
    message = f"Tool {tool!r} returned {kind}, not a ToolResponse."
    return _error(ErrorCode.EXECUTION_ERROR, message, reason="not_a_tool_response", type=shortened(kind, 200))


def changed_response(tool: str) -> ToolResponse:
    message = (
        f"Tool {tool!r} returned a ToolResponse whose values it changed after building it"
        " into values that are not JSON."
    )
    return _error(ErrorCode.EXECUTION_ERROR, message, reason="changed_response")


def execution_error(tool: str, error: BaseException, *, mask: bool = True) -> ToolResponse:
    """EXECUTION_ERROR for an exception the tool raised: its type and message in details."""
    kind, message = _described(error, mask)
    details: dict[str, Any] = {"exception": kind, "message": message}
    if isinstance(error, JsonValueError):
        details.update(reason="not_json", pointer=error.pointer)
    text = f"Tool {tool!r} failed: {kind}: {message}" if message else f"Tool {tool!r} failed: {kind}"
    return _error(ErrorCode.EXECUTION_ERROR, text, **details)


def internal_error(tool: str, error: BaseException, *, mask: bool = True) -> ToolResponse:
    """INTERNAL_ERROR for a bug in this runtime (not in the tool), logged."""
    kind, message = _described(error, mask)
    _log.error("internal error while calling tool %r", tool, exc_info=error)
    text = f"Internal error in the tool runtime while calling {tool!r}: {kind}: {message}".rstrip(": ")
    return _error(ErrorCode.INTERNAL_ERROR, text, exception=kind, message=message)


def timeout_error(tool: str, timeout_s: float, *, waiting_for_thread: int | None = None) -> ToolResponse:
    """TIMEOUT; with ``waiting_for_thread`` (the tool's thread cap), the call never started."""
    if waiting_for_thread is None:
        message = f"Tool {tool!r} did not finish within {timeout_s:g} s."
        return _error(ErrorCode.TIMEOUT, message, timeout_s=timeout_s)
    message = (
        f"Tool {tool!r} did not start within {timeout_s:g} s: its threads (at most"
        f" {waiting_for_thread}) were busy with earlier calls. It will not run this call."
    )
    return _error(
        ErrorCode.TIMEOUT, message, timeout_s=timeout_s, reason="not_started", max_threads=waiting_for_thread
    )
