# The public API of ``toolresponse``: the core (the response and its codes, validating one
# response, the tool registry and its policies, the exceptions). Each name is
# declared here once; ``__init__.py`` reads these lines (lazy_loader) to import each name on
# first use, and type checkers read them as the package's interface.

from ._errors import AgentError as AgentError
from ._errors import DialectError as DialectError
from ._errors import MalformedJsonError as MalformedJsonError
from ._errors import McpConnectError as McpConnectError
from ._errors import ModelError as ModelError
from ._errors import ResponseValidationError as ResponseValidationError
from ._errors import ToolDefinitionError as ToolDefinitionError
from ._errors import ToolResponseError as ToolResponseError
from ._response import ERROR_CODE_INFO as ERROR_CODE_INFO
from ._response import Context as Context
from ._response import ErrorCode as ErrorCode
from ._response import ErrorInfo as ErrorInfo
from ._response import Stats as Stats
from ._response import ToolResponse as ToolResponse
from ._response import ToolStatus as ToolStatus
from ._violation import SchemaViolation as SchemaViolation
from .tools._access import AccessControl as AccessControl
from .tools._breaker import CircuitBreaker as CircuitBreaker
from .tools._breaker import CircuitState as CircuitState
from .tools._events import ToolCallEvent as ToolCallEvent
from .tools._policy import LOCAL_CALLER as LOCAL_CALLER
from .tools._policy import AllowList as AllowList
from .tools._policy import ArgumentRule as ArgumentRule
from .tools._policy import Decision as Decision
from .tools._policy import DenyList as DenyList
from .tools._policy import PathsWithin as PathsWithin
from .tools._policy import ReadOnly as ReadOnly
from .tools._policy import RequireApproval as RequireApproval
from .tools._policy import Verdict as Verdict
from .tools._registry import ToolRegistry as ToolRegistry
from .tools._tool import FunctionTool as FunctionTool
from .tools._tool import Tool as Tool
from .tools._trace import JsonlTraceWriter as JsonlTraceWriter
from .tools._trace import mask_secrets as mask_secrets
from .validation import validate as validate
from .validation import validate_json as validate_json

__version__: str

__all__: list[str]
