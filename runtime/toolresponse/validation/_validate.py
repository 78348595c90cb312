"""Validate a ToolResponse v1: a decoded value (``validate``) or JSON text (``validate_json``).

Each violation names the member and, where it helps, the nearest valid value (``suggestion``),
read from the schema and the generated enums; the most relevant come first (not an object,
unknown members, wrong values, missing members).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

import orjson

from toolresponse_generated import ERROR_CODE_INFO, ErrorCode, ToolStatus

from .._errors import IJsonError, JsonValueError
from .._suggest import did_you_mean, nearest
from .._violation import SchemaViolation, best_match, relevance
from ._engine import (
    EngineError,
    EngineName,
    TooLarge,
    ValidationEngine,
    json_pointer,
    keyword_location,
    keyword_owner,
    root_projection,
    schema_node,
    unexpected_members,
)
from ._engine import engine as _engine_named
from ._ijson import MAX_NESTING, excerpt, locate_all, parse_ijson, positions, violation_of
from ._jsondata import _Walk, is_plain
from ._schema import bundled_schema

MAX_VIOLATIONS = 100
"""The most violations of one response kept (the most relevant): they bound the work of explaining."""


@dataclass(frozen=True, kw_only=True)
class ValidationResult:
    """The verdict on one instance: ``valid`` and the violations found, most relevant first (at
    most ``MAX_VIOLATIONS``; ``more`` counts the others)."""

    errors: tuple[SchemaViolation, ...]
    more: int = 0

    @property
    def valid(self) -> bool:
        return not self.errors

    def __bool__(self) -> bool:
        return self.valid


_VALID = ValidationResult(errors=())
_CODES: tuple[str, ...] = tuple(code.value for code in ErrorCode)
_CODE_SET = frozenset(_CODES)
_STATUSES: tuple[str, ...] = tuple(status.value for status in ToolStatus)
_STATUS_SET = frozenset(_STATUSES)
_CODES_BY_HTTP_STATUS: Mapping[int, tuple[str, ...]] = {
    status: tuple(info.code.value for info in ERROR_CODE_INFO.values() if info.http_status == status)
    for status in {info.http_status for info in ERROR_CODE_INFO.values()}
}


class _Foreign(NamedTuple):
    """A member name another format writes where ToolResponse v1 has ``member``: what to say of it,
    and of the missing v1 member when the foreign one is present."""

    member: str
    unknown: str
    missing: str | None


_FOREIGN_NAMES: Mapping[str, _Foreign] = {
    "error": _Foreign(
        "error_info",
        "HelloAgents 1.0 writes error_info under that name",
        'HelloAgents 1.0 writes it as "error"',
    ),
    "isError": _Foreign(
        "status", 'an MCP CallToolResult flags errors with it; ToolResponse says status "error"', None
    ),
    "content": _Foreign(
        "text", "an MCP CallToolResult carries its text there; ToolResponse has text (and data)", None
    ),
}
_SHORT = 40


def _json(value: Any) -> str:
    """A value as JSON text (a name in double quotes, escaped: control characters cannot reach a terminal)."""
    return orjson.dumps(value).decode("utf-8")


def _describe(value: Any) -> str:
    """A short phrase for a JSON value, safe for any size and depth."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 128 else "a very large integer"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"{value!r} (not a JSON number)"
    if isinstance(value, str):
        return f"the string {excerpt(value, _SHORT)}" if value else "the empty string"
    if isinstance(value, list):
        return "an array" if value else "an empty array"
    if isinstance(value, dict):
        return "an object"
    return f"a Python {type(value).__name__!r} value (not JSON)"


def _shown(value: Any) -> str:
    """A value as a message shows it: strings quoted, everything else described."""
    return excerpt(value, _SHORT) if isinstance(value, str) else _describe(value)


def _where(path: Sequence[str | int]) -> str:
    """The member a path names, as a person reads it (``error_info.code``, ``data.items[2]``)."""
    if not path:
        return "the response"
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            out += f".{part}" if out else part
        else:
            out += f"[{_json(part)}]"
    return out


def _or_list(options: Sequence[str]) -> str:
    if len(options) <= 1:
        return "".join(options)
    return ", ".join(options[:-1]) + " or " + options[-1]


_TYPE_PHRASES: Mapping[str, str] = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "null": "null",
}


def _types_phrase(types: Any, path: Sequence[str | int]) -> str:
    names = [types] if isinstance(types, str) else list(types)
    if names == ["null"] and path:
        return "null (or absent)"
    return _or_list([_TYPE_PHRASES.get(name, name) for name in names])


