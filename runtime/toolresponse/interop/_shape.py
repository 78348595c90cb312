"""A dialect's record shape (a JSON Schema 2020-12 dict) checked by the package's fast engine.

Each dialect's shape is data (``schema/v1/interop/<dialect>.schema.json``); ``Shape(name, schema)``
compiles it on first use (jsonschema-rs, as a tool's parameters are), ``violations`` lists what is
wrong (pointer, keyword, message, schema path) and ``checked`` gives the record as JSON data or
raises ``DialectError`` naming the dialect.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

from .._errors import DialectError, JsonValueError
from .._suggest import shortened
from .._violation import SchemaViolation, relevance
from ..tools._params import ParameterValidator
from ..validation import to_json_data
from ..validation._jsondata import MAX_VALUE_DEPTH

RECORD_DEPTH = MAX_VALUE_DEPTH + 5
"""The deepest nesting of a record: a response (a member two levels deeper than its value) inside a
dialect's record (up to three more: a Bedrock json block, content then block then ``json``)."""

MESSAGE_LIMIT = 300
"""The most characters of a record's violation message: the shape's engine quotes the values and
member names it finds wrong, and a record can hold megabytes of them."""


def dumped(dialect: str, record: Any) -> Any:
    """``record`` as JSON data when it is a library's pydantic model (``model_dump(mode="json")``) or
    a dataclass pydantic serialises (pydantic-ai's parts); ``DialectError`` when pydantic cannot."""
    if isinstance(record, Mapping):
        return record
    try:
        if callable(getattr(record, "model_dump", None)):
            return record.model_dump(mode="json")
        if dataclasses.is_dataclass(record) and not isinstance(record, type):
            import pydantic  # such an object comes from a library that has it

            return pydantic.TypeAdapter(type(record)).dump_python(record, mode="json")
    except ValueError as error:  # pydantic_core.PydanticSerializationError
        message = f"{dialect} record: the object cannot be written as JSON: {error}"
        raise DialectError(dialect, (SchemaViolation(pointer="", keyword="json", message=message),)) from None
    return record


@dataclasses.dataclass(eq=False)
class Shape:
    """The shape of one record of ``dialect``; ``schema`` is a JSON Schema 2020-12 dict."""

    dialect: str
    schema: Mapping[str, Any]

    @functools.cached_property
    def validator(self) -> ParameterValidator:
        """The shape compiled (on first use); its ``verdict()`` is the one for loops over many records."""
        return ParameterValidator.compile(self.schema, where=f"the {self.dialect} shape")

    def violations(self, record: Any) -> tuple[SchemaViolation, ...]:
        """Every way ``record`` breaks the shape (empty when it has it)."""
        found = self.validator.violations(record, limit=None, schema_paths=True)
        prefix = f"{self.dialect} record: "
        # Most relevant first, as the validator orders them: an unknown member usually explains a
        # missing one. Each message is cut, as the ToolResponse layer's are short.
        ranked = sorted(found, key=lambda violation: relevance(violation.keyword, violation.pointer))
        return tuple(
            dataclasses.replace(violation, message=prefix + shortened(violation.message, MESSAGE_LIMIT))
            for violation in ranked
        )

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
