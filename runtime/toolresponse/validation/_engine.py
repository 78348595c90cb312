"""The two validation engines over the bundled v1 schema, behind one small interface: ``fast`` is
jsonschema-rs, ``reference`` python-jsonschema (imported on first use, and used where jsonschema-rs
cannot list the errors of a value nested some 250 levels deep); the tests hold them to the same verdicts.
"""

from __future__ import annotations

import operator
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from itertools import filterfalse
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import jsonschema_rs

from ._schema import bundled_schema

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

EngineName = Literal["fast", "reference"]

Path = tuple[str | int, ...]


def json_pointer(path: Iterable[str | int]) -> str:
    """The RFC 6901 pointer of an instance path ("" for the whole value)."""
    pointer = ""
    for part in path:
        text = str(part)
        if "~" in text or "/" in text:
            text = text.replace("~", "~0").replace("/", "~1")
        pointer += "/" + text
    return pointer


class EngineError(NamedTuple):
    """One failed keyword, in the same form from either engine: where in the instance, the keyword,
    where in the bundle, the failing value (the object, for ``required`` and
    ``additionalProperties``), the missing or unknown member, and the engine's own wording."""

    path: Path
    keyword: str
    schema_path: Path
    instance: Any
    member: str | None
    message: str


def _parts(reference: str) -> list[str]:
    if not reference.startswith("#"):
        raise LookupError(f"the bundle has an external reference {reference!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in reference[1:].split("/")[1:]]


def _resolve(reference: str) -> Any:
    return schema_node(_parts(reference))


def _through(node: Any, part: str | int) -> tuple[Any, str | None]:
    """``node``, or the definition its ``$ref`` leads to when it has no ``part`` (and that ``$ref``)."""
    reference = None
    while isinstance(node, dict) and part not in node and "$ref" in node:
        reference = node["$ref"]
        node = _resolve(reference)
    return node, reference


def schema_node(path: Iterable[str | int]) -> Any:
    """The node of the bundled schema at ``path``, following ``$ref`` where the path leaves one."""
    node: Any = bundled_schema()
    for part in path:
        node = _through(node, part)[0][part]
    return node


@cache
def keyword_location(schema_path: Path) -> str:
    """The pointer of the keyword at ``schema_path`` where it is written in the bundle: through a
    ``$ref`` it starts again at the definition (the engines spell such paths differently)."""
    node: Any = bundled_schema()
    location: list[str | int] = []
    for part in schema_path:
        node, reference = _through(node, part)
        if reference is not None:
            location = list(_parts(reference))
        if part == "$ref" and isinstance(node, dict) and "$ref" in node:
            continue
        try:
            node = node[part]
        except (LookupError, TypeError):  # a path that goes on past the nodes of the bundle
            node = None
        location.append(part)
    return json_pointer(location)


@cache
def keyword_owner(schema_path: Path) -> Mapping[str, Any]:
    """The schema object that holds the keyword at ``schema_path`` (its siblings: properties ...)."""
    owner: Mapping[str, Any] = _through(schema_node(schema_path[:-1]), schema_path[-1])[0]
    return owner


def unexpected_members(instance: Any, owner: Mapping[str, Any]) -> list[str]:
    """The members of ``instance`` that neither ``properties`` nor ``patternProperties`` of ``owner`` name."""
    if not isinstance(instance, dict):
        return []
    properties = owner.get("properties", {})
    names = [name for name in instance if name not in properties]
    patterns = owner.get("patternProperties")
    if not patterns or not names:
        return names
    return list(filterfalse(re.compile("|".join(f"(?:{pattern})" for pattern in patterns)).search, names))


def _value_at(instance: Any, path: Path) -> Any:
    for part in path:
        instance = instance[part]
    return instance


class FastEngine:
    """jsonschema-rs over the bundle (``is_valid`` raises ``ValueError`` for a value that is not JSON)."""

    name: EngineName = "fast"

    def __init__(self, schema: dict[str, Any]) -> None:
        self._validator = jsonschema_rs.validator_for(schema)
        self.is_valid: Callable[[Any], bool] = self._validator.is_valid

    def errors(self, instance: Any, limit: int) -> tuple[list[EngineError], int]:
        """The errors of ``instance`` (of one object's unknown members, the first ``limit``), and how
        many members that left out."""
        out: list[EngineError] = []
        left_out = 0
        try:
            for error in self._validator.iter_errors(instance):
                kind = error.kind
                keyword = kind.name
                path = tuple(error.instance_path)
                schema_path = tuple(error.schema_path)
                # The failing value is read from the instance itself: no conversion back from Rust.
                value = _value_at(instance, path)
                members: Sequence[str | None]
                if isinstance(kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties):
                    members = kind.unexpected
                elif isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
                    members = [kind.property]
                else:
                    members = [None]
                left_out += max(len(members) - limit, 0)
                out.extend(
                    EngineError(path, keyword, schema_path, value, name, error.message)
                    for name in members[:limit]
                )
        except (ValueError, LookupError, TypeError):
            # jsonschema-rs gives up on a value nested too deeply or not JSON at all.
            return engine("reference").errors(instance, limit)
        return out, left_out


class ReferenceEngine:
    """jsonschema's Draft 2020-12 validator over the bundle (imported on first use)."""

    name: EngineName = "reference"

    def __init__(self, schema: dict[str, Any]) -> None:
        from jsonschema import Draft202012Validator

        self._validator: Draft202012Validator = Draft202012Validator(schema)
        self.is_valid: Callable[[Any], bool] = self._validator.is_valid

    def errors(self, instance: Any, limit: int) -> tuple[list[EngineError], int]:
        try:
            raw = list(self._validator.iter_errors(instance))
        except RecursionError:
            message = "the response nests too deeply for its errors to be listed"
            return [EngineError((), "depth", (), instance, None, message)], 0
        except (TypeError, ValueError) as failure:
            reason = str(failure) or type(failure).__name__
            return [EngineError((), "type", (), instance, None, f"not a JSON value ({reason})")], 0
        missing_taken: dict[tuple[Path, Path], int] = {}
        out: list[EngineError] = []
        left_out = 0
        for error in raw:
            keyword = str(error.validator)
            path = tuple(error.absolute_path)
            schema_path = tuple(error.absolute_schema_path)
            members: Sequence[str | None]
            if keyword == "required":
                # jsonschema yields one error per missing member, in the order of the keyword's list.
                missing = [name for name in error.validator_value if name not in error.instance]
                taken = missing_taken.get((path, schema_path), 0)
                missing_taken[(path, schema_path)] = taken + 1
                members = [missing[taken] if taken < len(missing) else None]
            elif keyword == "additionalProperties":
                members = unexpected_members(error.instance, keyword_owner(schema_path))
            else:
                members = [None]
            left_out += max(len(members) - limit, 0)
            out.extend(
                EngineError(path, keyword, schema_path, error.instance, name, error.message)
                for name in members[:limit]
            )
        return out, left_out


ValidationEngine = FastEngine | ReferenceEngine


@cache
def engine(name: EngineName = "fast") -> ValidationEngine:
    """The engine called ``name``, built once per process over the bundled schema."""
    if name == "fast":
        return FastEngine(bundled_schema())
    if name == "reference":
        return ReferenceEngine(bundled_schema())
    raise ValueError(f"unknown validation engine {name!r}; use 'fast' or 'reference'")


# Projection: the part of an instance the schema can see. Explaining costs jsonschema-rs about ten
# microseconds, and logs repeat their mistakes line after line: explanations are cached by what the
# schema's keywords, and the messages about them, depend on (read from the schema): member names,
# values under enum and const, a string's length as minLength/maxLength tell it (or its first 41
# characters, a message quoting 40), which number keywords a number meets, whether an array is
# empty. A keyword not known keeps the value whole. The test suite holds an instance and its
# projection to the same violations.

_QUOTED_CHARACTERS = 41
_MEMO_LIMIT = 1024
_ALL_KINDS = ("object", "array", "string", "integer", "number", "boolean", "null")
_NUMBER_STAND_INS: Mapping[str, tuple[int | float, ...]] = {
    "integer": (0, 1, -1, 10**9, -(10**9)),
    "number": (0.5, -0.5, 1.5, 1e9 + 0.5, -1e9 - 0.5),
}
_COMPARISONS: Mapping[str, Callable[[Any, Any], bool]] = {
    "minimum": operator.ge,
    "maximum": operator.le,
    "exclusiveMinimum": operator.gt,
    "exclusiveMaximum": operator.lt,
}

Projector = Callable[[Any], Any]


class TooLarge(ValueError):
    """An object of more members than a projection reads (``_MEMO_LIMIT``)."""


def _identity(value: Any) -> Any:
    return value


_ANNOTATIONS = (
    *("$anchor", "$comment", "$defs", "$id", "$schema", "default", "definitions", "deprecated"),
    *("description", "examples", "readOnly", "title", "writeOnly"),
)
_OBJECT_KEYWORDS = frozenset(("properties", "patternProperties", "additionalProperties", "required"))
_SUBSCHEMAS = frozenset(("if", "then", "else", "not", "allOf", "anyOf", "oneOf"))
_KNOWN = frozenset(
    (*_ANNOTATIONS, *_OBJECT_KEYWORDS, *_SUBSCHEMAS, *_COMPARISONS, "$ref", "type", "minLength", "maxLength")
)


def _keywords(nodes: Iterable[Any]) -> dict[str, list[Any]] | None:
    """The values of each keyword in ``nodes`` and the subschemas they lead to, or None when a
    value must be kept whole: a keyword not known (enum, const, pattern, items ...), a ``$ref``
    met again, a bound that is not a number, a schema ``false``."""
    found: dict[str, list[Any]] = defaultdict(list)
    pending = list(nodes)
    while pending:
        node = pending.pop()
        if node is True:
            continue
        if not isinstance(node, dict):
            return None
        for keyword, value in node.items():
            if keyword not in _KNOWN and not keyword.startswith("x-"):
                return None
            if keyword == "$ref":
                if not isinstance(value, str) or value in found["$ref"]:
                    return None
                pending.append(_resolve(value))
            elif keyword in _SUBSCHEMAS:
                pending.extend(value if isinstance(value, list) else [value])
            elif keyword in _COMPARISONS and (isinstance(value, bool) or not isinstance(value, int | float)):
                return None
            found[keyword].append(value)
    return found


def _stand_in(checks: Iterable[tuple[Callable[[Any, Any], bool], Any]], kind: str) -> int | float | None:
    """The first stand-in number of ``kind`` that meets every number keyword, if any."""
    for stand_in in _NUMBER_STAND_INS[kind]:
        if all(meets(stand_in, limit) for meets, limit in checks):
            return stand_in
    return None


class Projection:
    """What a set of schema nodes needs of a value; ``project(value)`` keeps just that."""

    def __init__(self, nodes: Iterable[Any]) -> None:
        found = _keywords(nodes)
        read: dict[str, list[Any]] = defaultdict(list) if found is None else found
        self._memo: dict[str, Projector] = {}
        self._properties: dict[str, list[Any]] = {}
        for members in read["properties"]:
            for name, subschema in members.items():
                self._properties.setdefault(name, []).append(subschema)
        self._patterns = [
            (re.compile(pattern), sub) for each in read["patternProperties"] for pattern, sub in each.items()
        ]
        self._additional = read["additionalProperties"]
        self.project: Projector = _identity if found is None else self._projector(found)

    def _child(self, name: str) -> Projection:
        """The projection of the member ``name`` of an object under these nodes."""
        nodes = list(self._properties.get(name, ()))
        nodes.extend(sub for pattern, sub in self._patterns if pattern.search(name))
        if name not in self._properties and len(nodes) == 0:
            # Under additionalProperties: false only the name fails; the value is never read.
            nodes = [node for node in self._additional if node is not False]
        return _projection(tuple(id(node) for node in nodes), nodes)

    def _member(self, name: str) -> Projector:
        """The projector of the member ``name`` (remembered for the first names seen)."""
        member = self._child(name).project
        if len(self._memo) < _MEMO_LIMIT:
            self._memo[name] = member
        return member

    def _projector(self, found: dict[str, list[Any]]) -> Projector:
        # The hot path of explaining invalid responses: everything it reads is bound here.
        types = [frozenset([value] if isinstance(value, str) else value) for value in found["type"]]
        typed_kinds = frozenset(
            kind
            for kind in _ALL_KINDS
            if all(kind in allowed or (kind == "integer" and "number" in allowed) for allowed in types)
        )
        string_keep = int(max([*found["minLength"], *(limit + 1 for limit in found["maxLength"])], default=0))
        quoted = max(_QUOTED_CHARACTERS, string_keep)
        objects = any(found[keyword] for keyword in _OBJECT_KEYWORDS)
        memo = self._memo
        member = self._member
        checks = tuple((_COMPARISONS[keyword], limit) for keyword in _COMPARISONS for limit in found[keyword])
        integer_stand_in = _stand_in(checks, "integer")
        number_stand_in = _stand_in(checks, "number")
        strings_typed = "string" in typed_kinds
        string_stand_in = "x" * string_keep
        integers_typed = "integer" in typed_kinds
        numbers_typed = "number" in typed_kinds

        def project(value: Any) -> Any:
            kind = type(value)
            if kind is dict:
                if not objects:
                    return {}
                if len(value) > _MEMO_LIMIT:
                    raise TooLarge  # many names, each to project: cheaper explained as it is
                out = {}  # a loop, not a comprehension: no frame of its own (Python 3.11)
                for name, item in value.items():
                    out[name] = (memo.get(name) or member(name))(item)
                return out
            if kind is str:
                if strings_typed:
                    return string_stand_in[: len(value)]
                return value[:quoted]
            if kind is int or kind is float:
                # A stand-in meeting the same keywords; the value itself when one fails (a message shows it).
                integral = kind is int or value.is_integer()
                if not (integers_typed if integral else numbers_typed):
                    return value
                for meets, limit in checks:
                    if not meets(value, limit):
                        return value
                stand_in = integer_stand_in if integral else number_stand_in
                return value if stand_in is None else stand_in
            if kind is list:
                return [None] if value else []
            return value

        return project


_PROJECTIONS: dict[tuple[int, ...], Projection] = {}


def _projection(key: tuple[int, ...], nodes: list[Any]) -> Projection:
    known = _PROJECTIONS.get(key)
    if known is None:
        known = Projection(nodes)
        if len(_PROJECTIONS) < _MEMO_LIMIT:
            _PROJECTIONS[key] = known
    return known


@cache
def root_projection() -> Projection:
    """The projection of a whole response under the bundled schema."""
    return Projection([bundled_schema()])