@lru_cache(maxsize=256)
def _condition(schema_path: tuple[str | int, ...]) -> str:
    """`` when status is "error"`` for a keyword under ``then`` (``unless`` under ``else``), else ""."""
    for index in range(len(schema_path) - 1, -1, -1):
        branch = schema_path[index]
        if branch not in ("then", "else"):
            continue
        owner = schema_node(schema_path[:index])
        if not isinstance(owner, dict) or "if" not in owner:
            continue
        phrase = _if_phrase(owner["if"])
        if phrase is None:
            return " (under a condition of the schema)"
        return f" when {phrase}" if branch == "then" else f" unless {phrase}"
    return ""


def _if_phrase(condition: Any) -> str | None:
    """``status is "error"`` for an ``if`` that tests one member against a constant."""
    if not isinstance(condition, dict):
        return None
    properties = condition.get("properties", {})
    if len(properties) != 1:
        return None
    ((name, test),) = properties.items()
    if not isinstance(test, dict) or "const" not in test:
        return None
    return f"{name} is {_json(test['const'])}"


def _pattern_phrase(patterns: Mapping[str, Any]) -> str:
    phrases = []
    for pattern in patterns:
        prefix = re.fullmatch(r"\^([A-Za-z0-9_-]+)", pattern)
        phrases.append(
            f"names beginning with {_json(prefix.group(1))}" if prefix else f"names matching {pattern}"
        )
    return "".join(f", or {phrase}" for phrase in phrases)


def _unknown_member(error: EngineError) -> tuple[str, str | None]:
    name = error.member or ""
    owner = keyword_owner(error.schema_path)
    allowed = tuple(owner.get("properties", {}))
    patterns: Mapping[str, Any] = owner.get("patternProperties", {})
    inside = f" in {_where(error.path)}" if error.path else ""
    foreign = _FOREIGN_NAMES.get(name)
    if foreign is not None and foreign.member in allowed and not error.path:
        return f"unknown member {_json(name)}; {foreign.unknown}", foreign.member
    instance = error.instance if isinstance(error.instance, dict) else {}
    absent = tuple(option for option in allowed if option not in instance)
    required = frozenset(owner.get("required", ())).intersection(absent)
    suggestion = nearest(name, absent, required) if absent else None
    if suggestion is None and any(re.search(pattern, name.lower()) for pattern in patterns):
        suggestion = name.lower()
    if suggestion is not None:
        return (
            f"unknown member {_json(name)}{inside}; {did_you_mean([suggestion], quote=_json)}",
            suggestion,
        )
    members = ", ".join(allowed)
    return (
        f"unknown member {_json(name)}{inside}; the members are {members}{_pattern_phrase(patterns)}",
        None,
    )


def _missing_member(error: EngineError) -> tuple[str, str | None]:
    name = error.member or ""
    condition = _condition(error.schema_path)
    inside = f" in {_where(error.path)}" if error.path else ""
    if condition:
        message = f"missing member {_json(name)}{inside}, required{condition}"
    else:
        message = f"missing required member {_json(name)}{inside}"
    instance = error.instance if isinstance(error.instance, dict) else {}
    for present in instance:
        foreign = _FOREIGN_NAMES.get(present)
        if foreign is not None and foreign.member == name and foreign.missing and not error.path:
            return f"{message}; {foreign.missing}", None
    return message, None


def _bad_enum(error: EngineError) -> tuple[str, str | None]:
    options = tuple(keyword_owner(error.schema_path).get("enum", ()))
    value = error.instance
    shown = _shown(value)
    string_options = tuple(option for option in options if isinstance(option, str))
    suggestion = nearest(value, string_options) if isinstance(value, str) and string_options else None
    if frozenset(options) == _CODE_SET:
        if suggestion is None and isinstance(value, int) and not isinstance(value, bool):
            by_status = _CODES_BY_HTTP_STATUS.get(value, ())
            suggestion = by_status[0] if len(by_status) == 1 else None
            if len(by_status) > 1:
                return f"{shown} is not a standard error code; {did_you_mean(by_status, quote=str)}", None
        if suggestion is None:
            return f"{shown} is not a standard error code (one of {', '.join(_CODES)})", None
        head = f"{shown} is not a standard error code"
    elif frozenset(options) == _STATUS_SET:
        head = f"{shown} is not a status ({_or_list(_STATUSES)})"
    else:
        listed = _or_list([_json(option) for option in options])
        head = f"{_where(error.path)} must be {listed}, not {shown}"
    return (f"{head}; {did_you_mean([suggestion], quote=str)}" if suggestion else head), suggestion


