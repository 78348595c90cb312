"""Tool parameters: a JSON Schema from a plain function's signature, and a compiled validator.

``typed_parameters`` maps each annotation as docs/migrating.md tabulates ("Parameters from the
signature"), and gives the function its arguments as annotated (an Enum's member, a tuple, a
set); ``ParameterValidator`` compiles a schema once with jsonschema-rs (local
``$ref``s only).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, TypeVar

import jsonschema_rs
import orjson

from .._errors import ToolDefinitionError
from .._suggest import shortened
from .._violation import SchemaViolation
from ..validation._engine import json_pointer
from ..validation._jsondata import is_json_data

T = TypeVar("T")

_Convert = Callable[[Any], Any]
_Made = tuple[dict[str, Any], _Convert | None]
"""An annotation's JSON Schema, and how a valid JSON argument becomes of the annotated type (JSON
gives a list for a tuple or a set, a value for an Enum); None when it is of that type already."""
_Handler = Callable[[tuple[Any, ...], str], _Made]

_SCALARS: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    None: "null",
}


def _annotated(arguments: tuple[Any, ...], where: str) -> _Made:
    schema, convert = _schema_of(arguments[0], where)
    for extra in arguments[1:]:
        if isinstance(extra, str):
            schema["description"] = extra
        elif isinstance(extra, Mapping):
            schema.update(extra)
    return schema, convert


def _union(arguments: tuple[Any, ...], where: str) -> _Made:
    """Converted only as ``X | None``: other unions are left as JSON gives them."""
    made = [_schema_of(argument, where) for argument in arguments]
    members = [schema for schema, _ in made]
    others = [
        convert for argument, (_, convert) in zip(arguments, made, strict=True) if argument is not type(None)
    ]
    member = others[0] if len(others) == 1 else None
    convert = None if member is None else lambda value: value if value is None else member(value)
    return {} if {} in members else {"anyOf": members}, convert


def _enum(values: list[Any], where: str, refusal: str) -> dict[str, Any]:
    if not all(is_json_data(value) for value in values):
        raise ToolDefinitionError(f"{where}: {refusal}")
    return {"enum": values}


def _items(make: Callable[[Any], Any], item: _Convert | None) -> _Convert:
    return make if item is None else lambda value: make(map(item, value))


def _tuple(arguments: tuple[Any, ...], where: str) -> _Made:
    if not arguments or (len(arguments) == 2 and arguments[1] is Ellipsis):  # of any length
        return _array(tuple)(arguments[:1], where)
    made = [_schema_of(argument, where) for argument in arguments]
    prefix = [schema for schema, _ in made]
    each = [convert or _same for _, convert in made]
    schema = {"type": "array", "prefixItems": prefix, "minItems": len(prefix), "maxItems": len(prefix)}
    return schema, lambda value: tuple(convert(item) for convert, item in zip(each, value, strict=True))


def _array(make: Callable[[Any], Any] | None, unique: bool = False) -> _Handler:
    """A list's (``make`` None: converted only when its items are), a set's or a tuple's (``make``)."""

    def made(arguments: tuple[Any, ...], where: str) -> _Made:
        schema: dict[str, Any] = {"type": "array", "uniqueItems": True} if unique else {"type": "array"}
        convert = None
        if arguments:
            schema["items"], convert = _schema_of(arguments[0], where)
        if make is None:
            return schema, None if convert is None else _items(list, convert)
        return schema, _items(make, convert)

    return made


def _object(arguments: tuple[Any, ...], where: str) -> _Made:
    if arguments and arguments[0] is not str:
        raise ToolDefinitionError(f"{where}: a mapping's keys must be str, as JSON object names are")
    if len(arguments) != 2:
        return {"type": "object"}, None
    schema, member = _schema_of(arguments[1], where)
    convert = None if member is None else lambda value: {key: member(item) for key, item in value.items()}
    return {"type": "object", "additionalProperties": schema}, convert


_BY_ORIGIN: dict[Any, _Handler] = {
    typing.Annotated: _annotated,
    typing.Union: _union,
    types.UnionType: _union,
    typing.Literal: lambda arguments, where: (
        _enum(list(arguments), where, "Literal values must be JSON (str, int, float, bool, None)"),
        None,
    ),
    tuple: _tuple,
    list: _array(None),
    Sequence: _array(None),
    set: _array(set, unique=True),
    frozenset: _array(frozenset, unique=True),
    AbstractSet: _array(frozenset, unique=True),
    dict: _object,
    Mapping: _object,
}


def _lookup(table: dict[Any, T], annotation: Any) -> T | None:
    try:
        return table.get(annotation)
    except TypeError:  # an annotation that does not hash
        return None


def _schema_of(annotation: Any, where: str) -> _Made:
    """The JSON Schema of one annotation and its converter; raises ``ToolDefinitionError`` when it
    has no schema."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any or annotation is object:
        return {}, None
    origin = typing.get_origin(annotation)
    handler = _BY_ORIGIN.get(origin) if origin is not None else _lookup(_BY_ORIGIN, annotation)
    if handler is not None:
        return handler(typing.get_args(annotation), where)
    scalar = _lookup(_SCALARS, annotation)
    if scalar is not None:
        return {"type": scalar}, None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [member.value for member in annotation]
        kind = annotation
        schema = _enum(values, where, f"the values of enum {annotation.__name__} must be JSON")
        return schema, lambda value: value if isinstance(value, kind) else kind(value)
    if isinstance(annotation, type) and typing.is_typeddict(annotation):
        return _typeddict_schema(annotation, where), None
    raise ToolDefinitionError(
        f"{where}: the annotation {annotation!r} has no JSON Schema (see parameters_schema)"
    )


def _typeddict_schema(annotation: Any, where: str) -> dict[str, Any]:
    hints = typing.get_type_hints(annotation, include_extras=True)
    properties = {name: _schema_of(hint, f"{where}.{name}")[0] for name, hint in hints.items()}
    required = [name for name in hints if name in annotation.__required_keys__]
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _same(value: Any) -> Any:
    return value


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$")
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_GOOGLE_PARAM = re.compile(r"^(\s+)(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def docstring_summary(function: Callable[..., Any]) -> str:
    """The docstring up to the first blank line or section header, joined on one line."""
    doc = inspect.getdoc(function) or ""
    lines: list[str] = []
    for line in doc.splitlines():
        if not line.strip() or _ARGS_HEADER.match(line) or line.lstrip().startswith(":"):
            break
        lines.append(line.strip())
    return " ".join(lines)


def _parameter_docs(function: Callable[..., Any]) -> dict[str, str]:
    """Parameter descriptions from ``Args:`` sections and ``:param name:`` lines, each joined with
    the lines indented under it."""
    found: dict[str, str] = {}
    in_args = False
    current: str | None = None  # the parameter an indented line goes on describing
    indent = 0  # of the parameters in an ``Args:`` section (a deeper ``name:`` describes too)
    for line in (inspect.getdoc(function) or "").splitlines():
        text = line.strip()
        sphinx = _SPHINX_PARAM.match(line)
        google = _GOOGLE_PARAM.match(line) if in_args else None
        if sphinx:
            in_args, current = False, sphinx.group(1)
            found[current] = sphinx.group(2).strip()
        elif _ARGS_HEADER.match(line):
            in_args, current = True, None
        elif google and (current is None or len(google.group(1)) <= indent):
            indent, current = len(google.group(1)), google.group(2).lstrip("*")
            found[current] = google.group(3).strip()
        elif text and line.startswith(" ") and current is not None:
            found[current] = f"{found[current]} {text}".lstrip()
        elif text or not in_args:  # a blank line ends a description outside an ``Args:`` section
            in_args, current = False, None
    return found


def _hints(function: Callable[..., Any], where: str) -> dict[str, Any]:
    target: Any = function
    if isinstance(function, functools.partial):
        target = function.func
    elif not (inspect.isroutine(function) or inspect.isclass(function)):
        target = type(function).__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as error:  # a forward reference that does not resolve, a bad annotation
        raise ToolDefinitionError(f"{where}: its type hints cannot be resolved ({error})") from error


def typed_parameters(
    function: Callable[..., Any], *, name: str | None = None
) -> tuple[dict[str, Any], Callable[..., Any]]:
    """The JSON Schema (an object) of ``function``'s keyword parameters (see docs/migrating.md), and
    the function to call with JSON arguments: ``function`` itself, or one that converts them first
    (see ``_Made``)."""
    where = f"tool {name or getattr(function, '__name__', repr(function))}"
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as error:
        raise ToolDefinitionError(f"{where}: its signature cannot be read ({error})") from error
    hints = _hints(function, where)
    docs = _parameter_docs(function)
    properties: dict[str, Any] = {}
    required: list[str] = []
    extra: dict[str, Any] | bool = False
    converters: dict[str, _Convert] = {}
    for parameter in signature.parameters.values():
        annotation = hints.get(parameter.name, parameter.annotation)
        place = f"{where}, parameter {parameter.name!r}"
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            extra = _schema_of(annotation, place)[0] or True
            continue
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            if parameter.default is inspect.Parameter.empty:
                raise ToolDefinitionError(
                    f"{place} is positional-only; a tool is called with keyword arguments"
                )
            continue
        schema, convert = _schema_of(annotation, place)
        if convert is not None:
            converters[parameter.name] = convert
        if parameter.name in docs and "description" not in schema:
            schema["description"] = docs[parameter.name]
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
        elif is_json_data(parameter.default):
            schema["default"] = parameter.default
        properties[parameter.name] = schema
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    result["additionalProperties"] = extra
    return result, _typed(function, signature, converters)


def _typed(
    function: Callable[..., Any], signature: inspect.Signature, converters: dict[str, _Convert]
) -> Callable[..., Any]:
    """``function`` with its arguments converted first, and the defaults of the parameters it
    converts too, so that a parameter is of its type whether it was sent or left out."""
    if not converters:
        return function
    defaults: dict[str, Any] = {}
    for key, convert in converters.items():
        default = signature.parameters[key].default
        if default is not inspect.Parameter.empty:
            with contextlib.suppress(Exception):  # a default of another type (None ...): kept as it is
                defaults[key] = convert(default)

    def typed(**arguments: Any) -> Any:
        for key, convert in converters.items():
            if key in arguments:
                arguments[key] = convert(arguments[key])
            elif key in defaults:
                arguments[key] = defaults[key]
        return function(**arguments)

    return typed


def parameters_schema(function: Callable[..., Any], *, name: str | None = None) -> dict[str, Any]:
    """The JSON Schema (an object) of ``function``'s keyword parameters (see docs/migrating.md)."""
    return typed_parameters(function, name=name)[0]


