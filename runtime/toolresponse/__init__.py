"""ToolResponse v1: a structured contract for the results that AI agents' tools return.

The schema in ``schema/v1`` is the source of truth; the models and enums here
are generated from it, and ``validate`` checks any decoded JSON value against it.
"""

from toolresponse_generated import (
    ERROR_CODE_INFO,
    Context,
    ErrorCategory,
    ErrorCode,
    ErrorCodeInfo,
    ErrorInfo,
    Stats,
    ToolStatus,
)
from toolresponse_generated import ToolResponse as ToolResponseModel

from ._schema import bundled_schema
from ._validation import SchemaViolation, ValidationResult, iter_errors, validate

__version__ = "1.0.0"

__all__ = [
    "ERROR_CODE_INFO",
    "Context",
    "ErrorCategory",
    "ErrorCode",
    "ErrorCodeInfo",
    "ErrorInfo",
    "SchemaViolation",
    "Stats",
    "ToolResponseModel",
    "ToolStatus",
    "ValidationResult",
    "__version__",
    "bundled_schema",
    "iter_errors",
    "validate",
]