# The message of a value that breaks a keyword: {where}, {limit} (the keyword's value, as JSON for
# const), {condition}, {value} (the value described) and {types} (the types allowed).
_VALUE_MESSAGES: Mapping[str, str] = {
    "type": "{where} must be {types}{condition}, not {value}",
    "minLength": "{where} must be at least {limit} characters long{condition}",
    "maxLength": "{where} must be at most {limit} characters long{condition}",
    "minimum": "{where} must be at least {limit}{condition}, not {value}",
    "maximum": "{where} must be at most {limit}{condition}, not {value}",
    "const": "{where} must be {limit}{condition}, not {value}",
}


def _bad_value(error: EngineError) -> tuple[str, str | None]:
    keyword, value = error.keyword, error.instance
    if keyword == "enum":
        return _bad_enum(error)
    if keyword == "type" and not error.path:
        hint = "; several responses go one per line in JSON lines" if isinstance(value, list) else ""
        return f"a ToolResponse is a JSON object, not {_describe(value)}{hint}", None
    template = _VALUE_MESSAGES.get(keyword)
    if template is None:
        return f"{_where(error.path)}: {error.message}", None
    limit = keyword_owner(error.schema_path)[keyword]
    if keyword == "minLength" and limit == 1:
        template = "{where} must not be empty{condition}"
    message = template.format(
        where=_where(error.path),
        limit=_json(limit) if keyword == "const" else limit,
        condition=_condition(error.schema_path),
        value=_describe(value),
        types=_types_phrase(limit, error.path) if keyword == "type" else "",
    )
    return message, None


_MESSAGES: Mapping[str, Callable[[EngineError], tuple[str, str | None]]] = {
    "additionalProperties": _unknown_member,
    "required": _missing_member,
}
"""What says why a keyword failed (a value that breaks it, by default), and what to suggest."""


def _rank(error: EngineError) -> int:
    return relevance(error.keyword, json_pointer(error.path))


def _violation(error: EngineError) -> SchemaViolation:
    if not error.schema_path:
        # Not a keyword of the schema: the engine could not go on (depth, a value that is not JSON).
        return SchemaViolation(pointer=json_pointer(error.path), keyword=error.keyword, message=error.message)
    message, suggestion = _MESSAGES.get(error.keyword, _bad_value)(error)
    return SchemaViolation(
        pointer=json_pointer(error.path),
        keyword=error.keyword,
        message=message,
        suggestion=suggestion,
        schema_path=keyword_location(error.schema_path),
    )


def _trimmed(obj: Any) -> tuple[Any, int]:
    """``obj`` without its unknown members past the first ``MAX_VIOLATIONS``, and how many those
    are: a line can hold millions, and an engine lists a million in seconds."""
    if not isinstance(obj, dict) or len(obj) <= MAX_VIOLATIONS:
        return obj, 0
    unknown = unexpected_members(obj, bundled_schema())
    if len(unknown) <= MAX_VIOLATIONS:
        return obj, 0
    kept = {name: obj[name] for name in obj.keys() - set(unknown)}
    kept.update((name, obj[name]) for name in unknown[:MAX_VIOLATIONS])
    return kept, len(unknown) - MAX_VIOLATIONS


def _explained(obj: Any, chosen: ValidationEngine) -> tuple[list[tuple[SchemaViolation, EngineError]], int]:
    """The ``MAX_VIOLATIONS`` most relevant violations of ``obj`` (each with its error), and how many more."""
    obj, trimmed = _trimmed(obj)
    found, left_out = chosen.errors(obj, MAX_VIOLATIONS)
    left_out += trimmed
    errors = sorted(found, key=_rank)
    if not errors:
        # The verdict said invalid; never report an invalid response without a reason.
        errors = [EngineError((), "schema", (), obj, None, "invalid against the ToolResponse v1 schema")]
    out: list[tuple[SchemaViolation, EngineError]] = []
    seen: set[SchemaViolation] = set()
    for error in errors:
        if len(out) == MAX_VIOLATIONS:
            left_out += 1
            continue
        violation = _violation(error)
        if violation not in seen:
            seen.add(violation)
            out.append((violation, error))
    return out, left_out


def _result(obj: Any, chosen: ValidationEngine) -> ValidationResult:
    explained, more = _explained(obj, chosen)
    return ValidationResult(errors=tuple(violation for violation, _ in explained), more=more)


def _first(result: ValidationResult) -> ValidationResult:
    """The violation ``best_match`` picks, alone (what ``--first`` reports)."""
    best = best_match(result.errors)
    return ValidationResult(errors=() if best is None else (best,))


_CACHED_ANSWERS = 4096
_CACHED_BYTES = 1 << 16


@lru_cache(maxsize=_CACHED_ANSWERS)
def _answer(projected: bytes) -> tuple[ValidationResult, ValidationResult]:
    """The explanation of a projection (the same tuple each time: a report keeps its text), and its first."""
    result = _result(orjson.loads(projected), _engine_named("fast"))
    return result, _first(result)


def cached_explanation(obj: Any, *, first: bool = False) -> ValidationResult:
    """The violations of an instance known to be invalid (with ``first``, the most relevant), cached
    by its projection (``_engine.Projection``) when that is at most ``_CACHED_BYTES`` long."""
    try:
        projected = orjson.dumps(root_projection().project(obj))
    except (TooLarge, orjson.JSONEncodeError):
        projected = None
    if projected is None or len(projected) > _CACHED_BYTES:
        result = _result(obj, _engine_named("fast"))
        return _first(result) if first else result
    answer = _answer(projected)
    return answer[1] if first else answer[0]


def iter_errors(obj: Any, *, engine: EngineName = "fast") -> Iterator[SchemaViolation]:
    """The violations of the schema by the decoded JSON value ``obj``, the 100 most relevant first."""
    yield from validate(obj, engine=engine).errors


def _verdict(obj: Any, chosen: ValidationEngine) -> tuple[bool, ValidationEngine]:
    """The verdict on ``obj`` and the engine that reached it (the reference one for values not JSON)."""
    try:
        return chosen.is_valid(obj), chosen
    except (ValueError, TypeError):
        if chosen.name == "reference":
            return False, chosen
    reference = _engine_named("reference")
    try:
        return reference.is_valid(obj), reference
    except (ValueError, TypeError, RecursionError):
        return False, reference


def is_valid(obj: Any) -> bool:
    """Whether the decoded JSON value ``obj`` is a valid ToolResponse v1 (about a microsecond): the
    schema's verdict only; ``validate`` also refuses a value no I-JSON text gives (NaN, a tuple ...)."""
    return _verdict(obj, _engine_named("fast"))[0]


def validate(obj: Any, *, engine: EngineName = "fast") -> ValidationResult:
    """Check a decoded JSON value (what a JSON decoder gives) against the ToolResponse v1 schema.
    A value the schema accepts that is not I-JSON data, as ``validate_json`` would refuse its text
    (NaN or Infinity, a lone surrogate, an integer outside 64 bits, a tuple, set or other object,
    a cycle), has that one violation instead."""
    valid, chosen = _verdict(obj, _engine_named(engine))
    if not valid:
        return _result(obj, chosen)
    not_json = _not_json_data(obj)
    return _VALID if not_json is None else ValidationResult(errors=not_json.errors)


def _not_json_data(obj: Any) -> JsonValueError | None:
    """Why ``obj`` is not JSON data as a decoder gives it, or None (also when it nests deeper than
    this interpreter's stack walks, some hundreds of levels: the schema's verdict then stands)."""
    try:
        if is_plain(obj, 0, MAX_NESTING):
            return None
    except RecursionError:  # deep, or a cycle: the walk below tells them apart
        pass
    try:
        _Walk("", convert=False, limit=MAX_NESTING).value(obj)
    except JsonValueError as error:
        return error
    except RecursionError:
        return None
    return None


def validate_json(
    text: str | bytes | bytearray | memoryview, *, engine: EngineName = "fast"
) -> ValidationResult:
    """Check JSON text: the I-JSON rules of SPEC-v1 (UTF-8, unique member names at any depth,
    no NaN or Infinity), then the schema. Every violation carries its line and column."""
    if isinstance(text, bytearray | memoryview):
        text = bytes(text)
    try:
        obj = parse_ijson(text)
    except IJsonError as error:
        return ValidationResult(errors=(violation_of(error),))
    chosen = _engine_named(engine)
    if chosen.is_valid(obj):
        return _VALID
    decoded = text.decode("utf-8") if isinstance(text, bytes) else text
    explained, more = _explained(obj, chosen)
    # One scan finds every place, one more every line and column: the cost never grows with k * n.
    targets = [_target(failed) for _, failed in explained]
    offsets = locate_all(decoded, targets)
    lines_and_columns = positions(decoded, offsets.values())
    located: list[SchemaViolation] = []
    for (violation, _), target in zip(explained, targets, strict=True):
        offset = offsets.get(target)
        if offset is None:
            located.append(violation)
            continue
        line, column = lines_and_columns[offset]
        located.append(dataclasses.replace(violation, line=line, column=column))
    return ValidationResult(errors=tuple(located), more=more)


def _target(failed: EngineError) -> tuple[tuple[str | int, ...], bool]:
    """The place of the text to show for a failed keyword: the unknown member's name, else the value."""
    if failed.keyword == "additionalProperties" and failed.member is not None:
        return (*failed.path, failed.member), True
    return tuple(failed.path), False
