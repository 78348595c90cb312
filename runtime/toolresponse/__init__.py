"""ToolResponse v1: a structured contract for the results that AI agents' tools return.

The schema in ``schema/v1`` is the source of truth; the models and enums here
are generated from it, and ``validate`` checks any decoded JSON value against it.

Every public name is imported on first use (PEP 562), so that a command such
as ``toolresponse validate`` loads only what it needs: importing the package
costs next to nothing, and ``from toolresponse import X`` works as usual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

    from ._breaker import (
        BreakerStatus,
        CircuitBreaker,
        CircuitState,
        FailurePredicate,
        StateChange,
        StateListener,
        default_is_failure,
    )
    from ._errors import (
        JsonValueError,
        MalformedJsonError,
        ResponseValidationError,
        ToolDefinitionError,
        ToolResponseError,
    )
    from ._events import ToolCallEvent, ToolCallListener
    from ._ijson import IJsonError, IJsonRule, parse_ijson
    from ._jsondata import is_json_data, to_json_data
    from ._params import parameters_schema
    from ._registry import ToolRegistry
    from ._response import ToolResponse
    from ._schema import bundled_schema
    from ._tool import FunctionTool, Tool, ToolSpec, wrap_value
    from ._trace import JsonlTraceWriter, mask_secrets
    from ._validation import SchemaViolation, ValidationResult, iter_errors, validate, validate_json
    from .agent import (
        Agent,
        AgentError,
        AgentResult,
        AgentStep,
        ChatModel,
        ModelConfigError,
        ModelError,
        ModelReply,
        OpenAIChatModel,
        RetryPolicy,
        RunOutcome,
        ToolCallRecord,
    )

__version__ = "1.0.0"

_GENERATED = "toolresponse_generated"

# Where each public name lives: (module, name in that module). Relative modules are
# this package's own.
_LAZY: dict[str, tuple[str, str]] = {
    **{
        name: (_GENERATED, name)
        for name in (
            "ERROR_CODE_INFO",
            "Context",
            "ErrorCategory",
            "ErrorCode",
            "ErrorCodeInfo",
            "ErrorInfo",
            "Stats",
            "ToolStatus",
        )
    },
    "ToolResponseModel": (_GENERATED, "ToolResponse"),
    **{
        name: (module, name)
        for module, names in (
            (
                "._breaker",
                (
                    "BreakerStatus",
                    "CircuitBreaker",
                    "CircuitState",
                    "FailurePredicate",
                    "StateChange",
                    "StateListener",
                    "default_is_failure",
                ),
            ),
            (
                "._errors",
                (
                    "JsonValueError",
                    "MalformedJsonError",
                    "ResponseValidationError",
                    "ToolDefinitionError",
                    "ToolResponseError",
                ),
            ),
            ("._events", ("ToolCallEvent", "ToolCallListener")),
            ("._ijson", ("IJsonError", "IJsonRule", "parse_ijson")),
            ("._jsondata", ("is_json_data", "to_json_data")),
            ("._params", ("parameters_schema",)),
            ("._registry", ("ToolRegistry",)),
            ("._response", ("ToolResponse",)),
            ("._schema", ("bundled_schema",)),
            ("._tool", ("FunctionTool", "Tool", "ToolSpec", "wrap_value")),
            ("._trace", ("JsonlTraceWriter", "mask_secrets")),
            (
                "._validation",
                ("SchemaViolation", "ValidationResult", "iter_errors", "validate", "validate_json"),
            ),
            (
                ".agent",
                (
                    "Agent",
                    "AgentError",
                    "AgentResult",
                    "AgentStep",
                    "ChatModel",
                    "ModelConfigError",
                    "ModelError",
                    "ModelReply",
                    "OpenAIChatModel",
                    "RetryPolicy",
                    "RunOutcome",
                    "ToolCallRecord",
                ),
            ),
        )
        for name in names
    },
}


def __getattr__(name: str) -> Any:
    """Import the module that defines the public ``name`` and keep the value here (PEP 562)."""
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module_name, __name__), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "ERROR_CODE_INFO",
    "Agent",
    "AgentError",
    "AgentResult",
    "AgentStep",
    "BreakerStatus",
    "ChatModel",
    "CircuitBreaker",
    "CircuitState",
    "Context",
    "ErrorCategory",
    "ErrorCode",
    "ErrorCodeInfo",
    "ErrorInfo",
    "FailurePredicate",
    "FunctionTool",
    "IJsonError",
    "IJsonRule",
    "JsonValueError",
    "JsonlTraceWriter",
    "MalformedJsonError",
    "ModelConfigError",
    "ModelError",
    "ModelReply",
    "OpenAIChatModel",
    "ResponseValidationError",
    "RetryPolicy",
    "RunOutcome",
    "SchemaViolation",
    "StateChange",
    "StateListener",
    "Stats",
    "Tool",
    "ToolCallEvent",
    "ToolCallListener",
    "ToolCallRecord",
    "ToolDefinitionError",
    "ToolRegistry",
    "ToolResponse",
    "ToolResponseError",
    "ToolResponseModel",
    "ToolSpec",
    "ToolStatus",
    "ValidationResult",
    "__version__",
    "bundled_schema",
    "default_is_failure",
    "is_json_data",
    "iter_errors",
    "mask_secrets",
    "parameters_schema",
    "parse_ijson",
    "to_json_data",
    "validate",
    "validate_json",
    "wrap_value",
]
