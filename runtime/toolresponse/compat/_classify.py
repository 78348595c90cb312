"""The classifier: two schema sets walked side by side, every difference named by a rule.

The walk compares the same keyword at the same place on both sides and asks,
keyword by keyword, whether the set of accepted documents shrank (a type,
value or member no longer accepted), grew (one newly accepted), stayed the
same with other behaviour (the error codes' metadata, defaults), or stayed the
same (annotations). Inside ``if`` and ``not`` the direction flips or splits,
so a change there is treated as shrinking (``condition-changed``). Where a
``$ref`` points elsewhere, the two targets are compared in its place; where it
points to the same schema, that schema is compared where it is defined.

Nothing here recurses on the depth of a schema: each comparison yields the
subschema comparisons it needs and one loop makes them, depth first, and
canonical texts are built with an explicit stack, so that a schema nested as
deeply as the reader accepts (``MAX_NESTING``) is compared like any other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ._documents import SchemaSet, location
from ._rules import RULES, ChangeClass

__all__ = ["Change", "SchemaDiff", "diff_schema_sets"]

Path = list[str | int]

_ANNOTATIONS = {
    "title": "title-changed",
    "description": "description-changed",
    "$comment": "comment-changed",
    "examples": "examples-changed",
    "x-enum-descriptions": "description-changed",
}
_NOTES = frozenset({"deprecated", "readOnly", "writeOnly"})
_LOWER_BOUNDS = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_UPPER_BOUNDS = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
_OTHER_CONSTRAINTS = frozenset({"pattern", "format", "multipleOf", "uniqueItems", "contentEncoding"})
_SUBSCHEMAS = frozenset(
    {"items", "contains", "propertyNames", "then", "else", "unevaluatedItems", "unevaluatedProperties"}
)
_MEMBERS = frozenset({"properties", "patternProperties", "additionalProperties"})
_ALL_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")
_CODE_FIELDS = {
    "category": "code-category-changed",
    "retryable": "code-retryable-changed",
    "http_status": "code-http-status-changed",
}
_SET_CLASSES = frozenset({ChangeClass.BREAKING_PRODUCERS, ChangeClass.BREAKING_CONSUMERS})
_SEVERITY = list(ChangeClass)


@dataclass(frozen=True)
class Change:
    """One difference between two schema sets.

    ``pointer`` is ``file#/json/pointer`` (the place on the new side; for something removed, where
    it was), ``keyword`` the JSON Schema keyword that differs, ``rule`` the name of the rule that
    classified it (``RULES``) and ``change_class`` that rule's class.
    """

    change_class: ChangeClass
    rule: str
    pointer: str
    keyword: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {
            "class": str(self.change_class),
            "rule": self.rule,
            "pointer": self.pointer,
            "keyword": self.keyword,
            "message": self.message,
        }


@dataclass(frozen=True)
class SchemaDiff:
    """Every change from ``old`` to ``new``, in the order the walk met them."""

    old: str
    new: str
    changes: tuple[Change, ...]
    major: int | None = None
    """The major version of the old side, when its ``$id``\\ s carry one (``/v1/``)."""

    def of_class(self, *classes: ChangeClass) -> tuple[Change, ...]:
        return tuple(change for change in self.changes if change.change_class in classes)

    @property
    def breaking(self) -> tuple[Change, ...]:
        """The changes that break producers or consumers."""
        return self.of_class(ChangeClass.BREAKING_PRODUCERS, ChangeClass.BREAKING_CONSUMERS)

    @property
    def worst(self) -> ChangeClass | None:
        """The most severe class among the changes (``None`` when there are none)."""
        found = {change.change_class for change in self.changes}
        return next((cls for cls in _SEVERITY if cls in found), None)

    def counts(self) -> dict[ChangeClass, int]:
        return {cls: len(self.of_class(cls)) for cls in ChangeClass}

    @property
    def needs(self) -> str:
        """What a change that is not compatible needs: ``v2`` after v1, else a new major version."""
        return f"v{self.major + 1}" if self.major is not None else "a new major version"


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


class _CanonicalTexts:
    """Canonical texts of JSON values: equal for equal JSON values only (Python's ``1 == 1.0 ==
    True`` is not JSON's), compact, members sorted by name.

    Each array's and object's text is built once, from its children's, and kept (with the value,
    so that its ``id`` stays its own) for the next time it is asked for: a walk that compares every
    subschema of a chain nested a thousand levels deep builds each level's text once, not once per
    level above it. Built with an explicit stack, whatever the depth.
    """

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, str]] = {}

    def __call__(self, value: Any) -> str:
        if not isinstance(value, dict | list):
            return _scalar(value)
        known = self._known
        pending, started = [value], set()
        while pending:
            node = pending[-1]
            if id(node) in known:
                pending.pop()
                continue
            children = node.values() if isinstance(node, dict) else node
            missing = [
                child for child in children if isinstance(child, dict | list) and id(child) not in known
            ]
            if not missing:
                pending.pop()
                known[id(node)] = (node, self._joined(node))
                continue
            if id(node) in started:
                raise ValueError("a value that contains itself is not JSON")
            started.add(id(node))
            pending.extend(missing)
        return known[id(value)][1]

    def _joined(self, node: dict[str, Any] | list[Any]) -> str:
        """The text of ``node``, whose children's texts are known."""
        if isinstance(node, list):
            return "[" + ",".join(self._child(element) for element in node) + "]"
        members = (_scalar(name) + ":" + self._child(node[name]) for name in sorted(node))
        return "{" + ",".join(members) + "}"

    def _child(self, value: Any) -> str:
        return self._known[id(value)][1] if isinstance(value, dict | list) else _scalar(value)


