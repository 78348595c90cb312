"""Observability: one structured event per tool call, delivered to pluggable listeners.

The registry builds a ``ToolCallEvent`` after every ``execute``/``aexecute``
(including NOT_FOUND, INVALID_PARAM, TIMEOUT, CIRCUIT_OPEN and an access policy's denials) and
calls each listener with it, in the order they were added, on the calling
thread. A listener that raises is logged on the ``toolresponse`` logger and
does not change the call's response. ``JsonlTraceWriter`` is one listener.
"""

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
    """The caller's identifier for the call, if any."""
    status: ToolStatus
    code: ErrorCode | None
    """The error code, or None when the call did not fail."""
    time_ms: float
    """The call's ``stats.time_ms``."""
    breaker_state: CircuitState | None
    """The tool's circuit after the call; None without a breaker or for an unknown tool."""
    response: ToolResponse = field(compare=False, repr=False)
    """The response the caller got."""
    denied_by: str | None = None
    """The access rule that refused the call (``details.policy`` of the denial), or that hid the
    tool from the caller (the call then answered NOT_FOUND, as an unknown tool's), or None."""

    def to_dict(self) -> dict[str, Any]:
        """The event as one JSON object (``event: "tool_call"``), every member present; and
        ``denied_by`` when an access policy refused the call."""
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
