"""A dialect's record shape (a JSON Schema 2020-12 dict) checked by the package's fast engine.

Every dialect module declares the shape of one record as plain data and checks
records against it here: ``Shape(name, schema)`` compiles the schema with
jsonschema-rs on first use; ``shape.violations(record)`` lists what is wrong
(JSON pointer into the record, the keyword that failed, a message, the schema
path), and ``shape.checked(record)`` gives the record as JSON data or raises
``DialectError`` naming the dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jsonschema_rs

from .._errors import DialectError, JsonValueError
from .._violation import SchemaViolation, relevance
from ..validation import MAX_VALUE_DEPTH, json_pointer, to_json_data

__all__ = ["RECORD_DEPTH", "Shape"]

RECORD_DEPTH = MAX_VALUE_DEPTH + 4
"""The deepest nesting of a record: a response (a member two levels deeper than its value) inside a
dialect's record (up to two more: a LangChain artifact, a block of content)."""


class Shape:
    """The shape of one record of ``dialect``; ``schema`` is a JSON Schema 2020-12 dict."""

    def __init__(self, dialect: str, schema: Mapping[str, Any]) -> None:
        self.dialect = dialect
        self.schema = schema
        self._validator: Any = None

    def _compiled(self) -> Any:
        if self._validator is None:
            self._validator = jsonschema_rs.Draft202012Validator(dict(self.schema))
        return self._validator

    def is_valid(self, record: Any) -> bool:
        """Whether ``record`` (decoded JSON) has the dialect's shape: the verdict alone."""
        valid: bool = self._compiled().is_valid(record)
        return valid

    def verdict(self) -> Callable[[Any], bool]:
        """The compiled ``is_valid`` itself, for loops over many records."""
        function: Callable[[Any], bool] = self._compiled().is_valid
        return function

    def violations(self, record: Any) -> tuple[SchemaViolation, ...]:
        """Every way ``record`` breaks the shape (empty when it has it)."""
        validator = self._compiled()
        if validator.is_valid(record):
            return ()
        found = []
        for error in validator.iter_errors(record):
            schema_path = list(error.schema_path)
            keyword = next((str(part) for part in reversed(schema_path) if isinstance(part, str)), "")
            found.append(
                SchemaViolation(
                    pointer=json_pointer(error.instance_path),
                    keyword=keyword,
                    message=f"{self.dialect} record: {error.message}",
                    schema_path=json_pointer(schema_path),
                )
            )
        # Most relevant first, as the validator orders them: an unknown member usually explains a
        # missing one.
        return tuple(sorted(found, key=lambda violation: relevance(violation.keyword, violation.pointer)))

    def checked(self, record: Any) -> Any:
        """``record`` as JSON data (``to_json_data``'s conversions: tuples, enums ...), known to have
        the dialect's shape; ``DialectError`` for a value with no JSON form or not in the shape."""
        try:
            record = to_json_data(record, max_depth=RECORD_DEPTH)
        except JsonValueError as error:
            raise DialectError(self.dialect, error.errors) from None
        found = self.violations(record)
        if found:
            raise DialectError(self.dialect, found)
        return record
