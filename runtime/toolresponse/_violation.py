"""``SchemaViolation``: one way a value breaks the ToolResponse v1 schema or the I-JSON rules.

A leaf of the package: every layer reports what is wrong as these records, in one JSON form
(``to_dict()``); ``best_match`` picks the one most worth showing, as jsonschema's does.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# The relevance order (lower is shown first): a value that is not an object at all (0), then
# unknown members (a renamed member usually explains a missing one), then wrong values (2), then
# missing members.
_RANKS = {"additionalProperties": 1, "required": 3}


@dataclass(frozen=True, kw_only=True, slots=True)
class SchemaViolation:
    """One way an instance breaks the schema (or, for JSON text, the I-JSON rules)."""

    pointer: str
    """RFC 6901 JSON pointer to the offending value ("" for the whole response)."""
    keyword: str
    """The JSON Schema keyword that failed (``required``, ``enum``, ...) or the I-JSON rule."""
    message: str
    suggestion: str | None = None
    """The nearest valid value or member name, when there is one."""
    line: int | None = None
    """1-based line in the JSON text, when the violation came from text (``validate_json``)."""
    column: int | None = None
    """1-based column (in characters) in the JSON text, when known."""
    schema_path: str | None = None
    """RFC 6901 pointer to the failed keyword in the bundled v1 schema, when a schema keyword failed."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by its fields in order (records cross process boundaries by the thousand, with
        # --jobs and Dask): cheaper both ways than the field-by-field state of a slotted dataclass.
        return (_violation, _field_values(self))

    def to_dict(self) -> dict[str, Any]:
        """The violation as JSON data; members that are not known are left out."""
        out: dict[str, Any] = {"pointer": self.pointer, "keyword": self.keyword, "message": self.message}
        if self.suggestion is not None:
            out["suggestion"] = self.suggestion
        if self.line is not None:
            out["line"] = self.line
            if self.column is not None:
                out["column"] = self.column
        if self.schema_path is not None:
            out["schema_path"] = self.schema_path
        return out


_FIELD_NAMES = tuple(field.name for field in dataclasses.fields(SchemaViolation))
_field_values = operator.attrgetter(*_FIELD_NAMES)


def _violation(*values: Any) -> SchemaViolation:
    return SchemaViolation(**dict(zip(_FIELD_NAMES, values, strict=True)))


def relevance(keyword: str, pointer: str) -> int:
    """The rank of a violation in the relevance order (lower is more relevant)."""
    return 0 if keyword == "type" and not pointer else _RANKS.get(keyword, 2)


def best_match(violations: Iterable[SchemaViolation]) -> SchemaViolation | None:
    """The violation most worth showing: the most relevant, the first of those; None for none."""
    best: SchemaViolation | None = None
    best_rank = 4
    for violation in violations:
        rank = relevance(violation.keyword, violation.pointer)
        if rank < best_rank:
            best, best_rank = violation, rank
    return best
