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
