"""``ToolResponse``: the runtime form of one tool result, always valid against the v1 schema.

The members are the generated model's, but ``stats`` and ``context`` are plain dicts, ``data`` is
never null and top-level ``x-`` members are kept in ``extensions``. Every instance is checked by
the schema itself when it is built, so ``to_dict()`` and ``to_json()`` always give a valid response.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

import orjson

from toolresponse_generated import ERROR_CODE_INFO as ERROR_CODE_INFO
from toolresponse_generated import Context as Context
from toolresponse_generated import ErrorCode as ErrorCode
from toolresponse_generated import ErrorInfo as ErrorInfo
from toolresponse_generated import Stats as Stats
from toolresponse_generated import ToolResponse as ToolResponseModel
from toolresponse_generated import ToolStatus as ToolStatus

from ._errors import ResponseValidationError
from ._violation import SchemaViolation
from .validation import is_valid, parse_ijson, to_json_data, validate
from .validation._engine import json_pointer
from .validation._jsondata import MAX_VALUE_DEPTH, NOT_PLAIN, is_unicode, plain_object_copy

_SUCCESS = ToolStatus.SUCCESS
_PARTIAL = ToolStatus.PARTIAL
_ERROR = ToolStatus.ERROR
_CORE_MEMBERS = frozenset(member.name for member in dataclasses.fields(ToolResponseModel))
_ERROR_INFO_MEMBERS = tuple(member.name for member in dataclasses.fields(ErrorInfo))
# Optional members of ErrorInfo (default None) are left out when unset; required ones never are.
_ERROR_INFO_REQUIRED = frozenset(
    member.name for member in dataclasses.fields(ErrorInfo) if member.default is dataclasses.MISSING
)
_RESPONSE_DEPTH = MAX_VALUE_DEPTH + 2
_set = object.__setattr__  # a whole instance dict at once: a response is built on every call

_MaybeObject = Mapping[str, Any] | None  # a JSON object member that may be absent


def _info_dict(info: ErrorInfo) -> dict[str, Any]:
    """``info`` as the wire has it: its unset optional members left out."""
    return {
        name: value
        for name in _ERROR_INFO_MEMBERS
        if (value := getattr(info, name)) is not None or name in _ERROR_INFO_REQUIRED
    }


def _reject(keyword: str, message: str) -> NoReturn:
    raise ResponseValidationError((SchemaViolation(pointer="", keyword=keyword, message=message),))


def _as_json(wire: dict[str, Any], *, strict: bool = False) -> dict[str, Any]:
    """``wire`` with each member made JSON (``to_json_data``; ``strict``: only what a JSON decoder
    gives), every object and array a copy the response owns; ``JsonValueError`` names the pointer."""
    converted: dict[str, Any] = {}
    for name, value in wire.items():
        # error_info is one level above its details, which get the same depth as data.
        depth = MAX_VALUE_DEPTH + 1 if name == "error_info" else MAX_VALUE_DEPTH
        made = _owned(value, depth)
        if made is NOT_PLAIN:
            made = to_json_data(value, pointer=json_pointer((name,)), strict=strict, max_depth=depth)
        converted[name] = made
    return converted


def _owned(value: Any, levels: int) -> Any:
    """A copy of ``value``, an object or array of plain JSON nesting at most ``levels`` levels (one
    walk checks and copies); else ``NOT_PLAIN``."""
    if type(value) is not dict and type(value) is not list:
        return NOT_PLAIN
    # Held by a one-member object, placed so that the value itself may nest ``levels`` levels.
    holder = plain_object_copy({"": value}, MAX_VALUE_DEPTH - levels - 1)
    return NOT_PLAIN if holder is NOT_PLAIN else holder[""]


def _members(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The instance members of a valid wire object."""
    info = wire.get("error_info")
    error_info = None
    if info is not None:
        retry_after_ms = info.get("retry_after_ms")
        error_info = ErrorInfo(
            code=ErrorCode(info["code"]),
            message=info["message"],
            details=info.get("details"),
            retryable=info.get("retryable"),
            # A JSON integer may be written 1500.0; the schema counts it an integer, and so do we.
            retry_after_ms=int(retry_after_ms) if type(retry_after_ms) is float else retry_after_ms,
        )
    return {
        "status": ToolStatus(wire["status"]),
        "text": wire["text"],
        "data": wire.get("data", {}),
        "error_info": error_info,
        "stats": wire.get("stats"),
        "context": wire.get("context"),
        "extensions": {name: value for name, value in wire.items() if name not in _CORE_MEMBERS},
    }


_T = TypeVar("_T", bound="ToolResponse")


def _instance(cls: type[_T], members: dict[str, Any]) -> _T:
    response = object.__new__(cls)
    _set(response, "__dict__", members)
    return response


