"""Schema evolution: what changed between two versions of a schema, and whom it breaks.

``diff_schemas(old, new)`` compares two schema sets (directories of JSON Schema documents, or two
files): every ``Change`` with its ``file#/json/pointer``, the rule (``RULES``) that classified it and
its ``ChangeClass``; ``render_text``, ``render_json`` and ``failing`` are ``toolresponse schema
diff``'s reports and verdict. Pure Python, in the base install.
"""

from __future__ import annotations

from pathlib import Path

from ._classify import Change, SchemaDiff, diff_schema_sets
from ._documents import SchemaDiffError, SchemaSet, load_schema_sets
from ._report import FailOn, failing, render_json, render_text
from ._rules import RULES, ChangeClass, Rule

__all__ = [
    "RULES",
    "Change",
    "ChangeClass",
    "FailOn",
    "Rule",
    "SchemaDiff",
    "SchemaDiffError",
    "SchemaSet",
    "diff_schema_sets",
    "diff_schemas",
    "failing",
    "load_schema_sets",
    "render_json",
    "render_text",
]


def diff_schemas(old: str | Path, new: str | Path) -> SchemaDiff:
    """Every change from the schema set at ``old`` to the one at ``new``, classified."""
    return diff_schema_sets(*load_schema_sets(old, new))
