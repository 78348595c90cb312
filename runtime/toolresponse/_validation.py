"""Validate a decoded JSON value against the ToolResponse v1 schema."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema

from ._schema import reference_validator


@dataclass(frozen=True, kw_only=True)
class SchemaViolation:
    """One way an instance breaks the schema."""

    pointer: str
    """RFC 6901 JSON pointer to the offending value ("" for the whole response)."""
    keyword: str
    """The JSON Schema keyword that failed (``required``, ``enum``, ...)."""
    message: str


@dataclass(frozen=True, kw_only=True)
class ValidationResult:
    """The verdict on one instance: ``valid`` and every violation found."""

    errors: tuple[SchemaViolation, ...]

    @property
    def valid(self) -> bool:
        return not self.errors

    def __bool__(self) -> bool:
        return self.valid


def json_pointer(path: Any) -> str:
    """The RFC 6901 pointer of a jsonschema error path."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _violation(error: jsonschema.ValidationError) -> SchemaViolation:
    return SchemaViolation(
        pointer=json_pointer(error.absolute_path),
        keyword=str(error.validator),
        message=error.message,
    )


def iter_errors(obj: Any) -> Iterator[SchemaViolation]:
    """Every violation of the schema by ``obj``, most relevant first."""
    errors = sorted(reference_validator().iter_errors(obj), key=jsonschema.exceptions.relevance)
    for error in errors:
        yield _violation(error)


def validate(obj: Any) -> ValidationResult:
    """Check a decoded JSON value against the ToolResponse v1 schema."""
    return ValidationResult(errors=tuple(iter_errors(obj)))