def trusted_response(
    cls: type[_T],
    status: ToolStatus,
    text: str,
    data: dict[str, Any],
    stats: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
) -> _T:
    """A success or partial response from members known to be valid, unchecked (the fast path)."""
    response = object.__new__(cls)
    # Key by key into the instance's own dict: measurably cheaper than a new dict (every call).
    members = response.__dict__
    members["status"] = status
    members["text"] = text
    members["data"] = data
    members["error_info"] = None
    members["stats"] = stats
    members["context"] = context
    members["extensions"] = {}
    return response


def owned_response(response: _T) -> _T | None:
    """A copy of ``response`` (a tool's result, still held by the tool) whose objects and arrays are
    its own, or None when they are no longer plain JSON (changed since it was built)."""
    members = response.__dict__.copy()
    for name, levels in _OWNED_MEMBERS:
        value = members[name]
        if value:
            owned = _owned(value, levels)
            if owned is NOT_PLAIN:
                return None
            members[name] = owned
    info = members["error_info"]
    if info is not None and info.details is not None:
        details = _owned(info.details, MAX_VALUE_DEPTH)
        if details is NOT_PLAIN:
            return None
        members["error_info"] = dataclasses.replace(info, details=details)
    return _instance(type(response), members)


# The members that hold objects, with how deep each may nest (an extension's value is one level
# below ``extensions``).
_OWNED_MEMBERS = (
    ("data", MAX_VALUE_DEPTH),
    ("stats", MAX_VALUE_DEPTH),
    ("context", MAX_VALUE_DEPTH),
    ("extensions", MAX_VALUE_DEPTH + 1),
)


def with_call_info(
    response: _T, stats: dict[str, Any], context: dict[str, Any], *, own_call_id: bool = True
) -> _T:
    """A copy of ``response`` with ``stats`` and ``context`` merged over its own, unchecked (the
    registry's); without ``own_call_id``, the response's own ``call_id`` is dropped."""
    members = response.__dict__.copy()
    own = members["stats"]
    members["stats"] = {**own, **stats} if own else stats
    own = members["context"]
    if own and not own_call_id and "call_id" in own:
        own = {name: value for name, value in own.items() if name != "call_id"}
    members["context"] = {**own, **context} if own else context
    return _instance(type(response), members)


