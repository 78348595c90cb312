"""Outcomes other frameworks name that ToolResponse has no status for: each an error, its code chosen once.

``denied`` is PERMISSION_DENIED (what ``RequireApproval`` answers when a person refuses a call),
``interrupted`` EXECUTION_ERROR (cut off before it answered, no time limit reached); the response
names its outcome in ``error_info.details.outcome`` so that a dialect that has it writes it back
(docs/migrating.md, "Denied and interrupted calls").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolresponse_generated import ErrorCode

from .._response import ToolResponse


@dataclass(frozen=True)
class Outcome:
    """An outcome by its name in ``details.outcome``, the code it is answered with, and the message
    of a record that gives no reason."""

    name: str
    code: ErrorCode
    message: str

    def wire(self, reason: str | None, *, context: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The ToolResponse wire object of this outcome, ``reason`` its text and message (None or
        "": ``message``), with ``context`` when given."""
        text = reason or self.message
        info = {"code": self.code.value, "message": text, "details": {"outcome": self.name}}
        wire: dict[str, Any] = {"status": "error", "text": text, "error_info": info}
        if context:
            wire["context"] = dict(context)
        return wire

    def of(self, response: ToolResponse) -> bool:
        """Whether ``response`` is this outcome: its code, and its name in ``details.outcome``."""
        info = response.error_info
        return (
            info is not None and info.code is self.code and (info.details or {}).get("outcome") == self.name
        )


DENIED: Final = Outcome("denied", ErrorCode.PERMISSION_DENIED, "The tool call was denied.")
INTERRUPTED: Final = Outcome("interrupted", ErrorCode.EXECUTION_ERROR, "The tool call was interrupted.")