def return_schema(function: Callable[..., Any], *, name: str | None = None) -> dict[str, Any] | None:
    """The schema of ``data`` for a function's return annotation (a value that is not a dict is
    wrapped as ``{"output": value}``), or None when the annotation says nothing useful."""
    where = f"tool {name or getattr(function, '__name__', repr(function))}"
    annotation = _hints(function, where).get("return", inspect.Parameter.empty)
    if annotation is None or annotation is type(None):
        return None
    try:
        schema = _schema_of(annotation, where)[0]
    except ToolDefinitionError:
        return None
    if schema.get("type") == "object":
        return schema
    if not schema or "anyOf" in schema:  # any value, or a union that may or may not be a dict
        return None
    return {"type": "object", "properties": {"output": schema}, "required": ["output"]}


def _keyword(error: Any) -> str:
    return next((part for part in reversed(list(error.schema_path)) if isinstance(part, str)), "schema")


_QUOTED = 60


def _message(error: jsonschema_rs.ValidationError) -> str:
    """The validator's message with the long value it quotes first cut short, so that the rule
    after it ("is longer than 500 characters") is still read when the message is bounded."""
    message: str = error.message
    try:
        quoted = orjson.dumps(error.instance).decode("utf-8")
    except orjson.JSONEncodeError:
        return message
    if len(quoted) <= _QUOTED or not message.startswith(quoted):
        return message
    return shortened(quoted, _QUOTED) + message[len(quoted) :]


@dataclass(frozen=True, slots=True)
class ParameterValidator:
    """A JSON Schema compiled once; ``violations(value)`` is empty for a valid value."""

    schema: dict[str, Any]
    _validator: Any

    @classmethod
    def compile(cls, schema: Mapping[str, Any], *, where: str) -> ParameterValidator:
        """Compile ``schema``; raises ``ToolDefinitionError`` for one that is not valid or not
        self-contained."""
        if not isinstance(schema, Mapping) or not is_json_data(dict(schema)):
            raise ToolDefinitionError(f"{where}: a schema must be a JSON object (a dict of JSON values)")
        plain = dict(schema)
        try:
            validator = jsonschema_rs.validator_for(plain, offline=True)  # checked against its meta-schema
        except (jsonschema_rs.ValidationError, ValueError) as error:
            if isinstance(error, jsonschema_rs.ValidationError) and error.instance_path:
                problem = f"not a valid JSON Schema at {json_pointer(error.instance_path)}: {error.message}"
            else:  # a $ref that does not resolve here, ...
                problem = f"the schema cannot be compiled: {str(error).splitlines()[0]}"
            raise ToolDefinitionError(f"{where}: {problem}") from None
        return cls(plain, validator)

    def verdict(self) -> Callable[[Any], bool]:
        """Whether a value (JSON data) satisfies the schema: the compiled check itself."""
        function: Callable[[Any], bool] = self._validator.is_valid
        return function

    def violations(
        self, value: Any, *, limit: int | None = 20, schema_paths: bool = False
    ) -> tuple[SchemaViolation, ...]:
        """Every way ``value`` breaks the schema, up to ``limit`` (None: all); with ``schema_paths``,
        each names the failed keyword's place in the schema too."""
        if self._validator.is_valid(value):
            return ()
        found: list[SchemaViolation] = []
        for error in self._validator.iter_errors(value):
            found.append(
                SchemaViolation(
                    pointer=json_pointer(error.instance_path),
                    keyword=_keyword(error),
                    message=_message(error),
                    schema_path=json_pointer(error.schema_path) if schema_paths else None,
                )
            )
            if limit is not None and len(found) >= limit:
                break
        return tuple(found)
