"""One ``ToolCallEvent`` per call (refusals included), given to the registry's listeners in order,
on the calling thread; a listener that raises is logged and changes no answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolresponse_generated import ErrorCode, ToolStatus

from .._response import ToolResponse
from ._breaker import CircuitState


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallEvent:
    """What happened in one tool call."""

    tool: str
    """The tool name the caller asked for (for an unknown tool, as given)."""
    call_id: str | None
    status: ToolStatus
    code: ErrorCode | None
    """The error code, or None when the call did not fail."""
    time_ms: float
    """The call's ``stats.time_ms``."""
    breaker_state: CircuitState | None
    """The tool's circuit after the call; None without a breaker or for an unknown tool."""
    response: ToolResponse = field(compare=False, repr=False)
    denied_by: str | None = None
    """The access rule that refused the call or hid the tool (then answered NOT_FOUND), or None."""

    def to_dict(self) -> dict[str, Any]:
        """The event as one JSON object (``event: "tool_call"``), ``denied_by`` only when set."""
        record = {
            "event": "tool_call",
            "tool": self.tool,
            "call_id": self.call_id,
            "status": self.status.value,
            "code": None if self.code is None else self.code.value,
            "retryable": self.response.is_retryable if self.code is not None else None,
            "time_ms": self.time_ms,
            "breaker_state": None if self.breaker_state is None else self.breaker_state.value,
        }
        if self.denied_by is not None:
            record["denied_by"] = self.denied_by
        return record


ToolCallListener = Callable[[ToolCallEvent], None]
