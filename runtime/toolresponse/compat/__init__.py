"""Schema evolution: what changed between two versions of a schema, and whom it breaks.

- ``diff_schemas(old, new)``: compare two schema sets (directories of JSON Schema
  documents, or two files) and get a ``SchemaDiff``, every ``Change`` with its
  ``file#/json/pointer``, the ``rule`` that classified it and its
  ``ChangeClass``: breaking for producers (the accepted set shrinks), breaking
  for consumers (it grows: a new error code or status), a behaviour change (an
  error code's category, default retryability or HTTP status; a default) or
  compatible (descriptions, titles, examples, new annotations). ``RULES`` lists
  every rule.
- ``confirm_with_json_schema_diff(diff, old, new, program)``: a second opinion
  on the set comparison from Atlassian's npm ``json-schema-diff``, where it is
  installed (a development tool, not a dependency).
- ``render_text`` / ``render_json`` and ``failing(diff, FailOn)``: the reports
  and the verdict of ``toolresponse schema diff``.

The classifier is pure Python and needs nothing beyond the base install.
Errors: ``SchemaDiffError`` (a ``ToolResponseError``) names the file or
``$ref`` that could not be read.
"""

from __future__ import annotations

from pathlib import Path

from ._classify import Change, SchemaDiff, diff_schema_sets
from ._documents import SchemaDiffError, SchemaSet, load_schema_set
from ._report import FailOn, failing, render_json, render_text
from ._rules import RULES, ChangeClass, Rule
from ._setcheck import SetCheck, SetVerdict, confirm_with_json_schema_diff, is_visible_to_set_diff

__all__ = [
    "RULES",
    "Change",
    "ChangeClass",
    "FailOn",
    "Rule",
    "SchemaDiff",
    "SchemaDiffError",
    "SchemaSet",
    "SetCheck",
    "SetVerdict",
    "confirm_with_json_schema_diff",
    "diff_schema_sets",
    "diff_schemas",
    "failing",
    "is_visible_to_set_diff",
    "load_schema_sets",
    "render_json",
    "render_text",
]


def load_schema_sets(old: str | Path, new: str | Path) -> tuple[SchemaSet, SchemaSet]:
    """Both sides of a comparison: two directories, or two files (compared as one document)."""
    old, new = Path(old), Path(new)
    if old.is_dir() != new.is_dir():
        raise SchemaDiffError(f"{old}, {new}", "compare two directories or two files, not one of each")
    if old.is_dir():
        return load_schema_set(old), load_schema_set(new)
    return load_schema_set(old, name=new.name), load_schema_set(new)


def diff_schemas(old: str | Path, new: str | Path) -> SchemaDiff:
    """Every change from the schema set at ``old`` to the one at ``new``, classified."""
    return diff_schema_sets(*load_schema_sets(old, new))
