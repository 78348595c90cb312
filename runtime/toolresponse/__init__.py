"""ToolResponse v1: a structured contract for the results that AI agents' tools return.

The schema in ``schema/v1`` is the source of truth; the models and enums here
are generated from it, and ``validate`` checks any decoded JSON value against it.

The package is built in layers, each importing only those below it (the
import-linter contracts in ``pyproject.toml`` hold them; ``docs/architecture.md``
draws them): the generated models; ``validation``; the response
(``_response``); ``tools``; the faces ``agent`` and ``http``; and ``cli`` and
``demo`` on top. This module is the public API: one table of names, each
imported on first use (PEP 562), so that a command such as ``toolresponse
validate`` loads only what it needs, and ``from toolresponse import X`` works as
usual. ``__all__`` is derived from the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

if TYPE_CHECKING:
    from toolresponse_generated import (
        ERROR_CODE_INFO as ERROR_CODE_INFO,
    )
    from toolresponse_generated import (
        Context as Context,
    )
    from toolresponse_generated import (
        ErrorCategory as ErrorCategory,
    )
    from toolresponse_generated import (
        ErrorCode as ErrorCode,
    )
    from toolresponse_generated import (
        ErrorCodeInfo as ErrorCodeInfo,
    )
    from toolresponse_generated import (
        ErrorInfo as ErrorInfo,
    )
    from toolresponse_generated import (
        Stats as Stats,
    )
    from toolresponse_generated import ToolResponse as ToolResponseModel  # noqa: F401  (public as this name)
    from toolresponse_generated import (
        ToolStatus as ToolStatus,
    )

    from ._errors import (
        AgentError as AgentError,
    )
    from ._errors import (
        ConformanceError as ConformanceError,
    )
    from ._errors import (
        ConformanceTokenError as ConformanceTokenError,
    )
    from ._errors import (
        IJsonError as IJsonError,
    )
    from ._errors import (
        IJsonRule as IJsonRule,
    )
    from ._errors import (
        JsonValueError as JsonValueError,
    )
    from ._errors import (
        MalformedJsonError as MalformedJsonError,
    )
    from ._errors import (
        McpConnectError as McpConnectError,
    )
    from ._errors import (
        ModelConfigError as ModelConfigError,
    )
    from ._errors import (
        ModelError as ModelError,
    )
    from ._errors import (
        RegistryLoadError as RegistryLoadError,
    )
    from ._errors import (
        ResponseValidationError as ResponseValidationError,
    )
    from ._errors import (
        ToolDefinitionError as ToolDefinitionError,
    )
    from ._errors import (
        ToolResponseError as ToolResponseError,
    )
    from ._errors import (
        TraceFormatError as TraceFormatError,
    )
    from ._response import ToolResponse as ToolResponse
    from ._violation import SchemaViolation as SchemaViolation
    from ._violation import best_match as best_match
    from .agent import (
        Agent as Agent,
    )
    from .agent import (
        AgentResult as AgentResult,
    )
    from .agent import (
        AgentStep as AgentStep,
    )
    from .agent import (
        ChatModel as ChatModel,
    )
    from .agent import (
        ModelReply as ModelReply,
    )
    from .agent import (
        OpenAIChatModel as OpenAIChatModel,
    )
    from .agent import (
        RetryPolicy as RetryPolicy,
    )
    from .agent import (
        RunOutcome as RunOutcome,
    )
    from .agent import (
        ToolCallRecord as ToolCallRecord,
    )
    from .tools import (
        AccessControl as AccessControl,
    )
    from .tools import (
        AccessRequest as AccessRequest,
    )
    from .tools import (
        AllowList as AllowList,
    )
    from .tools import (
        ApprovalRequest as ApprovalRequest,
    )
    from .tools import (
        ArgumentRule as ArgumentRule,
    )
    from .tools import (
        BreakerStatus as BreakerStatus,
    )
    from .tools import (
        CircuitBreaker as CircuitBreaker,
    )
    from .tools import (
        CircuitState as CircuitState,
    )
    from .tools import (
        Decision as Decision,
    )
    from .tools import (
        DenyList as DenyList,
    )
    from .tools import (
        FailurePredicate as FailurePredicate,
    )
    from .tools import (
        FunctionTool as FunctionTool,
    )
    from .tools import (
        JsonlTraceWriter as JsonlTraceWriter,
    )
    from .tools import (
        PathsWithin as PathsWithin,
    )
    from .tools import (
        ReadOnly as ReadOnly,
    )
    from .tools import (
        RequireApproval as RequireApproval,
    )
    from .tools import (
        StateChange as StateChange,
    )
    from .tools import (
        StateListener as StateListener,
    )
    from .tools import (
        Tool as Tool,
    )
    from .tools import (
        ToolCallEvent as ToolCallEvent,
    )
    from .tools import (
        ToolCallListener as ToolCallListener,
    )
    from .tools import (
        ToolRegistry as ToolRegistry,
    )
    from .tools import (
        ToolSpec as ToolSpec,
    )
    from .tools import (
        default_is_failure as default_is_failure,
    )
    from .tools import (
        mask_secrets as mask_secrets,
    )
    from .tools import (
        parameters_schema as parameters_schema,
    )
    from .tools import (
        wrap_value as wrap_value,
    )
    from .validation import (
        ValidationResult as ValidationResult,
    )
    from .validation import (
        bundled_schema as bundled_schema,
    )
    from .validation import (
        is_json_data as is_json_data,
    )
    from .validation import (
        iter_errors as iter_errors,
    )
    from .validation import (
        parse_ijson as parse_ijson,
    )
    from .validation import (
        to_json_data as to_json_data,
    )
    from .validation import (
        validate as validate,
    )
    from .validation import (
        validate_json as validate_json,
    )

__version__ = "1.0.0"
"""The package's version; the protocol's is ``v1`` (the schema's ``$id``), a different number."""

_EXPORTS: dict[str, tuple[str, ...]] = {
    "toolresponse_generated": (
        "ERROR_CODE_INFO",
        "Context",
        "ErrorCategory",
        "ErrorCode",
        "ErrorCodeInfo",
        "ErrorInfo",
        "Stats",
        "ToolStatus",
        "ToolResponseModel=ToolResponse",
    ),
    "._errors": (
        "AgentError",
        "ConformanceError",
        "ConformanceTokenError",
        "DialectError",
        "IJsonError",
        "IJsonRule",
        "JsonValueError",
        "MalformedJsonError",
        "McpConnectError",
        "ModelConfigError",
        "ModelError",
        "RegistryLoadError",
        "ResponseValidationError",
        "ToolDefinitionError",
        "ToolResponseError",
        "TraceFormatError",
    ),
    "._violation": ("SchemaViolation", "best_match"),
    "._response": ("ToolResponse",),
    ".validation": (
        "ValidationResult",
        "bundled_schema",
        "is_json_data",
        "iter_errors",
        "parse_ijson",
        "to_json_data",
        "validate",
        "validate_json",
    ),
    ".tools": (
        "AccessControl",
        "AccessRequest",
        "AllowList",
        "ApprovalRequest",
        "ArgumentRule",
        "BreakerStatus",
        "CircuitBreaker",
        "CircuitState",
        "Decision",
        "DenyList",
        "FailurePredicate",
        "FunctionTool",
        "JsonlTraceWriter",
        "PathsWithin",
        "ReadOnly",
        "RequireApproval",
        "StateChange",
        "StateListener",
        "Tool",
        "ToolCallEvent",
        "ToolCallListener",
        "ToolRegistry",
        "ToolSpec",
        "default_is_failure",
        "mask_secrets",
        "parameters_schema",
        "wrap_value",
    ),
    ".agent": (
        "Agent",
        "AgentResult",
        "AgentStep",
        "ChatModel",
        "ModelReply",
        "OpenAIChatModel",
        "RetryPolicy",
        "RunOutcome",
        "ToolCallRecord",
    ),
}

__getattr__, __dir__, _names = lazy_exports(__name__, _EXPORTS)
__all__ = ["__version__", *_names]
