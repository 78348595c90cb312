"""A second opinion on the set comparison from Atlassian's ``json-schema-diff`` (npm), when present.

``json-schema-diff`` computes, by set operations, whether the documents a
schema accepts grew or shrank. It reads draft-07 with local references only and
knows no ``enum``, ``const``, ``if``/``then``/``else`` or ``patternProperties``,
so it cannot be the classifier of this schema (whose closed sets are enums);
it confirms it instead: each document is bundled (references inlined) and
handed to it, and the directions it finds must be exactly the directions of
the classifier's changes at the keywords it understands. A disagreement
means one of the two is wrong, and the check fails saying so.

The tool is run as a program, its arguments a list of two temporary file
names; no shell is involved.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._classify import Change, SchemaDiff
from ._documents import SchemaDiffError, SchemaSet, unescape_pointer
from ._rules import ChangeClass

__all__ = ["SetCheck", "SetVerdict", "confirm_with_json_schema_diff", "is_visible_to_set_diff"]

GREW = "grew"
SHRANK = "shrank"

# What json-schema-diff reads (its KEYWORDS.md); a change under any other applicator is out of its sight.
_SEEN_KEYWORDS = frozenset(
    {
        "type",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "required",
        "properties",
        "additionalProperties",
        "items",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "$ref",
        "",
    }
)
_UNSEEN_PLACES = frozenset(
    {
        "if",
        "then",
        "else",
        "patternProperties",
        "prefixItems",
        "contains",
        "propertyNames",
        "dependentSchemas",
    }
)
_ADDED = "Values described by the following schema were added:\n"
_REMOVED = "Values described by the following schema were removed:\n"


@dataclass(frozen=True)
class SetVerdict:
    """What json-schema-diff found for one document: values added (grew), removed (shrank)."""

    document: str
    grew: bool
    shrank: bool


@dataclass(frozen=True)
class SetCheck:
    """The verdicts and every disagreement with the classifier (none when they agree)."""

    verdicts: tuple[SetVerdict, ...]
    disagreements: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": "json-schema-diff",
            "verdicts": [
                {"document": verdict.document, "grew": verdict.grew, "shrank": verdict.shrank}
                for verdict in self.verdicts
            ],
            "disagreements": list(self.disagreements),
        }


def is_visible_to_set_diff(change: Change) -> bool:
    """Whether json-schema-diff can see ``change``: a set change at a keyword it reads, not under a
    keyword it ignores."""
    if change.change_class not in {ChangeClass.BREAKING_PRODUCERS, ChangeClass.BREAKING_CONSUMERS}:
        return False
    if change.rule in {
        "condition-changed",
        "unknown-keyword-changed",
        "schema-removed",
        "definition-removed",
    }:
        return False
    if change.keyword not in _SEEN_KEYWORDS:
        return False
    _, _, pointer = change.pointer.partition("#")
    tokens = unescape_pointer(pointer)
    # Property names are data, not keywords: skip the token after "properties".
    places = [token for index, token in enumerate(tokens) if index == 0 or tokens[index - 1] != "properties"]
    return not _UNSEEN_PLACES.intersection(places)


def _direction(change: Change) -> str:
    return SHRANK if change.change_class is ChangeClass.BREAKING_PRODUCERS else GREW


def _section(output: str, marker: str) -> Any:
    start = output.find(marker)
    if start < 0:
        return False
    text = output[start + len(marker) :]
    end = text.find("\n\nValues described")
    return json.loads(text if end < 0 else text[:end])


def _run(program: Sequence[str], old: Any, new: Any, document: str) -> SetVerdict:
    if json.dumps(old, sort_keys=True) == json.dumps(new, sort_keys=True):
        return SetVerdict(document, grew=False, shrank=False)  # the same document: nothing to ask
    with tempfile.TemporaryDirectory() as scratch:
        old_file, new_file = Path(scratch, "old.json"), Path(scratch, "new.json")
        old_file.write_text(json.dumps(old), encoding="utf-8")
        new_file.write_text(json.dumps(new), encoding="utf-8")
        try:
            finished = subprocess.run(  # noqa: S603 (a list of arguments: the program and two file names)
                [*program, str(old_file), str(new_file)],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SchemaDiffError(document, f"json-schema-diff could not run: {error}") from None
    output = finished.stdout + finished.stderr
    if "No differences found" in output:
        return SetVerdict(document, grew=False, shrank=False)
    if _ADDED not in output:
        raise SchemaDiffError(document, f"json-schema-diff failed: {output.strip()[:400]}")
    try:
        added, removed = _section(output, _ADDED), _section(output, _REMOVED)
    except json.JSONDecodeError:
        raise SchemaDiffError(document, "json-schema-diff wrote a report that could not be read") from None
    return SetVerdict(document, grew=added is not False, shrank=removed is not False)


def _verdict(program: Sequence[str], old: SchemaSet, new: SchemaSet, document: str) -> SetVerdict:
    """json-schema-diff's verdict on one document, bundled on both sides; a document nested too
    deeply to bundle (references inlined, written as one JSON text) is refused, saying so."""
    try:
        return _run(program, old.bundle(document), new.bundle(document), document)
    except RecursionError:
        raise SchemaDiffError(
            document,
            "nested too deeply to bundle for json-schema-diff; compare it without --json-schema-diff",
        ) from None


def confirm_with_json_schema_diff(
    diff: SchemaDiff, old: SchemaSet, new: SchemaSet, program: Sequence[str]
) -> SetCheck:
    """Run json-schema-diff (``program``, e.g. ``["node_modules/.bin/json-schema-diff"]``) over every
    document both sides have, bundled, and compare its directions with the classifier's."""
    verdicts = tuple(_verdict(program, old, new, name) for name in new.documents if name in old.documents)
    tool = {GREW for verdict in verdicts if verdict.grew} | {SHRANK for verdict in verdicts if verdict.shrank}
    visible = [change for change in diff.changes if is_visible_to_set_diff(change)]
    classifier = {_direction(change) for change in visible}
    disagreements: list[str] = []
    for direction in sorted(tool - classifier):
        documents = ", ".join(v.document for v in verdicts if (v.grew if direction == GREW else v.shrank))
        disagreements.append(
            f"json-schema-diff finds the accepted set {direction} ({documents}); "
            "the classifier reports no such change at a keyword it reads"
        )
    for direction in sorted(classifier - tool):
        where = ", ".join(change.pointer for change in visible if _direction(change) == direction)
        disagreements.append(
            f"the classifier says the accepted set {direction} ({where}); "
            "json-schema-diff finds no such change"
        )
    return SetCheck(verdicts, tuple(disagreements))