@dataclass(frozen=True, kw_only=True, init=False)
class ToolResponse:
    """The result of one tool call: a status, text for the model, structured data, and on error an
    ``error_info``. Build one with ``success``, ``partial`` or ``error``; immutable and valid."""

    status: ToolStatus
    """How the call ended."""
    text: str
    """What the model reads; non-empty when the status is error."""
    data: dict[str, Any] = field(default_factory=dict)
    """Structured payload for program logic (JSON); empty when absent on the wire."""
    error_info: ErrorInfo | None = None
    """Why the call failed: set exactly when the status is error."""
    stats: dict[str, Any] | None = None
    """Run statistics: ``time_ms`` (a number >= 0) and any free members."""
    context: dict[str, Any] | None = None
    """Where the response came from: ``tool_name``, ``params_input``, ``call_id`` and free members."""
    extensions: dict[str, Any] = field(default_factory=dict)
    """Top-level vendor extension members; every name begins with ``x-``."""

    def __init__(
        self,
        *,
        status: ToolStatus | str,
        text: str,
        data: Mapping[str, Any] | None = None,
        error_info: ErrorInfo | None = None,
        stats: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        wire: dict[str, Any] = {"status": status, "text": text}
        if data is not None:
            wire["data"] = data
        if error_info is not None:  # any value but an ErrorInfo is left to the schema to judge
            wire["error_info"] = _info_dict(error_info) if isinstance(error_info, ErrorInfo) else error_info
        if stats is not None:
            wire["stats"] = stats
        if context is not None:
            wire["context"] = context
        if extensions:
            if not isinstance(extensions, Mapping):
                _reject("type", "extensions must be a dict of x- members")
            for name, value in extensions.items():
                if name in _CORE_MEMBERS:
                    _reject(
                        "additionalProperties",
                        f"extension member {name!r} is a member of the response, not an extension",
                    )
                wire[name] = value
        wire = _as_json(wire)
        if not is_valid(wire):
            raise ResponseValidationError(validate(wire).errors)
        _set(self, "__dict__", _members(wire))

    @classmethod
    def success(
        cls, text: str, data: _MaybeObject = None, stats: _MaybeObject = None, context: _MaybeObject = None
    ) -> ToolResponse:
        """The task ran fully as intended."""
        return cls._without_error(_SUCCESS, text, data, stats, context)

    @classmethod
    def partial(
        cls, text: str, data: _MaybeObject = None, stats: _MaybeObject = None, context: _MaybeObject = None
    ) -> ToolResponse:
        """The result is usable but discounted (truncated, sampled, rounded): ``text`` says how."""
        return cls._without_error(_PARTIAL, text, data, stats, context)

    @classmethod
    def _without_error(
        cls, status: ToolStatus, text: str, data: _MaybeObject, stats: _MaybeObject, context: _MaybeObject
    ) -> ToolResponse:
        """Plain text and data (the common case) checked by one walk, anything else by every check."""
        if stats is None and context is None and type(text) is str and is_unicode(text):
            if data is None:
                return trusted_response(cls, status, text, {})
            if type(data) is dict:
                owned = plain_object_copy(data)
                if owned is not NOT_PLAIN:
                    return trusted_response(cls, status, text, owned)
        return cls(status=status, text=text, data=data, stats=stats, context=context)

    @classmethod
    def error(
        cls,
        code: ErrorCode | str,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        retryable: bool | None = None,
        retry_after_ms: int | None = None,
        stats: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> ToolResponse:
        """No valid result: ``code`` (an ``ErrorCode`` or its exact string) and ``message`` (also
        the ``text``) say why; ``retryable`` None means the code's default."""
        info = ErrorInfo(
            code=code,  # type: ignore[arg-type]  # a string is checked by the schema, then read as its ErrorCode
            message=message,
            details=details,  # type: ignore[arg-type]
            retryable=retryable,
            retry_after_ms=retry_after_ms,
        )
        return cls(status=_ERROR, text=message, data=data, error_info=info, stats=stats, context=context)

    @property
    def is_success(self) -> bool:
        return self.status is _SUCCESS

    @property
    def is_partial(self) -> bool:
        return self.status is _PARTIAL

    @property
    def is_error(self) -> bool:
        return self.status is _ERROR

    @property
    def code(self) -> ErrorCode | None:
        """The error code, or None when the call did not fail."""
        info = self.error_info
        return None if info is None else info.code

    @property
    def is_retryable(self) -> bool:
        """Whether a retry may succeed: ``error_info.retryable`` if set, else the code's default
        from the schema; False for a success or partial result."""
        info = self.error_info
        if info is None:
            return False
        if info.retryable is not None:
            return info.retryable
        return ERROR_CODE_INFO[info.code].retryable

    @property
    def retry_after_ms(self) -> int | None:
        """The earliest sensible retry in milliseconds, when the error says."""
        info = self.error_info
        return None if info is None else info.retry_after_ms

    def with_stats(self, **members: Any) -> ToolResponse:
        """A copy whose ``stats`` has ``members`` added or replaced; the others are kept."""
        return dataclasses.replace(self, stats={**(self.stats or {}), **members})

    def with_context(self, **members: Any) -> ToolResponse:
        """A copy whose ``context`` has ``members`` added or replaced; the others are kept."""
        return dataclasses.replace(self, context={**(self.context or {}), **members})

    def to_dict(self) -> dict[str, Any]:
        """The response as JSON data, unset members and empty ``data`` left out; nested values are
        shared with the response, not copied: do not mutate them."""
        result: dict[str, Any] = {"status": self.status.value, "text": self.text}
        if self.data:
            result["data"] = self.data
        info = self.error_info
        if info is not None:
            result["error_info"] = {**_info_dict(info), "code": info.code.value}
        if self.stats is not None:
            result["stats"] = self.stats
        if self.context is not None:
            result["context"] = self.context
        if self.extensions:
            result.update(self.extensions)
        return result

    def to_json_bytes(self) -> bytes:
        """The response as compact I-JSON, UTF-8 encoded."""
        return orjson.dumps(self.to_dict())

    def to_json(self) -> str:
        """The response as compact I-JSON text."""
        return orjson.dumps(self.to_dict()).decode("utf-8")

    @classmethod
    def from_dict(cls, obj: Any) -> ToolResponse:
        """The response the decoded JSON value ``obj`` is: ``ResponseValidationError`` for anything
        the schema rejects, ``JsonValueError`` for a value no JSON decoder gives (a tuple, NaN...)."""
        if isinstance(obj, dict) and all(type(name) is str for name in obj):
            obj = _as_json(obj, strict=True)
        else:
            obj = to_json_data(obj, strict=True, max_depth=_RESPONSE_DEPTH)
        result = validate(obj)
        if not result.valid:
            raise ResponseValidationError(result.errors)
        return _instance(cls, _members(obj))

    @classmethod
    def from_json(cls, source: str | bytes | bytearray | memoryview) -> ToolResponse:
        """The response that the JSON text ``source`` holds: ``MalformedJsonError`` for text that is
        not I-JSON, ``ResponseValidationError`` for a value the schema rejects."""
        return cls.from_dict(loads_strict(source))


loads_strict = parse_ijson
"""Parse I-JSON text: ``MalformedJsonError`` names the rule, line and column of any other text."""
