"""The classifier: two schema sets walked side by side, every difference named by a rule.

The walk compares the same keyword at the same place on both sides and asks,
keyword by keyword, whether the set of accepted documents shrank (a type,
value or member no longer accepted), grew (one newly accepted), stayed the
same with other behaviour (the error codes' metadata, defaults), or stayed the
same (annotations). Inside ``if`` and ``not`` the direction flips or splits,
so a change there is treated as shrinking (``condition-changed``). Where a
``$ref`` points elsewhere, the two targets are compared in its place; where it
points to the same schema, that schema is compared where it is defined.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

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


def _canonical(value: Any) -> str:
    """A text equal for equal JSON values only (Python's ``1 == 1.0 == True`` is not JSON's)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


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


@dataclass
class _Walk:
    old: SchemaSet
    new: SchemaSet
    changes: list[Change] = field(default_factory=list)
    _followed: set[tuple[str, str, str, str]] = field(default_factory=set)

    # -- recording -----------------------------------------------------------------------------

    def emit(self, rule: str, file: str, path: Path, keyword: str, message: str, conditional: bool) -> None:
        rule_class = RULES[rule].change_class
        if conditional and rule_class in _SET_CLASSES:
            message = f"{message} (inside if or not, where the direction is not followed)"
            rule, rule_class = "condition-changed", RULES["condition-changed"].change_class
        self.changes.append(Change(rule_class, rule, location(file, path), keyword, message))

    # -- the walk ------------------------------------------------------------------------------

    def files(self) -> None:
        for name in self.new.documents:
            if name not in self.old.documents:
                self.emit("schema-added", name, [], "", f"new schema document {name}", False)
        for name in self.old.documents:
            if name not in self.new.documents:
                self.emit("schema-removed", name, [], "", f"schema document {name} was removed", False)
                continue
            self.schema(self.old.documents[name], self.new.documents[name], name, name, [], "schema", False)

    def schema(
        self, old: Any, new: Any, old_file: str, file: str, path: Path, what: str, conditional: bool
    ) -> None:
        """Compare two subschemas; ``what`` names the place for the false/true rules."""
        if _canonical(old) == _canonical(new):
            return
        if old is False or new is False:
            if old is False and new is not False:
                rule = {
                    "property": "property-added",
                    "additional": "additional-properties-opened",
                    "pattern": "additional-properties-opened",
                }.get(what, "subschema-accepts-more")
                self.emit(rule, file, path, "", "accepted nothing here; now accepts values", conditional)
            elif new is False:
                rule = {
                    "property": "property-removed",
                    "additional": "additional-properties-closed",
                    "pattern": "additional-properties-closed",
                }.get(what, "subschema-rejects-all")
                self.emit(rule, file, path, "", "accepted values here; now accepts nothing", conditional)
            return
        old = {} if old is True else old
        new = {} if new is True else new
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.emit("unknown-keyword-changed", file, path, "", "not a schema on one side", conditional)
            return
        if what == "property" and not _asserts(old) and _asserts(new) and path[-2:-1] == ["properties"]:
            self.emit(
                "property-constrained",
                file,
                path,
                "properties",
                f"member {path[-1]!r} accepted any value; it now has a schema",
                conditional,
            )
            return
        self.keywords(old, new, old_file, file, path, conditional)

    def keywords(
        self,
        old: dict[str, Any],
        new: dict[str, Any],
        old_file: str,
        file: str,
        path: Path,
        conditional: bool,
    ) -> None:
        members_done = False
        for key in [*new, *(key for key in old if key not in new)]:
            if key in old and key in new and _canonical(old[key]) == _canonical(new[key]):
                continue
            at = [*path, key]
            if key in _MEMBERS:
                if not members_done:
                    self.members(old, new, old_file, file, path, conditional)
                    members_done = True
            elif key in _LOWER_BOUNDS or key in _UPPER_BOUNDS:
                self.bound(key, old.get(key), new.get(key), file, at, conditional)
            elif key in _ANNOTATIONS:
                self.emit(_ANNOTATIONS[key], file, at, key, f"{key} changed", conditional)
            elif key in _NOTES:
                self.note(key, old, new, file, at, conditional)
            elif key == "default":
                self.emit("default-changed", file, at, key, self._was(old, new, key), conditional)
            elif key == "x-error-codes":
                self.error_codes(old.get(key, {}), new.get(key, {}), file, at)
            elif key.startswith("x-"):
                rule = "annotation-added" if key not in old else "annotation-changed"
                self.emit(rule, file, at, key, f"vendor annotation {key} {self._was(old, new, key)}", False)
            elif key == "$schema":
                self.emit("dialect-changed", file, at, key, self._was(old, new, key), False)
            elif key == "$id":
                self.emit("id-changed", file, at, key, self._was(old, new, key), False)
            elif key == "$defs":
                self.definitions(old.get(key, {}), new.get(key, {}), old_file, file, at, conditional)
            elif key == "$ref":
                self.reference(old, new, old_file, file, at, conditional)
            elif key == "type":
                self.type(old, new, file, at, conditional)
            elif key == "enum":
                self.enum(old, new, file, at, conditional)
            elif key == "const":
                self.const(old, new, file, at, conditional)
            elif key == "required":
                self.required(old.get(key, []), new.get(key, []), file, at, conditional)
            elif key in _OTHER_CONSTRAINTS:
                self.constraint(key, old, new, file, at, conditional)
            elif key in _SUBSCHEMAS:
                self.schema(old.get(key, True), new.get(key, True), old_file, file, at, key, conditional)
            elif key in {"not", "if"}:
                self.schema(old.get(key, {}), new.get(key, {}), old_file, file, at, key, True)
            elif key in {"allOf", "anyOf", "oneOf", "prefixItems"}:
                self.applicators(key, old, new, old_file, file, at, conditional)
            elif key == "dependentSchemas":
                for name in {*old.get(key, {}), *new.get(key, {})}:
                    self.schema(
                        old.get(key, {}).get(name, True),
                        new.get(key, {}).get(name, True),
                        old_file,
                        file,
                        [*at, name],
                        key,
                        conditional,
                    )
            else:
                self.emit(
                    "unknown-keyword-changed",
                    file,
                    at,
                    key,
                    f"keyword {key} {self._was(old, new, key)}; the classifier does not know it",
                    conditional,
                )

    @staticmethod
    def _was(old: Mapping[str, Any], new: Mapping[str, Any], key: str) -> str:
        if key not in old:
            return f"added: {_show(new[key])}"
        if key not in new:
            return f"removed (was {_show(old[key])})"
        return f"changed from {_show(old[key])} to {_show(new[key])}"

    # -- keywords ------------------------------------------------------------------------------

    def members(
        self,
        old: dict[str, Any],
        new: dict[str, Any],
        old_file: str,
        file: str,
        path: Path,
        conditional: bool,
    ) -> None:
        old_properties, new_properties = old.get("properties", {}), new.get("properties", {})
        for name in [*new_properties, *(name for name in old_properties if name not in new_properties)]:
            self.schema(
                _member_schema(old, name),
                _member_schema(new, name),
                old_file,
                file,
                [*path, "properties", name],
                "property",
                conditional,
            )
        old_patterns, new_patterns = old.get("patternProperties", {}), new.get("patternProperties", {})
        for pattern in [*new_patterns, *(p for p in old_patterns if p not in new_patterns)]:
            self.schema(
                old_patterns.get(pattern, old.get("additionalProperties", True)),
                new_patterns.get(pattern, new.get("additionalProperties", True)),
                old_file,
                file,
                [*path, "patternProperties", pattern],
                "pattern",
                conditional,
            )
        self.schema(
            old.get("additionalProperties", True),
            new.get("additionalProperties", True),
            old_file,
            file,
            [*path, "additionalProperties"],
            "additional",
            conditional,
        )

    def type(self, old: dict[str, Any], new: dict[str, Any], file: str, at: Path, conditional: bool) -> None:
        old_types, new_types = _types(old), _types(new)
        removed = [name for name in old_types if not _covered(name, new_types)]
        added = [name for name in new_types if not _covered(name, old_types)]
        if removed:
            self.emit(
                "type-narrowed", file, at, "type", f"{', '.join(removed)} no longer accepted", conditional
            )
        if added:
            self.emit("type-widened", file, at, "type", f"{', '.join(added)} now accepted", conditional)

    def enum(self, old: dict[str, Any], new: dict[str, Any], file: str, at: Path, conditional: bool) -> None:
        if "enum" not in old:
            self.emit(
                "enum-introduced", file, at, "enum", "values are now limited to a closed set", conditional
            )
            return
        if "enum" not in new:
            self.emit("enum-lifted", file, at, "enum", "the closed set of values was lifted", conditional)
            return
        old_values = [_canonical(value) for value in old["enum"]]
        new_values = [_canonical(value) for value in new["enum"]]
        for index, value in enumerate(old_values):
            if value not in new_values:
                self.emit(
                    "enum-value-removed",
                    file,
                    [*at, index],
                    "enum",
                    f"{value} was removed from the closed set",
                    conditional,
                )
        for index, value in enumerate(new_values):
            if value not in old_values:
                self.emit(
                    "enum-value-added",
                    file,
                    [*at, index],
                    "enum",
                    f"{value} was added to a closed set; consumers that switch over every value break",
                    conditional,
                )
        if set(old_values) == set(new_values):
            self.emit("enum-reordered", file, at, "enum", "the same values in another order", conditional)

    def const(self, old: dict[str, Any], new: dict[str, Any], file: str, at: Path, conditional: bool) -> None:
        if "const" not in new:
            self.emit(
                "enum-lifted", file, at, "const", f"const {_show(old['const'])} was lifted", conditional
            )
        else:
            self.emit("const-changed", file, at, "const", self._was(old, new, "const"), conditional)

    def required(self, old: list[str], new: list[str], file: str, at: Path, conditional: bool) -> None:
        for name in new:
            if name not in old:
                self.emit(
                    "required-added", file, at, "required", f"member {name!r} is now required", conditional
                )
        for name in old:
            if name not in new:
                self.emit(
                    "required-removed",
                    file,
                    at,
                    "required",
                    f"member {name!r} is no longer required",
                    conditional,
                )

    def bound(self, key: str, old: Any, new: Any, file: str, at: Path, conditional: bool) -> None:
        lower = key in _LOWER_BOUNDS
        if old is None:
            rule, message = "constraint-tightened", f"{key} {_show(new)} added"
        elif new is None:
            rule, message = "constraint-relaxed", f"{key} {_show(old)} removed"
        else:
            tighter = (new > old) if lower else (new < old)
            rule = "constraint-tightened" if tighter else "constraint-relaxed"
            message = f"{key} changed from {_show(old)} to {_show(new)}"
        self.emit(rule, file, at, key, message, conditional)

    def constraint(
        self, key: str, old: dict[str, Any], new: dict[str, Any], file: str, at: Path, conditional: bool
    ) -> None:
        if key == "uniqueItems":
            tighter = bool(new.get(key, False))
            rule = "constraint-tightened" if tighter else "constraint-relaxed"
        elif key not in new:
            rule = "constraint-relaxed"
        else:
            rule = "constraint-tightened"  # added, or changed: the direction is not decided, so shrinking
        self.emit(rule, file, at, key, f"{key} {self._was(old, new, key)}", conditional)

    def note(
        self, key: str, old: dict[str, Any], new: dict[str, Any], file: str, at: Path, conditional: bool
    ) -> None:
        rule = "annotation-added" if key not in old else "annotation-changed"
        self.emit(rule, file, at, key, f"{key} {self._was(old, new, key)}", conditional)

    def applicators(
        self,
        key: str,
        old: dict[str, Any],
        new: dict[str, Any],
        old_file: str,
        file: str,
        at: Path,
        conditional: bool,
    ) -> None:
        if key in {"anyOf", "oneOf"} and (key not in old or key not in new):
            rule = "constraint-tightened" if key in new else "constraint-relaxed"
            self.emit(rule, file, at, key, f"{key} {self._was(old, new, key)}", conditional)
            return
        # A branch missing on one side: false for anyOf/oneOf (it accepted nothing), true for allOf.
        missing: Any = key not in {"anyOf", "oneOf"}
        old_items, new_items = old.get(key, []), new.get(key, [])
        for index in range(max(len(old_items), len(new_items))):
            self.schema(
                old_items[index] if index < len(old_items) else missing,
                new_items[index] if index < len(new_items) else missing,
                old_file,
                file,
                [*at, index],
                key,
                conditional,
            )

    def definitions(
        self,
        old: dict[str, Any],
        new: dict[str, Any],
        old_file: str,
        file: str,
        at: Path,
        conditional: bool,
    ) -> None:
        for name in new:
            if name not in old:
                self.emit("definition-added", file, [*at, name], "$defs", f"new definition {name}", False)
        for name in old:
            if name not in new:
                self.emit(
                    "definition-removed", file, [*at, name], "$defs", f"definition {name} was removed", False
                )
            else:
                self.schema(old[name], new[name], old_file, file, [*at, name], "definition", conditional)

    def reference(
        self,
        old: dict[str, Any],
        new: dict[str, Any],
        old_file: str,
        file: str,
        at: Path,
        conditional: bool,
    ) -> None:
        if "$ref" not in old or "$ref" not in new:
            rule = "constraint-tightened" if "$ref" in new else "constraint-relaxed"
            self.emit(rule, file, at, "$ref", f"$ref {self._was(old, new, '$ref')}", conditional)
            return
        old_target_file, old_path, old_target = self.old.resolve(old["$ref"], old_file)
        new_target_file, new_path, new_target = self.new.resolve(new["$ref"], file)
        key = (
            location(old_target_file, old_path),
            location(new_target_file, new_path),
            old_file,
            file,
        )
        if key[0] == key[1]:
            self.emit(
                "ref-retargeted",
                file,
                at,
                "$ref",
                f"$ref {self._was(old, new, '$ref')}, the same schema",
                False,
            )
            return
        if key in self._followed:
            return
        self._followed.add(key)
        before = len(self.changes)
        self.schema(
            old_target, new_target, old_target_file, new_target_file, new_path, "reference", conditional
        )
        if len(self.changes) == before:
            self.emit(
                "ref-retargeted",
                file,
                at,
                "$ref",
                f"$ref changed from {old['$ref']} to {new['$ref']}, which accept the same values",
                conditional,
            )

    def error_codes(self, old: dict[str, Any], new: dict[str, Any], file: str, at: Path) -> None:
        for code in new:
            if code not in old:
                self.emit(
                    "code-metadata-added", file, [*at, code], "x-error-codes", f"metadata for {code}", False
                )
        for code in old:
            if code not in new:
                self.emit(
                    "code-metadata-removed",
                    file,
                    [*at, code],
                    "x-error-codes",
                    f"{code} lost its category, default retryability and HTTP status",
                    False,
                )
                continue
            before, after = old[code], new[code]
            if not isinstance(before, dict) or not isinstance(after, dict):
                if _canonical(before) != _canonical(after):
                    self.emit("code-metadata-changed", file, [*at, code], "x-error-codes", code, False)
                continue
            for name in [*after, *(name for name in before if name not in after)]:
                if _canonical(before.get(name)) != _canonical(after.get(name)):
                    self.emit(
                        _CODE_FIELDS.get(name, "code-metadata-changed"),
                        file,
                        [*at, code, name],
                        "x-error-codes",
                        f"{code}: {name} {self._was(before, after, name)}",
                        False,
                    )


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
