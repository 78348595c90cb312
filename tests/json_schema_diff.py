"""A second opinion on the classifier from Atlassian's ``json-schema-diff`` (npm, a development tool).

``json-schema-diff`` computes by set operations whether the documents a schema accepts grew or
shrank. It reads draft-07 with local references only and knows no ``enum``, ``const``,
``if``/``then``/``else`` or ``patternProperties``, so it cannot classify this schema; it confirms
the classifier instead: each document is bundled (references inlined) and handed to it, and the
directions it finds must be exactly the directions of the classifier's changes at the keywords it
reads. ``disagreements`` says where they differ.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from toolresponse.compat import Change, ChangeClass, SchemaDiff
from toolresponse.compat._documents import SchemaSet

PROGRAM = Path(__file__).resolve().parent.parent / "node_modules" / ".bin" / "json-schema-diff"

# What json-schema-diff reads (its KEYWORDS.md), and the places whose changes it cannot see.
_SEEN = {"type", "required", "properties", "additionalProperties", "items", "allOf", "anyOf", "oneOf"}
_SEEN |= {"not", "$ref", "", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
_SEEN |= {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
_UNSEEN_PLACES = {"if", "then", "else", "patternProperties", "prefixItems", "contains", "propertyNames"}
_UNSEEN_PLACES |= {"dependentSchemas"}
_UNSEEN_RULES = {"condition-changed", "unknown-keyword-changed", "schema-removed", "definition-removed"}
_ANNOTATIONS = {"title", "description", "$comment", "examples", "default", "deprecated"}
_SECTIONS = (("grew", "added"), ("shrank", "removed"))


def bundle(schemas: SchemaSet, file: str, node: Any = None) -> Any:
    """``file``'s schema with every ``$ref`` inlined and ``$schema``, ``$id``, ``$defs`` dropped."""
    node = schemas.documents[file] if node is None else node
    if isinstance(node, list):
        return [bundle(schemas, file, item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {
        key: bundle(schemas, file, value)
        for key, value in node.items()
        if key not in {"$schema", "$id", "$defs", "$ref"}
    }
    if "$ref" not in node:
        return result
    target_file, _, target = schemas.resolve(node["$ref"], file)
    inlined = bundle(schemas, target_file, target)
    return (
        inlined if set(result) <= _ANNOTATIONS else {**result, "allOf": [*result.get("allOf", []), inlined]}
    )


def _visible(change: Change) -> bool:
    """Whether json-schema-diff can see ``change``: a set change at a keyword it reads, not under
    a keyword it ignores (a property's name is data, not a place)."""
    if change.change_class not in (ChangeClass.BREAKING_PRODUCERS, ChangeClass.BREAKING_CONSUMERS):
        return False
    if change.rule in _UNSEEN_RULES or change.keyword not in _SEEN:
        return False
    tokens = change.pointer.partition("#")[2].split("/")[1:]
    places = [token for index, token in enumerate(tokens) if index == 0 or tokens[index - 1] != "properties"]
    return not _UNSEEN_PLACES.intersection(places)


def _section(output: str, title: str) -> Any:
    """One section of json-schema-diff's report: the schema of the values added or removed, or
    False when there is none."""
    marker = f"Values described by the following schema were {title}:\n"
    if marker not in output:
        return False
    return json.loads(output.split(marker, 1)[1].split("\n\nValues described", 1)[0])


def _directions(old: Any, new: Any) -> set[str]:
    """What json-schema-diff finds from ``old`` to ``new``: ``grew``, ``shrank``, both or neither."""
    if old == new:
        return set()
    with tempfile.TemporaryDirectory() as scratch:
        files = [Path(scratch, "old.json"), Path(scratch, "new.json")]
        for path, schema in zip(files, (old, new), strict=True):
            path.write_text(json.dumps(schema), encoding="utf-8")
        done = subprocess.run([PROGRAM, *files], capture_output=True, text=True, timeout=120, check=False)
    output = done.stdout + done.stderr
    if "No differences found" in output:
        return set()
    assert "Values described" in output, output
    return {name for name, title in _SECTIONS if _section(output, title) is not False}


def disagreements(diff: SchemaDiff, old: SchemaSet, new: SchemaSet) -> list[str]:
    """Where json-schema-diff and the classifier disagree on the directions of ``diff``."""
    found: dict[str, list[str]] = {"grew": [], "shrank": []}
    for name in new.documents:
        if name in old.documents:
            for direction in _directions(bundle(old, name), bundle(new, name)):
                found[direction].append(name)
    claimed: dict[str, list[str]] = {"grew": [], "shrank": []}
    for change in filter(_visible, diff.changes):
        shrank = change.change_class is ChangeClass.BREAKING_PRODUCERS
        claimed["shrank" if shrank else "grew"].append(change.pointer)
    return [
        *(
            f"json-schema-diff: {d} ({', '.join(found[d])}); the classifier: no"
            for d in found
            if found[d] and not claimed[d]
        ),
        *(
            f"the classifier: {d} ({', '.join(claimed[d])}); json-schema-diff: no"
            for d in claimed
            if claimed[d] and not found[d]
        ),
    ]
