"""The exceptions the runtime raises, one small tree::

    ToolResponseError                  every error this package raises on purpose
    ├── ResponseValidationError        not a valid ToolResponse v1; ``.errors`` lists each violation
    │   └── JsonValueError             a value that is not JSON and has no documented conversion
    ├── MalformedJsonError             text that is not I-JSON (syntax, NaN, duplicate names, bad UTF-8)
    │   └── IJsonError                 the I-JSON rule broken and where (toolresponse._ijson)
    └── ToolDefinitionError            a tool that cannot be registered (name, signature, schema)

``ResponseValidationError``, ``JsonValueError`` and ``MalformedJsonError`` are
also ``ValueError``; ``ToolDefinitionError`` is also a ``TypeError``, as a bad
definition is a programming mistake, found when the tool is registered.

A tool's call never raises any of these to its caller: the registry answers
every call with a ToolResponse.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._validation import SchemaViolation


class ToolResponseError(Exception):
    """Base class of every exception the ``toolresponse`` runtime raises on purpose."""


def _pointer_text(pointer: str) -> str:
    return pointer or '""'


def describe_violations(errors: Iterable[SchemaViolation], *, limit: int = 3) -> str:
    """One line naming the first ``limit`` violations by JSON pointer and keyword."""
    errors = tuple(errors)
    shown = "; ".join(
        f"at {_pointer_text(error.pointer)} [{error.keyword}]: {error.message}" for error in errors[:limit]
    )
    more = len(errors) - limit
    return shown + (f"; and {more} more" if more > 0 else "")


class ResponseValidationError(ToolResponseError, ValueError):
    """A value that is not a valid ToolResponse v1.

    ``errors`` lists every violation found, most relevant first, each with an
    RFC 6901 JSON ``pointer`` into the response ("" is the whole response), the
    schema ``keyword`` that failed and a ``message``; ``best`` is the first.
    """

    errors: tuple[SchemaViolation, ...]

    def __init__(self, errors: Iterable[SchemaViolation], *, what: str = "invalid ToolResponse") -> None:
        self.errors = tuple(errors)
        if not self.errors:
            raise ValueError("ResponseValidationError needs at least one violation")
        count = len(self.errors)
        noun = "violation" if count == 1 else "violations"
        super().__init__(f"{what} ({count} {noun}): {describe_violations(self.errors)}")

    @property
    def best(self) -> SchemaViolation:
        """The violation most worth showing."""
        return self.errors[0]


class JsonValueError(ResponseValidationError):
    """A value that is not JSON (bytes, NaN, a cycle, an unknown type) and has no documented conversion.

    ``pointer`` locates it (relative to the value that was being converted,
    or into the response when raised while building one); ``type_name`` is
    the offending Python type.
    """

    pointer: str
    type_name: str

    def __init__(self, pointer: str, message: str, *, type_name: str, keyword: str = "type") -> None:
        self.pointer = pointer
        self.type_name = type_name
        violation = SchemaViolation(pointer=pointer, keyword=keyword, message=message)
        super().__init__((violation,), what="not JSON")


class MalformedJsonError(ToolResponseError, ValueError):
    """Text that is not I-JSON (RFC 7493): a syntax error, NaN or Infinity, a duplicate member
    name, invalid UTF-8 or a lone surrogate. ``reason`` says which, in a few words."""

    reason: str

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"malformed JSON: {reason}")


class ToolDefinitionError(ToolResponseError, TypeError):
    """A tool that cannot be registered: an empty or duplicate name, a signature that cannot be
    described as JSON Schema, an invalid parameter or output schema."""
