"""The tool runtime: tools, their parameters, the registry, the circuit breaker, events and traces.

``ToolRegistry`` answers every call with a ``ToolResponse``: a ``Tool`` (or a
plain function wrapped as a ``FunctionTool``) runs with its parameters checked
against their JSON Schema, under a timeout, behind a ``CircuitBreaker``, and
each call is told to the listeners as a ``ToolCallEvent`` (``JsonlTraceWriter``
writes them as JSON lines, secrets masked). ``tool_schemas`` describes the
registered tools to a model provider (OpenAI, Anthropic, MCP). ``AccessControl``
holds the access policies a registry asks before each call (``AllowList``,
``DenyList``, ``PathsWithin``, ``ReadOnly``, ``RequireApproval`` ...), with the
caller's identity (``execute(..., caller=...)``, ``LOCAL_CALLER`` by default).

The faces (agent, HTTP, MCP, the command line) use the registry through this
package's public names only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._access import AccessControl as AccessControl
    from ._answers import wrap_value as wrap_value
    from ._breaker import (
        BreakerStatus as BreakerStatus,
    )
    from ._breaker import (
        CircuitBreaker as CircuitBreaker,
    )
    from ._breaker import (
        CircuitState as CircuitState,
    )
    from ._breaker import (
        FailurePredicate as FailurePredicate,
    )
    from ._breaker import (
        StateChange as StateChange,
    )
    from ._breaker import (
        StateListener as StateListener,
    )
    from ._breaker import (
        default_is_failure as default_is_failure,
    )
    from ._events import ToolCallEvent as ToolCallEvent
    from ._events import ToolCallListener as ToolCallListener
    from ._load import REGISTRY_EXAMPLE as REGISTRY_EXAMPLE
    from ._load import load_registry as load_registry
    from ._params import ParameterValidator as ParameterValidator
    from ._params import parameters_schema as parameters_schema
    from ._policy import (
        DENIAL_CODES as DENIAL_CODES,
    )
    from ._policy import (
        LOCAL_CALLER as LOCAL_CALLER,
    )
    from ._policy import (
        AccessRequest as AccessRequest,
    )
    from ._policy import (
        AllowList as AllowList,
    )
    from ._policy import (
        ApprovalRequest as ApprovalRequest,
    )
    from ._policy import (
        Approver as Approver,
    )
    from ._policy import (
        ArgumentRule as ArgumentRule,
    )
    from ._policy import (
        Decision as Decision,
    )
    from ._policy import (
        DenyList as DenyList,
    )
    from ._policy import (
        PathsWithin as PathsWithin,
    )
    from ._policy import (
        Policy as Policy,
    )
    from ._policy import (
        ReadOnly as ReadOnly,
    )
    from ._policy import (
        RequireApproval as RequireApproval,
    )
    from ._policy import (
        Verdict as Verdict,
    )
    from ._prepared import ToolSpec as ToolSpec
    from ._provider_schemas import PROVIDERS as PROVIDERS
    from ._provider_schemas import tool_schemas as tool_schemas
    from ._registry import ToolRegistry as ToolRegistry
    from ._tool import (
        FunctionTool as FunctionTool,
    )
    from ._tool import (
        Tool as Tool,
    )
    from ._trace import (
        MASK as MASK,
    )
    from ._trace import (
        JsonlTraceWriter as JsonlTraceWriter,
    )
    from ._trace import (
        is_secret_name as is_secret_name,
    )
    from ._trace import (
        mask_secrets as mask_secrets,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._breaker": (
        "BreakerStatus",
        "CircuitBreaker",
        "CircuitState",
        "FailurePredicate",
        "StateChange",
        "StateListener",
        "default_is_failure",
    ),
    "._events": ("ToolCallEvent", "ToolCallListener"),
    "._load": ("REGISTRY_EXAMPLE", "load_registry"),
    "._params": ("ParameterValidator", "parameters_schema"),
    "._policy": (
        "DENIAL_CODES",
        "LOCAL_CALLER",
        "AccessRequest",
        "AllowList",
        "ApprovalRequest",
        "Approver",
        "ArgumentRule",
        "Decision",
        "DenyList",
        "PathsWithin",
        "Policy",
        "ReadOnly",
        "RequireApproval",
        "Verdict",
    ),
    "._provider_schemas": ("PROVIDERS", "tool_schemas"),
    "._registry": ("ToolRegistry",),
    "._tool": ("FunctionTool", "Tool"),
    "._prepared": ("ToolSpec",),
    "._answers": ("wrap_value",),
    "._access": ("AccessControl",),
    "._trace": ("MASK", "JsonlTraceWriter", "is_secret_name", "mask_secrets"),
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