def _canonical(value: Any) -> str:
    """The canonical text of one value (``_CanonicalTexts``)."""
    return _CanonicalTexts()(value)


def _show(value: Any) -> str:
    text = _canonical(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        return list(_ALL_TYPES)
    return [declared] if isinstance(declared, str) else list(declared)


def _covered(type_name: str, types: Iterable[str]) -> bool:
    types = set(types)
    return type_name in types or (type_name == "integer" and "number" in types)


def _asserts(schema: Any) -> bool:
    """Whether ``schema`` rejects anything (a boolean ``false``, or any keyword but annotations)."""
    if isinstance(schema, bool):
        return not schema
    return any(
        not (key in _ANNOTATIONS or key in _NOTES or key == "default" or key.startswith("x-"))
        for key in schema
    )


def _member_schema(schema: Mapping[str, Any], name: str) -> Any:
    """The schema a member called ``name`` is checked against: its own, a matching pattern's, or the
    additional members' (``true`` when none is given)."""
    properties = schema.get("properties", {})
    if name in properties:
        return properties[name]
    for pattern, subschema in schema.get("patternProperties", {}).items():
        if re.search(pattern, name):
            return subschema
    return schema.get("additionalProperties", True)


# The rule for a subschema that became ``true``-like from ``false`` (opened) or ``false`` (closed),
# by the place it stands in; elsewhere it is subschema-accepts-more / subschema-rejects-all.
_OPENED = {
    "property": "property-added",
    "additional": "additional-properties-opened",
    "pattern": "additional-properties-opened",
}
_CLOSED = {
    "property": "property-removed",
    "additional": "additional-properties-closed",
    "pattern": "additional-properties-closed",
}


class _Place(NamedTuple):
    """Where the walk is: the old and the new document, the path in the new one, and whether it is
    inside ``if`` or ``not``, where the direction of a change is not followed."""

    old_file: str
    file: str
    path: Path
    conditional: bool = False

    def at(self, *keys: str | int) -> _Place:
        return self._replace(path=[*self.path, *keys])


class _Compare(NamedTuple):
    """A comparison of two subschemas that the walk is to make next (``what`` names the place, for
    the false/true rules)."""

    old: Any
    new: Any
    place: _Place
    what: str


_Steps = Iterator[_Compare]
"""A comparison in progress: the subschema comparisons it needs, each made in full before it goes on."""


@dataclass
class _Walk:
    old: SchemaSet
    new: SchemaSet
    changes: list[Change] = field(default_factory=list)
    _followed: set[tuple[str, str, str, str]] = field(default_factory=set)
    text: _CanonicalTexts = field(default_factory=_CanonicalTexts)

    # -- recording -----------------------------------------------------------------------------

    def emit(self, rule: str, place: _Place, keyword: str, message: str, *, anywhere: bool = False) -> None:
        """Record a change; ``anywhere``: the rule holds inside ``if`` and ``not`` too."""
        rule_class = RULES[rule].change_class
        if place.conditional and not anywhere and rule_class in _SET_CLASSES:
            message = f"{message} (inside if or not, where the direction is not followed)"
            rule, rule_class = "condition-changed", RULES["condition-changed"].change_class
        self.changes.append(Change(rule_class, rule, location(place.file, place.path), keyword, message))

    def was(self, rule: str, place: _Place, key: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        """Record a change of ``key`` saying what it was and what it is."""
        self.emit(rule, place.at(key), key, f"{key} {_was(old, new, key)}")

    # -- the walk ------------------------------------------------------------------------------

    def files(self) -> None:
        for name in self.new.documents:
            if name not in self.old.documents:
                self.emit("schema-added", _Place(name, name, []), "", f"new schema document {name}")
        for name in self.old.documents:
            if name not in self.new.documents:
                self.emit("schema-removed", _Place(name, name, []), "", f"schema document {name} was removed")
                continue
            self.compare(
                _Compare(self.old.documents[name], self.new.documents[name], _Place(name, name, []), "schema")
            )

    def compare(self, first: _Compare) -> None:
        """Make the comparison ``first`` and every one it needs, depth first, in one loop: the
        depth of a schema is the length of a list here, never of the call stack."""
        pending = [self.schema(first)]
        while pending:
            step = next(pending[-1], None)
            if step is None:
                pending.pop()
            else:
                pending.append(self.schema(step))

    def schema(self, compare: _Compare) -> _Steps:
        """Compare two subschemas."""
        old, new, place, what = compare
        if self.text(old) == self.text(new):
            return
        if old is False or new is False:
            if old is False and new is not False:
                rule = _OPENED.get(what, "subschema-accepts-more")
                self.emit(rule, place, "", "accepted nothing here; now accepts values")
            elif new is False:
                rule = _CLOSED.get(what, "subschema-rejects-all")
                self.emit(rule, place, "", "accepted values here; now accepts nothing")
            return
        old = {} if old is True else old
        new = {} if new is True else new
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.emit("unknown-keyword-changed", place, "", "not a schema on one side")
            return
        if what == "property" and not _asserts(old) and _asserts(new) and place.path[-2:-1] == ["properties"]:
            message = f"member {place.path[-1]!r} accepted any value; it now has a schema"
            self.emit("property-constrained", place, "properties", message)
            return
        yield from self.keywords(old, new, place)

    def keywords(self, old: dict[str, Any], new: dict[str, Any], place: _Place) -> _Steps:
        members_done = False
        for key in [*new, *(key for key in old if key not in new)]:
            if key in old and key in new and self.text(old[key]) == self.text(new[key]):
                continue
            at = place.at(key)
            if key in _MEMBERS:
                if not members_done:
                    yield from self.members(old, new, place)
                    members_done = True
            elif key in _LOWER_BOUNDS or key in _UPPER_BOUNDS:
                self.bound(key, old.get(key), new.get(key), at)
            elif key in _ANNOTATIONS:
                self.emit(_ANNOTATIONS[key], at, key, f"{key} changed")
            elif key in _NOTES:
                self.was("annotation-added" if key not in old else "annotation-changed", place, key, old, new)
            elif key == "default":
                self.emit("default-changed", at, key, _was(old, new, key))
            elif key == "x-error-codes":
                self.error_codes(old.get(key, {}), new.get(key, {}), at)
            elif key.startswith("x-"):
                rule = "annotation-added" if key not in old else "annotation-changed"
                self.emit(rule, at, key, f"vendor annotation {key} {_was(old, new, key)}", anywhere=True)
            elif key == "$schema":
                self.emit("dialect-changed", at, key, _was(old, new, key), anywhere=True)
            elif key == "$id":
                self.emit("id-changed", at, key, _was(old, new, key), anywhere=True)
            elif key == "$defs":
                yield from self.definitions(old.get(key, {}), new.get(key, {}), at)
            elif key == "$ref":
                yield from self.reference(old, new, at)
            elif key == "type":
                self.type(old, new, at)
            elif key == "enum":
                self.enum(old, new, at)
            elif key == "const":
                self.const(old, new, place)
            elif key == "required":
                self.required(old.get(key, []), new.get(key, []), at)
            elif key in _OTHER_CONSTRAINTS:
                self.constraint(key, old, new, place)
            elif key in _SUBSCHEMAS:
                yield _Compare(old.get(key, True), new.get(key, True), at, key)
            elif key in {"not", "if"}:
                yield _Compare(old.get(key, {}), new.get(key, {}), at._replace(conditional=True), key)
            elif key in {"allOf", "anyOf", "oneOf", "prefixItems"}:
                yield from self.applicators(key, old, new, place)
            elif key == "dependentSchemas":
                for name in {*old.get(key, {}), *new.get(key, {})}:
                    before, after = old.get(key, {}).get(name, True), new.get(key, {}).get(name, True)
                    yield _Compare(before, after, at.at(name), key)
            else:
                message = f"keyword {key} {_was(old, new, key)}; the classifier does not know it"
                self.emit("unknown-keyword-changed", at, key, message)

    # -- keywords ------------------------------------------------------------------------------

    def members(self, old: dict[str, Any], new: dict[str, Any], place: _Place) -> _Steps:
        old_properties, new_properties = old.get("properties", {}), new.get("properties", {})
        for name in [*new_properties, *(name for name in old_properties if name not in new_properties)]:
            before, after = _member_schema(old, name), _member_schema(new, name)
            yield _Compare(before, after, place.at("properties", name), "property")
        old_patterns, new_patterns = old.get("patternProperties", {}), new.get("patternProperties", {})
        old_rest, new_rest = old.get("additionalProperties", True), new.get("additionalProperties", True)
        for pattern in [*new_patterns, *(p for p in old_patterns if p not in new_patterns)]:
            before, after = old_patterns.get(pattern, old_rest), new_patterns.get(pattern, new_rest)
            yield _Compare(before, after, place.at("patternProperties", pattern), "pattern")
        yield _Compare(old_rest, new_rest, place.at("additionalProperties"), "additional")

    def type(self, old: dict[str, Any], new: dict[str, Any], at: _Place) -> None:
        old_types, new_types = _types(old), _types(new)
        removed = [name for name in old_types if not _covered(name, new_types)]
        added = [name for name in new_types if not _covered(name, old_types)]
        if removed:
            self.emit("type-narrowed", at, "type", f"{', '.join(removed)} no longer accepted")
        if added:
            self.emit("type-widened", at, "type", f"{', '.join(added)} now accepted")

    def enum(self, old: dict[str, Any], new: dict[str, Any], at: _Place) -> None:
        if "enum" not in old:
            self.emit("enum-introduced", at, "enum", "values are now limited to a closed set")
            return
        if "enum" not in new:
            self.emit("enum-lifted", at, "enum", "the closed set of values was lifted")
            return
        old_values = [self.text(value) for value in old["enum"]]
        new_values = [self.text(value) for value in new["enum"]]
        for index, value in enumerate(old_values):
            if value not in new_values:
                self.emit(
                    "enum-value-removed", at.at(index), "enum", f"{value} was removed from the closed set"
                )
        for index, value in enumerate(new_values):
            if value not in old_values:
                message = f"{value} was added to a closed set; consumers that switch over every value break"
                self.emit("enum-value-added", at.at(index), "enum", message)
        if set(old_values) == set(new_values):
            self.emit("enum-reordered", at, "enum", "the same values in another order")

    def const(self, old: dict[str, Any], new: dict[str, Any], place: _Place) -> None:
        if "const" not in new:
            self.emit("enum-lifted", place.at("const"), "const", f"const {_show(old['const'])} was lifted")
        else:
            self.emit("const-changed", place.at("const"), "const", _was(old, new, "const"))

    def required(self, old: list[str], new: list[str], at: _Place) -> None:
        for name in new:
            if name not in old:
                self.emit("required-added", at, "required", f"member {name!r} is now required")
        for name in old:
            if name not in new:
                self.emit("required-removed", at, "required", f"member {name!r} is no longer required")

    def bound(self, key: str, old: Any, new: Any, at: _Place) -> None:
        lower = key in _LOWER_BOUNDS
        if old is None:
            rule, message = "constraint-tightened", f"{key} {_show(new)} added"
        elif new is None:
            rule, message = "constraint-relaxed", f"{key} {_show(old)} removed"
        else:
            tighter = (new > old) if lower else (new < old)
            rule = "constraint-tightened" if tighter else "constraint-relaxed"
            message = f"{key} changed from {_show(old)} to {_show(new)}"
        self.emit(rule, at, key, message)

    def constraint(self, key: str, old: dict[str, Any], new: dict[str, Any], place: _Place) -> None:
        if key == "uniqueItems":
            tighter = bool(new.get(key, False))
            rule = "constraint-tightened" if tighter else "constraint-relaxed"
        elif key not in new:
            rule = "constraint-relaxed"
        else:
            rule = "constraint-tightened"  # added, or changed: the direction is not decided, so shrinking
        self.was(rule, place, key, old, new)

    def applicators(self, key: str, old: dict[str, Any], new: dict[str, Any], place: _Place) -> _Steps:
        if key in {"anyOf", "oneOf"} and (key not in old or key not in new):
            self.was("constraint-tightened" if key in new else "constraint-relaxed", place, key, old, new)
            return
        # A branch missing on one side: false for anyOf/oneOf (it accepted nothing), true for allOf.
        missing: Any = key not in {"anyOf", "oneOf"}
        old_items, new_items = old.get(key, []), new.get(key, [])
        for index in range(max(len(old_items), len(new_items))):
            before = old_items[index] if index < len(old_items) else missing
            after = new_items[index] if index < len(new_items) else missing
            yield _Compare(before, after, place.at(key, index), key)

    def definitions(self, old: dict[str, Any], new: dict[str, Any], at: _Place) -> _Steps:
        for name in new:
            if name not in old:
                self.emit("definition-added", at.at(name), "$defs", f"new definition {name}", anywhere=True)
        for name in old:
            if name not in new:
                message = f"definition {name} was removed"
                self.emit("definition-removed", at.at(name), "$defs", message, anywhere=True)
            else:
                yield _Compare(old[name], new[name], at.at(name), "definition")

    def reference(self, old: dict[str, Any], new: dict[str, Any], at: _Place) -> _Steps:
        if "$ref" not in old or "$ref" not in new:
            rule = "constraint-tightened" if "$ref" in new else "constraint-relaxed"
            self.emit(rule, at, "$ref", f"$ref {_was(old, new, '$ref')}")
            return
        old_target_file, old_path, old_target = self.old.resolve(old["$ref"], at.old_file)
        new_target_file, new_path, new_target = self.new.resolve(new["$ref"], at.file)
        key = (location(old_target_file, old_path), location(new_target_file, new_path), at.old_file, at.file)
        if key[0] == key[1]:
            message = f"$ref {_was(old, new, '$ref')}, the same schema"
            self.emit("ref-retargeted", at, "$ref", message, anywhere=True)
            return
        if key in self._followed:
            return
        self._followed.add(key)
        before = len(self.changes)
        target = _Place(old_target_file, new_target_file, new_path, at.conditional)
        yield _Compare(old_target, new_target, target, "reference")
        if len(self.changes) == before:
            message = f"$ref changed from {old['$ref']} to {new['$ref']}, which accept the same values"
            self.emit("ref-retargeted", at, "$ref", message)

    def error_codes(self, old: dict[str, Any], new: dict[str, Any], at: _Place) -> None:
        """Each code's metadata; these rules hold wherever they appear (``anywhere``)."""
        for code in new:
            if code not in old:
                self.emit(
                    "code-metadata-added", at.at(code), "x-error-codes", f"metadata for {code}", anywhere=True
                )
        for code in old:
            if code not in new:
                message = f"{code} lost its category, default retryability and HTTP status"
                self.emit("code-metadata-removed", at.at(code), "x-error-codes", message, anywhere=True)
                continue
            before, after = old[code], new[code]
            if not isinstance(before, dict) or not isinstance(after, dict):
                if self.text(before) != self.text(after):
                    self.emit("code-metadata-changed", at.at(code), "x-error-codes", code, anywhere=True)
                continue
            for name in [*after, *(name for name in before if name not in after)]:
                if self.text(before.get(name)) != self.text(after.get(name)):
                    message = f"{code}: {name} {_was(before, after, name)}"
                    self.emit(
                        _code_field_rule(name, before),
                        at.at(code, name),
                        "x-error-codes",
                        message,
                        anywhere=True,
                    )


def _code_field_rule(name: str, before: Mapping[str, Any]) -> str:
    """The rule of a change of the member ``name`` of a code's metadata (``before``: the old one).

    A vendor annotation (``x-...``) of a code is classified as one of a schema: new, it changes
    nothing a party relied on; changed or removed, tools that act on it behave otherwise. Any
    other member is the code's metadata proper (its category, retryability, HTTP status ...)."""
    if name.startswith("x-"):
        return "annotation-added" if name not in before else "annotation-changed"
    return _CODE_FIELDS.get(name, "code-metadata-changed")


def _was(old: Mapping[str, Any], new: Mapping[str, Any], key: str) -> str:
    if key not in old:
        return f"added: {_show(new[key])}"
    if key not in new:
        return f"removed (was {_show(old[key])})"
    return f"changed from {_show(old[key])} to {_show(new[key])}"


_MAJOR = re.compile(r"/v(\d+)/")


def _major(schemas: SchemaSet) -> int | None:
    for document in schemas.documents.values():
        if isinstance(document, dict):
            found = _MAJOR.search(str(document.get("$id", "")))
            if found:
                return int(found.group(1))
    return None


def diff_schema_sets(old: SchemaSet, new: SchemaSet) -> SchemaDiff:
    """Every change from the schema set ``old`` to ``new``, each classified by a rule."""
    walk = _Walk(old, new)
    walk.files()
    return SchemaDiff(old.source, new.source, tuple(walk.changes), _major(old))
