"""The exceptions of the agent subpackage.

::

    ToolResponseError          (toolresponse) every error the runtime raises on purpose
    └── AgentError             anything the agent subpackage raises on purpose
        ├── ModelConfigError   a chat model cannot be built (missing extra, no model name, no key)
        ├── ModelError         one call to a chat model failed (HTTP status, connection, bad reply)
        └── TraceFormatError   a trace file cannot be read (names the file and line)

The agent loop never lets a ``ModelError`` escape: it retries the retryable
ones and ends the run with ``outcome == "model_error"`` and a clear reason.
"""

from __future__ import annotations

from enum import StrEnum

from .._errors import ToolResponseError


class AgentError(ToolResponseError):
    """Base of every exception the agent subpackage raises on purpose."""


class ModelConfigError(AgentError):
    """A chat model cannot be built: the ``agent`` extra is missing, or no model name or key is set."""


class ModelErrorKind(StrEnum):
    """Why a call to a chat model failed."""

    RATE_LIMIT = "rate_limit"
    """HTTP 429."""
    SERVER = "server"
    """HTTP 5xx (and 408/409, which a provider also means as 'try again')."""
    CONNECTION = "connection"
    """No HTTP answer at all: refused, reset, closed mid-reply."""
    TIMEOUT = "timeout"
    """No answer within the client's timeout."""
    CLIENT = "client"
    """Any other HTTP 4xx: the request itself is wrong (bad key, unknown model)."""
    BAD_RESPONSE = "bad_response"
    """An answer that is not a usable chat completion."""


_RETRYABLE_KINDS = frozenset(
    {ModelErrorKind.RATE_LIMIT, ModelErrorKind.SERVER, ModelErrorKind.CONNECTION, ModelErrorKind.TIMEOUT}
)


class ModelError(AgentError):
    """One call to a chat model failed.

    ``retryable`` says whether the same request may succeed later (429, 5xx,
    connection, timeout); ``retry_after_s`` is the provider's own hint
    (``Retry-After`` or ``retry-after-ms``), when it gave one.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ModelErrorKind,
        status_code: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.status_code = status_code
        self.retry_after_s = retry_after_s

    @property
    def retryable(self) -> bool:
        return self.kind in _RETRYABLE_KINDS

    def __str__(self) -> str:
        status = f" (HTTP {self.status_code})" if self.status_code is not None else ""
        return f"{self.kind.value}{status}: {self.message}"


class TraceFormatError(AgentError):
    """A trace file cannot be read; ``path`` and ``line`` say where (line 0: the file itself)."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}" if line else f"{path}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason
