"""The classifier: two schema sets walked side by side, every difference named by a rule.

The rules are docs/versioning.md's; ``_KEYWORDS`` gives each keyword its comparison. Nothing
recurses on a schema's depth: a comparison yields the comparisons it needs and one loop makes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from ._documents import SchemaSet, location
from ._rules import RULES, ChangeClass

_ANNOTATIONS = {
    "title": "title-changed",
    "description": "description-changed",
    "$comment": "comment-changed",
    "examples": "examples-changed",
    "x-enum-descriptions": "description-changed",
}
_NOTES = ("deprecated", "readOnly", "writeOnly")
_VALUES = {"$schema": "dialect-changed", "$id": "id-changed", "default": "default-changed"}
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_OTHER_CONSTRAINTS = ("pattern", "format", "multipleOf", "uniqueItems", "contentEncoding")
_SUBSCHEMAS = (
    "items",
    "contains",
    "propertyNames",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_MEMBERS = ("properties", "patternProperties", "additionalProperties")
_ALL_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")
_CODE_FIELDS = {
    "category": "code-category-changed",
    "retryable": "code-retryable-changed",
    "http_status": "code-http-status-changed",
}
_SET_CLASSES = (ChangeClass.BREAKING_PRODUCERS, ChangeClass.BREAKING_CONSUMERS)
_ANYWHERE = ("dialect-changed", "id-changed", "definition-removed")  # references break either way
# A subschema that went from ``false`` to accepting values (opened) or back (closed), by its place
_OPENED = {"property": "property-added", "additional": "additional-properties-opened"}
_CLOSED = {"property": "property-removed", "additional": "additional-properties-closed"}
_OPENED["pattern"], _CLOSED["pattern"] = _OPENED["additional"], _CLOSED["additional"]


@dataclass(frozen=True)
class Change:
    """One difference: ``pointer`` is ``file#/json/pointer`` on the new side (where it was, for
    something removed), ``rule`` the rule (``RULES``) that classified it."""

    change_class: ChangeClass
    rule: str
    pointer: str
    keyword: str
    message: str

    def to_json(self) -> dict[str, str]:
        members = asdict(self)
        return {"class": str(members.pop("change_class")), **members}


@dataclass(frozen=True)
class SchemaDiff:
    """Every change from ``old`` to ``new`` in the walk's order; ``major``: the old side's major
    version, when its ``$id``\\ s carry one (``/v1/``)."""

    old: str
    new: str
    changes: tuple[Change, ...]
    major: int | None = None

    def of_class(self, *classes: ChangeClass) -> tuple[Change, ...]:
        return tuple(change for change in self.changes if change.change_class in classes)

    def counts(self) -> dict[ChangeClass, int]:
        return {cls: len(self.of_class(cls)) for cls in ChangeClass}

    @property
    def needs(self) -> str:
        """What a change that is not compatible needs: ``v2`` after v1, else a new major version."""
        return f"v{self.major + 1}" if self.major is not None else "a new major version"


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


class _Texts:
    """Canonical texts of JSON values, equal for equal JSON only (``1 == 1.0 == True`` is not JSON's);
    each container's is built once, on a stack, and kept with the value so that its ``id`` stays its own."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, str]] = {}

    def __call__(self, value: Any) -> str:
        pending = [value]
        while pending:
            node = pending[-1]
            if not isinstance(node, dict | list) or id(node) in self._known:
                pending.pop()
                continue
            children = node.values() if isinstance(node, dict) else node
            missing = [
                child for child in children if isinstance(child, dict | list) and id(child) not in self._known
            ]
            if missing:
                pending.extend(missing)
                continue
            pending.pop()
            if isinstance(node, list):
                text = "[" + ",".join(map(self._of, node)) + "]"
            else:
                text = (
                    "{" + ",".join(_scalar(name) + ":" + self._of(node[name]) for name in sorted(node)) + "}"
                )
            self._known[id(node)] = (node, text)
        return self._of(value)

    def _of(self, value: Any) -> str:
        return self._known[id(value)][1] if isinstance(value, dict | list) else _scalar(value)


def _show(value: Any) -> str:
    text = _Texts()(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _was(old: Mapping[str, Any], new: Mapping[str, Any], key: str) -> str:
    if key not in old:
        return f"added: {_show(new[key])}"
    if key not in new:
        return f"removed (was {_show(old[key])})"
    return f"changed from {_show(old[key])} to {_show(new[key])}"


def _types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        return list(_ALL_TYPES)
    return [declared] if isinstance(declared, str) else list(declared)


def _covered(type_name: str, types: Iterable[str]) -> bool:
    return type_name in types or (type_name == "integer" and "number" in types)


def _asserts(schema: Any) -> bool:
    """Whether ``schema`` rejects anything (a boolean ``false``, or any keyword but annotations)."""
    if isinstance(schema, bool):
        return not schema
    annotations = (*_ANNOTATIONS, *_NOTES, "default")
    return any(not (key in annotations or key.startswith("x-")) for key in schema)


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


def _union(old: Iterable[str], new: Iterable[str]) -> list[str]:
    """The names of ``new``, then those of ``old`` that ``new`` lacks."""
    new = list(new)
    return [*new, *(name for name in old if name not in new)]


class _Place(NamedTuple):
    """Where the walk is: both documents, the path in the new one, and whether inside ``if``/``not``."""

    old_file: str
    file: str
    path: list[str | int]
    conditional: bool = False

    def at(self, *keys: str | int) -> _Place:
        return self._replace(path=[*self.path, *keys])


class _Compare(NamedTuple):
    """Two subschemas for the walk to compare (``what``: the place, for ``_OPENED`` and ``_CLOSED``)."""

    old: Any
    new: Any
    place: _Place
    what: str


_Steps = Iterator[_Compare]
"""A comparison in progress: the subschema comparisons it needs, each made in full before it goes on."""
_Schema = dict[str, Any]


@dataclass
class _Walk:
    old: SchemaSet
    new: SchemaSet
    changes: list[Change] = field(default_factory=list)
    _followed: set[tuple[str, str, str, str]] = field(default_factory=set)
    text: _Texts = field(default_factory=_Texts)

    def emit(self, rule: str, place: _Place, keyword: str, message: str) -> None:
        """Record a change; inside ``if`` and ``not`` only the rules of ``_ANYWHERE`` keep their direction."""
        if place.conditional and rule not in _ANYWHERE and RULES[rule].change_class in _SET_CLASSES:
            message = f"{message} (inside if or not, where the direction is not followed)"
            rule = "condition-changed"
        self.changes.append(
            Change(RULES[rule].change_class, rule, location(place.file, place.path), keyword, message)
        )

    def was(self, rule: str, place: _Place, key: str, old: _Schema, new: _Schema) -> None:
        """Record a change of ``key`` saying what it was and what it is."""
        self.emit(rule, place.at(key), key, f"{key} {_was(old, new, key)}")

    def files(self) -> None:
        for name in self.new.documents:
            if name not in self.old.documents:
                self.emit("schema-added", _Place(name, name, []), "", f"new schema document {name}")
        for name in self.old.documents:
            place = _Place(name, name, [])
            if name not in self.new.documents:
                self.emit("schema-removed", place, "", f"schema document {name} was removed")
            else:
                self.compare(_Compare(self.old.documents[name], self.new.documents[name], place, "schema"))

    def compare(self, first: _Compare) -> None:
        """Make ``first`` and every comparison it needs, depth first, on a list, not the call stack."""
        pending = [self.schema(first)]
        while pending:
            step = next(pending[-1], None)
            if step is None:
                pending.pop()
            else:
                pending.append(self.schema(step))

    def schema(self, compare: _Compare) -> _Steps:
        old, new, place, what = compare
        if self.text(old) == self.text(new):
            return
        if old is False and new is not False:
            rule = _OPENED.get(what, "subschema-accepts-more")
            self.emit(rule, place, "", "accepted nothing here; now accepts values")
            return
        if new is False:
            rule = _CLOSED.get(what, "subschema-rejects-all")
            self.emit(rule, place, "", "accepted values here; now accepts nothing")
            return
        old, new = ({} if side is True else side for side in (old, new))
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.emit("unknown-keyword-changed", place, "", "not a schema on one side")
        elif what == "property" and not _asserts(old) and _asserts(new):  # at properties/<name>
            message = f"member {place.path[-1]!r} accepted any value; it now has a schema"
            self.emit("property-constrained", place, "properties", message)
        else:
            yield from self.keywords(old, new, place)

    def keywords(self, old: _Schema, new: _Schema, place: _Place) -> _Steps:
        members_done = False
        for key in _union(old, new):
            if key in old and key in new and self.text(old[key]) == self.text(new[key]):
                continue
            if key in _MEMBERS:
                if members_done:
                    continue
                members_done = True
            compare = _KEYWORDS.get(key, _Walk.note if key.startswith("x-") else _Walk.unknown)
            yield from compare(self, key, old, new, place) or ()

    # -- one method per kind of keyword (``_KEYWORDS``): (key, old, new, place) -> comparisons or None

    def members(self, key: str, old: _Schema, new: _Schema, place: _Place) -> _Steps:
        for name in _union(old.get("properties", {}), new.get("properties", {})):
            yield _Compare(
                _member_schema(old, name), _member_schema(new, name), place.at("properties", name), "property"
            )
        old_patterns, new_patterns = old.get("patternProperties", {}), new.get("patternProperties", {})
        old_rest, new_rest = old.get("additionalProperties", True), new.get("additionalProperties", True)
        for pattern in _union(old_patterns, new_patterns):
            before, after = old_patterns.get(pattern, old_rest), new_patterns.get(pattern, new_rest)
            yield _Compare(before, after, place.at("patternProperties", pattern), "pattern")
        yield _Compare(old_rest, new_rest, place.at("additionalProperties"), "additional")

    def annotation(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        self.emit(_ANNOTATIONS[key], place.at(key), key, f"{key} changed")

    def note(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        shown = f"vendor annotation {key}" if key.startswith("x-") else key
        self.emit(_annotation_rule(key, old), place.at(key), key, f"{shown} {_was(old, new, key)}")

    def value(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        self.emit(_VALUES[key], place.at(key), key, _was(old, new, key))

    def unknown(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        message = f"keyword {key} {_was(old, new, key)}; the classifier does not know it"
        self.emit("unknown-keyword-changed", place.at(key), key, message)

    def type(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        old_types, new_types = _types(old), _types(new)
        removed = [name for name in old_types if not _covered(name, new_types)]
        added = [name for name in new_types if not _covered(name, old_types)]
        if removed:
            self.emit("type-narrowed", place.at(key), key, f"{', '.join(removed)} no longer accepted")
        if added:
            self.emit("type-widened", place.at(key), key, f"{', '.join(added)} now accepted")

    def enum(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        at = place.at(key)
        if key not in old:
            self.emit("enum-introduced", at, key, "values are now limited to a closed set")
            return
        if key not in new:
            self.emit("enum-lifted", at, key, "the closed set of values was lifted")
            return
        old_values, new_values = [self.text(v) for v in old[key]], [self.text(v) for v in new[key]]
        for index, value in enumerate(old_values):
            if value not in new_values:
                self.emit("enum-value-removed", at.at(index), key, f"{value} was removed from the closed set")
        for index, value in enumerate(new_values):
            if value not in old_values:
                message = f"{value} was added to a closed set; consumers that switch over every value break"
                self.emit("enum-value-added", at.at(index), key, message)
        if set(old_values) == set(new_values):
            self.emit("enum-reordered", at, key, "the same values in another order")

    def const(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        if key not in new:
            self.emit("enum-lifted", place.at(key), key, f"const {_show(old[key])} was lifted")
        else:
            self.emit("const-changed", place.at(key), key, _was(old, new, key))

    def required(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        before, after = old.get(key, []), new.get(key, [])
        for name in after:
            if name not in before:
                self.emit("required-added", place.at(key), key, f"member {name!r} is now required")
        for name in before:
            if name not in after:
                self.emit("required-removed", place.at(key), key, f"member {name!r} is no longer required")

    def bound(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        before, after = old.get(key), new.get(key)
        if before is None:
            rule, message = "constraint-tightened", f"{key} {_show(after)} added"
        elif after is None:
            rule, message = "constraint-relaxed", f"{key} {_show(before)} removed"
        else:
            tighter = after > before if key in _LOWER_BOUNDS else after < before
            rule = "constraint-tightened" if tighter else "constraint-relaxed"
            message = f"{key} changed from {_show(before)} to {_show(after)}"
        self.emit(rule, place.at(key), key, message)

    def constraint(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        # uniqueItems has a direction; another added or changed is not decided, so shrinking
        tighter = bool(new.get(key, False)) if key == "uniqueItems" else key in new
        self.was("constraint-tightened" if tighter else "constraint-relaxed", place, key, old, new)

    def subschema(self, key: str, old: _Schema, new: _Schema, place: _Place) -> _Steps:
        yield _Compare(old.get(key, True), new.get(key, True), place.at(key), key)

    def condition(self, key: str, old: _Schema, new: _Schema, place: _Place) -> _Steps:
        yield _Compare(old.get(key, {}), new.get(key, {}), place.at(key)._replace(conditional=True), key)

    def applicator(self, key: str, old: _Schema, new: _Schema, place: _Place) -> _Steps:
        alternatives = key in ("anyOf", "oneOf")
        if alternatives and (key not in old or key not in new):
            self.was("constraint-tightened" if key in new else "constraint-relaxed", place, key, old, new)
            return
        missing = not alternatives  # a branch missing on one side: false for anyOf/oneOf, true for allOf
        old_items, new_items = old.get(key, []), new.get(key, [])
        for index in range(max(len(old_items), len(new_items))):
            before = old_items[index] if index < len(old_items) else missing
            after = new_items[index] if index < len(new_items) else missing
            yield _Compare(before, after, place.at(key, index), key)

    def dependent_schemas(self, key: str, old: _Schema, new: _Schema, place: _Place) -> _Steps:
        before, after = old.get(key, {}), new.get(key, {})
        for name in {**before, **after}:  # the documents' order, not a set's
            yield _Compare(before.get(name, True), after.get(name, True), place.at(key, name), key)

    def definitions(self, key: str, old: _Schema, new: _Schema, place: _Place) -> _Steps:
        at, before, after = place.at(key), old.get(key, {}), new.get(key, {})
        for name in after:
            if name not in before:
                self.emit("definition-added", at.at(name), key, f"new definition {name}")
        for name in before:
            if name not in after:
                self.emit("definition-removed", at.at(name), key, f"definition {name} was removed")
            else:
                yield _Compare(before[name], after[name], at.at(name), "definition")

    def reference(self, key: str, old: _Schema, new: _Schema, place: _Place) -> _Steps:
        at = place.at(key)
        if key not in old or key not in new:
            self.was("constraint-tightened" if key in new else "constraint-relaxed", place, key, old, new)
            return
        old_file, old_path, old_target = self.old.resolve(old[key], at.old_file)
        new_file, new_path, new_target = self.new.resolve(new[key], at.file)
        followed = (location(old_file, old_path), location(new_file, new_path), at.old_file, at.file)
        if followed[0] == followed[1]:
            self.emit("ref-retargeted", at, key, f"$ref {_was(old, new, key)}, the same schema")
            return
        if followed in self._followed:
            return
        self._followed.add(followed)
        before = len(self.changes)
        yield _Compare(
            old_target, new_target, _Place(old_file, new_file, new_path, at.conditional), "reference"
        )
        if len(self.changes) == before:
            message = f"$ref changed from {old[key]} to {new[key]}, which accept the same values"
            self.emit("ref-retargeted", at, key, message)

    def error_codes(self, key: str, old: _Schema, new: _Schema, place: _Place) -> None:
        """Each code's metadata: a behaviour, never a change of the accepted set."""
        at, codes_before, codes_after = place.at(key), old.get(key, {}), new.get(key, {})
        for code in codes_after:
            if code not in codes_before:
                self.emit("code-metadata-added", at.at(code), key, f"metadata for {code}")
        for code in codes_before:
            before, after = codes_before[code], codes_after.get(code)
            if code not in codes_after:
                message = f"{code} lost its category, default retryability and HTTP status"
                self.emit("code-metadata-removed", at.at(code), key, message)
            elif not isinstance(before, dict) or not isinstance(after, dict):
                if self.text(before) != self.text(after):
                    self.emit("code-metadata-changed", at.at(code), key, code)
            else:
                for name in _union(before, after):
                    if self.text(before.get(name)) != self.text(after.get(name)):
                        # a vendor annotation is one as of a schema; any other member is the code's own
                        rule = _CODE_FIELDS.get(name, "code-metadata-changed")
                        rule = _annotation_rule(name, before) if name.startswith("x-") else rule
                        message = f"{code}: {name} {_was(before, after, name)}"
                        self.emit(rule, at.at(code, name), key, message)


def _annotation_rule(key: str, old: Mapping[str, Any]) -> str:
    return "annotation-added" if key not in old else "annotation-changed"


_Comparison = Callable[[_Walk, str, _Schema, _Schema, _Place], Iterable[_Compare] | None]
_KEYWORDS: dict[str, _Comparison] = {
    **dict.fromkeys(_MEMBERS, _Walk.members),
    **dict.fromkeys((*_LOWER_BOUNDS, *_UPPER_BOUNDS), _Walk.bound),
    **dict.fromkeys(_ANNOTATIONS, _Walk.annotation),
    **dict.fromkeys(_NOTES, _Walk.note),
    **dict.fromkeys(_VALUES, _Walk.value),
    **dict.fromkeys(_OTHER_CONSTRAINTS, _Walk.constraint),
    **dict.fromkeys(_SUBSCHEMAS, _Walk.subschema),
    **dict.fromkeys(("not", "if"), _Walk.condition),
    **dict.fromkeys(("allOf", "anyOf", "oneOf", "prefixItems"), _Walk.applicator),
    "x-error-codes": _Walk.error_codes,
    "$defs": _Walk.definitions,
    "$ref": _Walk.reference,
    "type": _Walk.type,
    "enum": _Walk.enum,
    "const": _Walk.const,
    "required": _Walk.required,
    "dependentSchemas": _Walk.dependent_schemas,
}
"""The comparison each keyword gets; another ``x-`` keyword is a vendor annotation, any other unknown."""

_MAJOR = re.compile(r"/v(\d+)/")


def diff_schema_sets(old: SchemaSet, new: SchemaSet) -> SchemaDiff:
    """Every change from the schema set ``old`` to ``new``, each classified by a rule."""
    walk = _Walk(old, new)
    walk.files()
    ids = (str(doc.get("$id", "")) for doc in old.documents.values() if isinstance(doc, dict))
    major = next((int(found.group(1)) for found in map(_MAJOR.search, ids) if found), None)
    return SchemaDiff(old.source, new.source, tuple(walk.changes), major)
