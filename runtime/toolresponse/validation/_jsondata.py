"""Turn the values a tool produces into JSON data (I-JSON, RFC 7493), or say exactly why not."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import math
import re
import uuid
from collections.abc import Mapping
from typing import Any

import orjson

from .._errors import JsonValueError
from ._engine import json_pointer

MAX_VALUE_DEPTH = 200
"""The deepest nesting inside one member of a response: a response then nests within what orjson
writes (254 levels)."""

_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1


_NONCHARACTER = re.compile(
    "[\ufdd0-\ufdef\ufffe\uffff"
    + "".join(f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(1, 17))
    + "]"
)
"""The 66 Unicode noncharacters, which the protocol forbids in any string (I-JSON text)."""


def is_unicode(text: str) -> bool:
    """Whether ``text`` may stand in a response: valid Unicode (no lone surrogate) without a
    noncharacter (U+FDD0-U+FDEF, U+FFFE, U+FFFF and their like in every plane)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return _NONCHARACTER.search(text) is None


def _unicode_problem(text: str) -> str:
    """Why ``text``, which ``is_unicode`` refused, cannot stand in a response."""
    found = _NONCHARACTER.search(text)
    if found is not None:
        return f"has the noncharacter U+{ord(found.group()):04X}, which I-JSON text must not hold"
    return "has a lone surrogate, so it is not valid Unicode"


NOT_PLAIN: Any = object()
"""What ``plain_object_copy`` answers for a value that is not JSON exactly as it is."""


def plain_object_copy(
    value: dict[Any, Any], depth: int = 0, limit: int = MAX_VALUE_DEPTH, copy: bool = True
) -> Any:
    """A copy of the dict ``value`` (without ``copy``, ``value`` itself) when it is JSON exactly as
    it is, else ``NOT_PLAIN``: one walk checks and copies (the registry records every call's
    parameters so)."""
    if depth >= limit:
        return NOT_PLAIN
    members = value.copy() if copy else value  # the scalar members are copied here, checked below
    for key, item in value.items():
        if type(key) is not str or not (key.isascii() or is_unicode(key)):
            return NOT_PLAIN
        # The commonest members (str, int, bool, null) are checked inline, without a call.
        kind = type(item)
        if kind is str:
            if not (item.isascii() or is_unicode(item)):
                return NOT_PLAIN
        elif kind is int:
            if not _INT_MIN <= item <= _INT_MAX:
                return NOT_PLAIN
        elif item is not None and kind is not bool:
            member = _plain(item, depth + 1, limit, copy)
            if member is NOT_PLAIN:
                return NOT_PLAIN
            if copy:
                members[key] = member
    return members


def _plain(value: Any, depth: int, limit: int, copy: bool) -> Any:
    """``value`` at ``depth`` as ``plain_object_copy`` gives a member, or ``NOT_PLAIN``."""
    kind = type(value)
    if kind is dict:
        return plain_object_copy(value, depth, limit, copy)
    if kind is list:
        if depth >= limit:
            return NOT_PLAIN
        items = []
        for item in value:
            member = _plain(item, depth + 1, limit, copy)
            if member is NOT_PLAIN:
                return NOT_PLAIN
            if copy:
                items.append(member)
        return items if copy else value
    if kind is str:
        return value if value.isascii() or is_unicode(value) else NOT_PLAIN
    if kind is int:
        return value if _INT_MIN <= value <= _INT_MAX else NOT_PLAIN
    if kind is float:
        return value if math.isfinite(value) else NOT_PLAIN
    return value if value is None or kind is bool else NOT_PLAIN


def is_plain(value: Any, depth: int, limit: int = MAX_VALUE_DEPTH) -> bool:
    """Whether ``value`` at ``depth`` is JSON exactly as it is (exact built-in types, nothing to convert)."""
    return _plain(value, depth, limit, False) is not NOT_PLAIN


def is_json_data(value: Any) -> bool:
    """Whether ``value`` is JSON data as it is, with no conversion needed."""
    return is_plain(value, 0, MAX_VALUE_DEPTH)


