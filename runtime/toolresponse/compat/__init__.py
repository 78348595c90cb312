"""Schema evolution: what changed between two versions of a schema, and whom it breaks.

``diff_schemas(old, new)`` compares two schema sets (directories of JSON Schema documents, or two
files): a ``SchemaDiff``, each ``Change`` with its ``file#/json/pointer``, rule and ``ChangeClass``.
"""

from __future__ import annotations

from pathlib import Path

from ._classify import Change, SchemaDiff, diff_schema_sets
from ._documents import SchemaDiffError, load_schema_sets
from ._rules import ChangeClass

__all__ = ["Change", "ChangeClass", "SchemaDiff", "SchemaDiffError", "diff_schemas"]


def diff_schemas(old: str | Path, new: str | Path) -> SchemaDiff:
    """Every change from the schema set at ``old`` to the one at ``new``, classified."""
    return diff_schema_sets(*load_schema_sets(old, new))
