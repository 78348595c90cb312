"""Outcomes other frameworks name that ToolResponse has no status for: each an error, its code chosen once.

=============  ===================  ====================================================================
outcome        code                 why this code
=============  ===================  ====================================================================
``denied``     PERMISSION_DENIED    what this package answers when a person refuses a call
                                    (``RequireApproval``: approval ``refused``); what was asked is
                                    refused, not who asked (that is ACCESS_DENIED)
``interrupted`` EXECUTION_ERROR     the call was cut off before it answered (a run stopped); no time
                                    limit was reached, so it is no TIMEOUT
=============  ===================  ====================================================================

An outcome's response says which it is in ``error_info.details.outcome`` (``"denied"``,
``"interrupted"``), so that a dialect that has the outcome (Vercel's ``execution-denied``
output, pydantic-ai's ``denied`` / ``interrupted``) writes it back. Every dialect reads and
writes these outcomes through ``DENIED`` and ``INTERRUPTED``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolresponse_generated import ErrorCode

from .._response import ToolResponse

__all__ = ["DENIED", "INTERRUPTED", "Outcome"]


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
