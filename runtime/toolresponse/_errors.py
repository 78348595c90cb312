"""Every exception the package raises on purpose, in one tree::

    ToolResponseError                   every error this package raises on purpose
    ├── ResponseValidationError         not a valid ToolResponse v1; ``.errors`` lists each violation
    │   ├── JsonValueError              a value that is not JSON and has no documented conversion
    │   └── DialectError                a record not valid in its framework's own shape (interop)
    ├── MalformedJsonError              text that is not I-JSON (syntax, NaN, duplicate names, bad UTF-8)
    │   └── IJsonError                  the I-JSON rule broken (``IJsonRule``) and where
    ├── ToolDefinitionError             a tool that cannot be registered (name, signature, schema)
    ├── RegistryLoadError               ``MODULE:FACTORY`` does not name a ToolRegistry (serve)
    ├── ConformanceError                a conformance run that cannot be made (document, extra)
    │   └── ConformanceTokenError       the server wants a bearer token the run has not (401)
    ├── McpConnectError                 an MCP server that cannot be reached or listed; ``.response`` says why
    └── AgentError                      anything the agent raises on purpose
        ├── ModelConfigError            a chat model cannot be built (missing extra, no model name, no key)
        ├── ModelError                  one call to a chat model failed; ``.code`` is an ``ErrorCode``
        └── TraceFormatError            a trace file cannot be read (names the file and line)

``ResponseValidationError`` and ``MalformedJsonError`` are also ``ValueError``, and
``ToolDefinitionError`` a ``TypeError`` (a programming mistake). A tool's call never raises any
of these to its caller, nor does the agent loop let a ``ModelError`` escape.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING

from toolresponse_generated import ERROR_CODE_INFO, ErrorCode

from ._violation import SchemaViolation, best_match

if TYPE_CHECKING:
    from ._response import ToolResponse


def warn_renamed(old: str, new: str) -> None:
    """Warn the caller of a deprecated alias (``old``, a name of 1.x) that it is now ``new``."""
    warnings.warn(
        f"{old} is deprecated and will be removed in 2.0; use {new}", DeprecationWarning, stacklevel=3
    )


class ToolResponseError(Exception):
    """Base class of every exception the ``toolresponse`` runtime raises on purpose."""


class ResponseValidationError(ToolResponseError, ValueError):
    """A value that is not a valid ToolResponse v1: ``errors`` lists every violation, most relevant
    first, and ``best`` is the one most worth showing (``best_match``)."""

    def __init__(self, errors: Iterable[SchemaViolation], *, what: str = "invalid ToolResponse") -> None:
        self.errors = tuple(errors)
        if not self.errors:
            raise ValueError("ResponseValidationError needs at least one violation")
        count, whole = len(self.errors), '""'
        shown = "; ".join(f"at {e.pointer or whole} [{e.keyword}]: {e.message}" for e in self.errors[:3])
        more = f"; and {count - 3} more" if count > 3 else ""
        super().__init__(f"{what} ({count} violation{'s' if count > 1 else ''}): {shown}{more}")

    @property
    def best(self) -> SchemaViolation:
        """The violation most worth showing."""
        best = best_match(self.errors)
        assert best is not None
        return best


class JsonValueError(ResponseValidationError):
    """A value that is not JSON (bytes, NaN, a cycle, an unknown type) and has no documented
    conversion: ``pointer`` locates it, ``type_name`` is its Python type."""

    def __init__(self, pointer: str, message: str, *, type_name: str, keyword: str = "type") -> None:
        self.pointer = pointer
        self.type_name = type_name
        violation = SchemaViolation(pointer=pointer, keyword=keyword, message=message)
        super().__init__((violation,), what="not JSON")


class MalformedJsonError(ToolResponseError, ValueError):
    """Text that is not I-JSON (RFC 7493); ``reason`` says why, in a few words."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"malformed JSON: {reason}")


class IJsonRule(StrEnum):
    """The I-JSON rule a text breaks; the ``keyword`` of its violation."""

    SYNTAX = "syntax"
    ENCODING = "encoding"
    DUPLICATE_NAME = "duplicate-name"
    NON_FINITE_NUMBER = "non-finite-number"
    DEPTH = "depth"
    BINARY = "binary"


class IJsonError(MalformedJsonError):
    """The I-JSON ``rule`` a text breaks and where: 1-based ``line`` and ``column`` (characters, or
    bytes in text that is not UTF-8), 0-based ``offset``, the member's ``pointer`` or None."""

    def __init__(
        self, rule: IJsonRule, detail: str, *, line: int, column: int, offset: int, pointer: str | None = None
    ) -> None:
        self.rule = rule
        self.detail = detail
        self.line = line
        self.column = column
        self.offset = offset
        self.pointer = pointer
        super().__init__(f"line {line}, column {column}: {detail}")


class ToolDefinitionError(ToolResponseError, TypeError):
    """A tool that cannot be registered (name, signature, parameter or output schema)."""


class RegistryLoadError(ToolResponseError):
    """``MODULE:FACTORY`` does not name a ToolRegistry; the message says why, in one line."""


class ConformanceError(ToolResponseError):
    """A conformance run cannot be made: a document or an extra missing, or unresolvable."""


class ConformanceTokenError(ConformanceError):
    """The server answered the run's first request 401; ``token_given``: whether the run sent one."""

    def __init__(self, message: str, *, token_given: bool) -> None:
        super().__init__(message)
        self.token_given = token_given


class McpConnectError(ToolResponseError):
    """An MCP server cannot be reached or listed; ``response`` is the failure as a ToolResponse."""

    def __init__(self, response: ToolResponse) -> None:
        super().__init__(response.text)
        self.response = response


class DialectError(ResponseValidationError):
    """A record not valid in its ``dialect``'s own shape; ``errors`` lists each violation."""

    def __init__(self, dialect: str, errors: Iterable[SchemaViolation]) -> None:
        self.dialect = dialect
        super().__init__(errors, what=f"invalid {dialect} record")


class AgentError(ToolResponseError):
    """Base of every exception the agent raises on purpose."""


class ModelConfigError(AgentError):
    """A chat model cannot be built: the ``agent`` extra, a model name or a key is missing."""


class ModelError(AgentError):
    """One call to a chat model failed: ``code`` is RATE_LIMIT (HTTP 429), TIMEOUT, NETWORK_ERROR
    (no HTTP answer) or API_ERROR (anything else). ``retryable`` is the code's default but for a
    provider's 5xx, 408 or 409 (retryable); ``retry_after_s`` is the provider's own hint, if any."""

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode,
        status_code: int | None = None,
        retry_after_s: float | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status_code = status_code
        self.retry_after_s = retry_after_s
        self.retryable: bool = ERROR_CODE_INFO[code].retryable if retryable is None else retryable

    def __str__(self) -> str:
        status = f" (HTTP {self.status_code})" if self.status_code is not None else ""
        return f"{self.code.value}{status}: {self.message}"


class TraceFormatError(AgentError):
    """A trace file cannot be read; ``path`` and ``line`` say where (line 0: the file itself)."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}" if line else f"{path}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason
