"""``ToolResponse``: the runtime form of one tool result, always valid against the v1 schema.

The members are those of the generated model (``toolresponse_generated.ToolResponse``)
with three differences that the wire format needs: ``stats`` and ``context`` are
plain dicts (the schema lets them carry free members beside ``time_ms``,
``tool_name``, ``params_input`` and ``call_id``), ``data`` is never null, and
top-level ``x-`` members (vendor extensions) are kept in ``extensions``.
``error_info`` is the generated ``ErrorInfo``.

Every instance is checked when it is built: a status that is not one of the
three, an error without ``error_info`` (or a success with one), an empty error
text or message, a code that is not one of the 15, a negative ``time_ms`` or
``retry_after_ms``, or member values that are not JSON raise
``ResponseValidationError`` naming each JSON pointer. Values are made JSON with
``to_json_data``'s documented conversions (tuples, sets, enums, datetimes ...).
So ``to_dict()`` and ``to_json()`` always give a response that validates.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from toolresponse_generated import ERROR_CODE_INFO, ErrorCode, ErrorInfo, ToolStatus

from ._errors import ResponseValidationError
from ._violation import SchemaViolation
from .validation import (
    MAX_VALUE_DEPTH,
    is_plain,
    is_unicode,
    parse_ijson,
    to_json_data,
    validate,
)

__all__ = ["ToolResponse", "loads_strict"]

_SUCCESS = ToolStatus.SUCCESS
_PARTIAL = ToolStatus.PARTIAL
_ERROR = ToolStatus.ERROR
_CODE_NAMES = tuple(code.value for code in ErrorCode)
_STATUS_NAMES = frozenset(status.value for status in ToolStatus)
_NOT_UNICODE = "the string has a lone surrogate, so it is not valid Unicode"
_EXTENSION_PREFIX = "x-"
_CORE_MEMBERS = frozenset(("status", "text", "data", "error_info", "stats", "context"))
_set = object.__setattr__


def _violation(pointer: str, keyword: str, message: str) -> SchemaViolation:
    return SchemaViolation(pointer=pointer, keyword=keyword, message=message)


def _unknown_code(code: object) -> SchemaViolation:
    hint = ""
    if isinstance(code, str):
        near = difflib.get_close_matches(code.upper(), _CODE_NAMES, n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]}?)" if near else ""
    return _violation(
        "/error_info/code",
        "enum",
        f"{code!r} is not a ToolResponse v1 error code{hint}; use an ErrorCode or one of "
        + ", ".join(_CODE_NAMES),
    )


def _error_code(code: object) -> ErrorCode:
    """``code`` as an ``ErrorCode``: an ``ErrorCode`` or its exact string; anything else raises."""
    if type(code) is ErrorCode:
        return code
    if isinstance(code, str):
        try:
            return ErrorCode(code)
        except ValueError:
            pass
    raise ResponseValidationError((_unknown_code(code),))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_error_info(info: object, problems: list[SchemaViolation]) -> ErrorInfo | None:
    """The generated ``ErrorInfo`` with its members checked and normalised, or None after a problem."""
    if not isinstance(info, ErrorInfo):
        problems.append(
            _violation("/error_info", "type", f"error_info must be an ErrorInfo, not {type(info).__name__}")
        )
        return None
    changes: dict[str, Any] = {}
    code = info.code
    if type(code) is not ErrorCode:
        try:
            changes["code"] = _error_code(code)
        except ResponseValidationError as error:
            problems.extend(error.errors)
    message = info.message
    if not isinstance(message, str):
        problems.append(_violation("/error_info/message", "type", "message must be a string"))
    elif not message:
        problems.append(_violation("/error_info/message", "minLength", "message must not be empty"))
    elif not is_unicode(message):
        problems.append(_violation("/error_info/message", "type", _NOT_UNICODE))
    elif type(message) is not str:
        changes["message"] = str.__str__(message)
    details = info.details
    if details is not None:
        if not isinstance(details, Mapping):
            problems.append(_violation("/error_info/details", "type", "details must be an object (a dict)"))
        else:
            converted = to_json_data(details, pointer="/error_info/details")
            if converted is not details:
                changes["details"] = converted
    retryable = info.retryable
    if retryable is not None and not isinstance(retryable, bool):
        problems.append(_violation("/error_info/retryable", "type", "retryable must be a bool or None"))
    after: object = info.retry_after_ms
    if after is not None:
        if isinstance(after, float) and after.is_integer():
            after = int(after)
            changes["retry_after_ms"] = after
        if not isinstance(after, int) or isinstance(after, bool):
            problems.append(
                _violation("/error_info/retry_after_ms", "type", "retry_after_ms must be an integer")
            )
        elif after < 0:
            problems.append(
                _violation(
                    "/error_info/retry_after_ms", "minimum", f"retry_after_ms must be >= 0, not {after}"
                )
            )
    if changes and not problems:
        return dataclasses.replace(info, **changes)
    return info


def _check_members(
    name: str, value: object, problems: list[SchemaViolation], *, allow_none: bool = True
) -> Any:
    if value is None and allow_none:
        return None
    if not isinstance(value, Mapping):
        what = "an object (a dict) or None" if allow_none else "an object (a dict)"
        problems.append(_violation(f"/{name}", "type", f"{name} must be {what}, not {type(value).__name__}"))
        return value
    return to_json_data(value, pointer=f"/{name}")


def _checked_members(
    status: object,
    text: object,
    data: object,
    error_info: object,
    stats: object,
    context: object,
    extensions: object,
) -> dict[str, Any]:
    """The members of a ToolResponse, checked and normalised; raises ``ResponseValidationError``."""
    problems: list[SchemaViolation] = []
    if type(status) is not ToolStatus:
        if isinstance(status, str) and status in _STATUS_NAMES:
            status = ToolStatus(status)
        else:
            problems.append(
                _violation("/status", "enum", f"status must be success, partial or error, not {status!r}")
            )
    if type(text) is not str:
        if isinstance(text, str):
            text = str.__str__(text)
        else:
            problems.append(_violation("/text", "type", f"text must be a string, not {type(text).__name__}"))
    if type(text) is str and not is_unicode(text):
        problems.append(_violation("/text", "type", _NOT_UNICODE))
    if status is _ERROR and text == "":
        problems.append(_violation("/text", "minLength", "text must not be empty on an error"))
    if data is None:
        data = {}
    elif type(data) is not dict or data:
        data = _check_members("data", data, problems, allow_none=False)
    if status is _ERROR:
        if error_info is None:
            problems.append(_violation("", "required", "an error response needs error_info"))
        else:
            error_info = _check_error_info(error_info, problems)
    elif error_info is not None and type(status) is ToolStatus:
        problems.append(
            _violation("/error_info", "type", f"error_info must be None when the status is {status}")
        )
    if stats is not None:
        stats = _check_members("stats", stats, problems)
        if type(stats) is dict and "time_ms" in stats:
            time_ms = stats["time_ms"]
            if not _is_number(time_ms):
                problems.append(_violation("/stats/time_ms", "type", "time_ms must be a number"))
            elif time_ms < 0:
                problems.append(
                    _violation("/stats/time_ms", "minimum", f"time_ms must be >= 0, not {time_ms}")
                )
    if context is not None:
        context = _check_members("context", context, problems)
        if type(context) is dict:
            if "tool_name" in context:
                tool_name = context["tool_name"]
                if not isinstance(tool_name, str):
                    problems.append(_violation("/context/tool_name", "type", "tool_name must be a string"))
                elif not tool_name:
                    problems.append(
                        _violation("/context/tool_name", "minLength", "tool_name must not be empty")
                    )
            if "call_id" in context and not isinstance(context["call_id"], str):
                problems.append(_violation("/context/call_id", "type", "call_id must be a string"))
    if extensions is None:
        extensions = {}
    elif type(extensions) is not dict or extensions:
        if not isinstance(extensions, Mapping):
            problems.append(_violation("", "type", "extensions must be a dict of x- members"))
        else:
            problems.extend(
                _violation("", "additionalProperties", f"extension member {key!r} must begin with 'x-'")
                for key in extensions
                if not isinstance(key, str) or not key.startswith(_EXTENSION_PREFIX)
            )
            if not problems:
                extensions = to_json_data(extensions)
    if problems:
        raise ResponseValidationError(problems)
    return {
        "status": status,
        "text": text,
        "data": data,
        "error_info": error_info,
        "stats": stats,
        "context": context,
        "extensions": extensions,
    }


_T = TypeVar("_T", bound="ToolResponse")


def _built(
    cls: type[_T],
    status: ToolStatus,
    text: str,
    data: dict[str, Any],
    stats: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
) -> _T:
    """A success or partial response of ``cls`` from members known to be valid, unchecked: the
    fast path of the factories, and of the registry, which builds a plain function's answer
    with its stats and context in one step."""
    response = object.__new__(cls)
    # Stored into the new instance's own dict, key by key: measurably cheaper than giving it a
    # new dict, and this runs on every call of a plain function through the registry.
    members = response.__dict__
    members["status"] = status
    members["text"] = text
    members["data"] = data
    members["error_info"] = None
    members["stats"] = stats
    members["context"] = context
    members["extensions"] = {}
    return response


@dataclass(frozen=True, kw_only=True, init=False)
class ToolResponse:
    """The result of one tool call: a status, text for the model, structured data, and on error a
    machine-readable ``error_info``. Build one with ``success``, ``partial`` or ``error``.

    Instances are immutable and valid by construction (see the module docstring).
    """

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
        # One assignment of the instance dict instead of one frozen __setattr__ per member:
        # a response is built on every tool call, and this halves the cost.
        _set(self, "__dict__", _checked_members(status, text, data, error_info, stats, context, extensions))

    # -- factories -------------------------------------------------------------------------

    @classmethod
    def success(
        cls,
        text: str,
        data: Mapping[str, Any] | None = None,
        stats: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> ToolResponse:
        """The task ran fully as intended."""
        return cls._without_error(_SUCCESS, text, data, stats, context)

    @classmethod
    def partial(
        cls,
        text: str,
        data: Mapping[str, Any] | None = None,
        stats: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> ToolResponse:
        """The result is usable but discounted (truncated, sampled, rounded): ``text`` says how."""
        return cls._without_error(_PARTIAL, text, data, stats, context)

    @classmethod
    def _without_error(
        cls,
        status: ToolStatus,
        text: str,
        data: Mapping[str, Any] | None,
        stats: Mapping[str, Any] | None,
        context: Mapping[str, Any] | None,
    ) -> ToolResponse:
        """What ``success`` and ``partial`` build: plain text and data (the common case) are
        checked by one walk and taken as they are; anything else goes through every check."""
        if stats is None and context is None and type(text) is str and is_unicode(text):
            if data is None:
                return _built(cls, status, text, {})
            if type(data) is dict and is_plain(data, 0, MAX_VALUE_DEPTH):
                return _built(cls, status, text, data)
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
        """No valid result: ``code`` (an ``ErrorCode`` or its exact string) and ``message`` say why.

        ``text`` is the message. ``retryable`` left as None means the code's default.
        """
        info = ErrorInfo(
            code=_error_code(code),
            message=message,
            details=details,  # type: ignore[arg-type]
            retryable=retryable,
            retry_after_ms=retry_after_ms,
        )
        return cls(
            status=_ERROR,
            text=message,
            data=data,
            error_info=info,
            stats=stats,
            context=context,
        )

    # -- questions -------------------------------------------------------------------------

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

    # -- derived responses -----------------------------------------------------------------

    def with_stats(self, **members: Any) -> ToolResponse:
        """A copy whose ``stats`` has ``members`` added or replaced; the others are kept."""
        return dataclasses.replace(self, stats={**(self.stats or {}), **members})

    def with_context(self, **members: Any) -> ToolResponse:
        """A copy whose ``context`` has ``members`` added or replaced; the others are kept."""
        return dataclasses.replace(self, context={**(self.context or {}), **members})

    def _with_call_info(self, stats: dict[str, Any], context: dict[str, Any]) -> ToolResponse:
        """A copy with ``stats`` and ``context`` merged over its own, without re-checking anything.

        Only for the registry, whose members are JSON already (``time_ms`` >= 0, a
        non-empty ``tool_name``, ``params_input`` checked, ``call_id`` a string).
        """
        copy = object.__new__(type(self))
        members = self.__dict__.copy()
        own = members["stats"]
        members["stats"] = {**own, **stats} if own else stats
        own = members["context"]
        members["context"] = {**own, **context} if own else context
        _set(copy, "__dict__", members)
        return copy

    # -- the wire format -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The response as JSON data: unset members are left out (never null), empty ``data`` too.

        Nested values are shared with the response, not copied: do not mutate them.
        """
        result: dict[str, Any] = {"status": self.status.value, "text": self.text}
        if self.data:
            result["data"] = self.data
        info = self.error_info
        if info is not None:
            error_info: dict[str, Any] = {"code": info.code.value, "message": info.message}
            if info.details is not None:
                error_info["details"] = info.details
            if info.retryable is not None:
                error_info["retryable"] = info.retryable
            if info.retry_after_ms is not None:
                error_info["retry_after_ms"] = info.retry_after_ms
            result["error_info"] = error_info
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
        """The response that the decoded JSON value ``obj`` is.

        Raises ``ResponseValidationError`` (its ``errors`` name each JSON pointer) for
        anything the schema rejects, and ``JsonValueError`` (a subclass) for a value
        that no JSON decoder gives (a set, bytes, NaN, a tuple ...).
        """
        # Whole-response check for Python values no decoder gives; the depth limit applies
        # per member (MAX_VALUE_DEPTH), so the response may nest two levels more.
        obj = to_json_data(obj, strict=True, max_depth=MAX_VALUE_DEPTH + 2)
        result = validate(obj)
        if not result.valid:
            raise ResponseValidationError(result.errors)
        info = obj.get("error_info")
        error_info = None
        if info is not None:
            error_info = ErrorInfo(
                code=ErrorCode(info["code"]),
                message=info["message"],
                details=info.get("details"),
                retryable=info.get("retryable"),
                retry_after_ms=info.get("retry_after_ms"),
            )
        return cls(
            status=ToolStatus(obj["status"]),
            text=obj["text"],
            data=obj.get("data", {}),
            error_info=error_info,
            stats=obj.get("stats"),
            context=obj.get("context"),
            extensions={key: value for key, value in obj.items() if key not in _CORE_MEMBERS},
        )

    @classmethod
    def from_json(cls, source: str | bytes | bytearray | memoryview) -> ToolResponse:
        """The response that the JSON text ``source`` holds.

        Raises ``MalformedJsonError`` for text that is not I-JSON (a syntax error,
        NaN or Infinity, a duplicate member name, invalid UTF-8) and
        ``ResponseValidationError`` for a value the schema rejects.
        """
        return cls.from_dict(loads_strict(source))


def loads_strict(source: str | bytes | bytearray | memoryview) -> Any:
    """Parse I-JSON text (``toolresponse._ijson.parse_ijson``): raises ``MalformedJsonError``
    naming the rule, line and column for a syntax error, NaN or Infinity, a duplicate member
    name, invalid UTF-8, a lone surrogate or a byte order mark; ``TypeError`` for a value
    that is not text."""
    return parse_ijson(source)