class _Walk:
    """One conversion: the path to the current value (for pointers) and the containers on it."""

    __slots__ = ("active", "base", "convert", "limit", "parts")

    def __init__(self, base: str, *, convert: bool, limit: int) -> None:
        self.base = base
        self.convert = convert
        self.limit = limit
        self.parts: list[str | int] = []
        self.active: set[int] = set()

    def fail(self, message: str, value: Any, keyword: str = "type") -> JsonValueError:
        return JsonValueError(
            self.base + json_pointer(self.parts), message, type_name=type(value).__name__, keyword=keyword
        )

    def not_json(self, value: Any, advice: str = "") -> JsonValueError:
        conversion = " and has no conversion" if self.convert else ""
        return self.fail(f"a value of type {type(value).__name__} is not JSON{conversion}{advice}", value)

    def value(self, value: Any) -> Any:
        kind = type(value)
        if value is None or kind is bool:
            return value
        if isinstance(value, enum.Enum):
            if not self.convert and not isinstance(value, str | int | float):
                raise self.not_json(value)
            return self.value(value.value)
        if isinstance(value, str):
            text = str.__str__(value)
            if not is_unicode(text):
                raise self.fail(f"the string {_unicode_problem(text)}", value)
            return text
        if isinstance(value, int):
            number = int(value)
            if not _INT_MIN <= number <= _INT_MAX:
                digits = len(str(abs(number)))
                raise self.fail(
                    f"the integer ({digits} digits) is outside the 64-bit range a JSON writer keeps exact;"
                    " send it as a string",
                    value,
                    keyword="maximum" if number > 0 else "minimum",
                )
            return number
        if isinstance(value, float):
            real = float(value)
            if not math.isfinite(real):
                raise self.fail(f"the float {real!r} is not JSON: I-JSON has no NaN or Infinity", value)
            return real
        if isinstance(value, bytes | bytearray | memoryview):
            raise self.not_json(value, "; decode text to str, or encode binary data as base64 text")
        return self._container(value)

    def _container(self, value: Any) -> Any:
        if len(self.parts) >= self.limit:
            raise self.fail(f"the value nests more than {self.limit} levels deep", value, keyword="maxDepth")
        identity = id(value)
        if identity in self.active:
            raise self.fail("a cycle: this container contains itself", value, keyword="cycle")
        self.active.add(identity)
        try:
            return self._members(value)
        finally:
            self.active.discard(identity)

    def _members(self, value: Any) -> Any:
        if isinstance(value, dict) or (self.convert and isinstance(value, Mapping)):
            if not self.convert and type(value) is not dict:
                raise self.not_json(value)
            return self._object(value.items(), value)
        if type(value) is list or (self.convert and isinstance(value, list | tuple)):
            return self._array(value)
        if not self.convert:
            raise self.not_json(value)
        if isinstance(value, set | frozenset):
            return self._set(value)
        if isinstance(value, _dt.datetime | _dt.date | _dt.time):
            return value.isoformat()
        if isinstance(value, uuid.UUID):
            return str(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            items = [(field.name, getattr(value, field.name)) for field in dataclasses.fields(value)]
            return self._object(items, value)
        raise self.not_json(value, " (see toolresponse.to_json_data for what is converted)")

    def _object(self, items: Any, original: Any) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, item in items:
            name = self._name(key, original)
            if name in result:
                raise self.fail(f"the member name {name!r} occurs twice after conversion", original, "unique")
            self.parts.append(name)
            result[name] = self.value(item)
            self.parts.pop()
        return result

    def _name(self, key: Any, original: Any) -> str:
        if isinstance(key, enum.Enum) and self.convert:
            key = key.value
        if isinstance(key, str):
            name = str.__str__(key)
            if not is_unicode(name):
                raise self.fail(f"a member name {_unicode_problem(name)}", original)
            return name
        if self.convert and isinstance(key, int) and not isinstance(key, bool):
            return str(int(key))
        kind = type(key).__name__
        raise self.fail(
            f"the member name {key!r} ({kind}) is not a string", original, keyword="propertyNames"
        )

    def _array(self, items: Any) -> list[Any]:
        result: list[Any] = []
        for index, item in enumerate(items):
            self.parts.append(index)
            result.append(self.value(item))
            self.parts.pop()
        return result

    def _set(self, members: set[Any] | frozenset[Any]) -> list[Any]:
        self.parts.append(0)
        try:
            converted = [self.value(member) for member in members]
        finally:
            self.parts.pop()
        try:
            return sorted(converted)
        except TypeError:
            return sorted(converted, key=orjson.dumps)


def to_json_data(
    value: Any, *, pointer: str = "", strict: bool = False, max_depth: int = MAX_VALUE_DEPTH
) -> Any:
    """``value`` as JSON data, converted as docs/migrating.md tabulates (a ``Mapping``, tuple, set,
    enum, date and time, UUID, dataclass); raises ``JsonValueError`` naming the pointer (prefixed by
    ``pointer``). Nesting deeper than ``max_depth`` is an error (``value`` itself is level 1). With
    ``strict``, only values as a JSON decoder gives them (and subclasses of ``str``, ``int`` and
    ``float``) are accepted."""
    try:
        if is_plain(value, 0, max_depth):
            return value
        return _Walk(pointer, convert=not strict, limit=max_depth).value(value)
    except RecursionError:  # a max_depth above what the interpreter's stack can walk
        message = "the value nests more levels deep than can be walked here; use a lower max_depth"
        raise JsonValueError(pointer, message, type_name=type(value).__name__, keyword="maxDepth") from None
