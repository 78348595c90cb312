"""A JSONL trace writer that masks secrets, usable as a registry listener.

``mask_secrets(value)`` returns a copy of a JSON-like value in which

* the value of every member whose name says it holds a secret (``api_key``,
  ``authorization``, ``password``, ``token``, ``secret``, ``cookie`` and their
  ``x-api-key``/``client_secret``/``access_token`` style variants; any case,
  ``-`` or ``_``) is replaced by ``"***"``; counts such as ``prompt_tokens`` are
  not secrets and are kept;
* inside every string, API keys (``sk-...``, ``ghp_...``, ``AKIA...``,
  ``xoxb-...``, ``AIza...``), JSON Web Tokens, ``Bearer``/``Basic`` credentials,
  passwords in URLs (``https://user:***@host``) and secret query parameters
  (``?api_key=***``) are replaced, keeping a short recognisable prefix.

``JsonlTraceWriter(target)`` writes one masked JSON object per line to a path
(opened for appending unless ``mode="w"``) or to an open text stream, under a
lock so threads can share it, flushing after each record. Called with a
``ToolCallEvent`` it writes ``event.to_dict()``, so it can be given to
``ToolRegistry.add_listener``. Values that are not JSON are written as their
``repr`` (a trace never fails a call).
"""

from __future__ import annotations

import math
import os
import re
import threading
from collections.abc import Mapping
from types import TracebackType
from typing import IO, Any, Literal

import orjson

from .._errors import JsonValueError
from ..validation import MAX_VALUE_DEPTH, to_json_data
from ._events import ToolCallEvent

__all__ = ["MASK", "JsonlTraceWriter", "is_secret_name", "mask_secrets"]

MASK = "***"
"""What a secret is replaced by."""

_SECRET_NAMES = frozenset(
    {
        "api_key",
        "apikey",
        "x_api_key",
        "api_token",
        "auth",
        "authorization",
        "proxy_authorization",
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth_token",
        "bearer_token",
        "session_token",
        "secret",
        "client_secret",
        "secret_key",
        "private_key",
        "cookie",
        "set_cookie",
        "credentials",
    }
)
_SECRET_SUFFIXES = (
    "_password",
    "_passwd",
    "_secret",
    "_token",
    "_api_key",
    "_apikey",
    "_private_key",
    "_secret_key",
)

_CREDENTIAL_SIGNS = re.compile(r"[0-9._~+/=-]|.[A-Z]")


def _scheme_credential(match: re.Match[str]) -> str:
    """``Bearer <token>`` and the like, masked when the word after the scheme looks like a credential
    (a digit, a symbol or an inner capital), so that prose such as "Basic arithmetic" is kept."""
    credential = match.group(2)
    if _CREDENTIAL_SIGNS.search(credential):
        return f"{match.group(1)} {MASK}"
    return match.group(0)


_PATTERNS: tuple[tuple[re.Pattern[str], Any], ...] = (
    (re.compile(r"\b(Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE), _scheme_credential),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+"), "eyJ" + MASK),
    (re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{12,}"), r"\1-" + MASK),
    (re.compile(r"\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}"), r"\1" + MASK),
    (re.compile(r"\b(xox[abprs]-)[A-Za-z0-9-]{8,}"), r"\1" + MASK),
    (re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"), r"\1" + MASK),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), "AIza" + MASK),
    (re.compile(r"(://[^/\s:@]+:)[^/\s@]+@"), r"\1" + MASK + "@"),
    (
        re.compile(
            r"(?i)(\b(?:api[_-]?key|access[_-]?token|token|secret|password|passwd|client[_-]?secret)"
            r"\s*[=:]\s*)(?!\*\*\*)[^&\s\"',;]+"
        ),
        r"\1" + MASK,
    ),
)
_TRIGGER = re.compile(
    r"(?i)bearer|basic|token|eyJ|sk-|pk-|rk-|gh[pousr]_|github_pat_|xox|AKIA|ASIA|AIza|://|key|secret|passw"
)


def is_secret_name(name: str) -> bool:
    """Whether a member named ``name`` holds a secret (``api_key``, ``Authorization`` ...)."""
    key = name.lower().replace("-", "_")
    return key in _SECRET_NAMES or key.endswith(_SECRET_SUFFIXES)


def _mask_text(text: str) -> str:
    if not _TRIGGER.search(text):
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def mask_secrets(value: Any) -> Any:
    """A copy of ``value`` with secrets masked (see the module docstring); other values as they are.

    A container that contains itself is cut where it repeats, as ``"<cycle>"``.
    """
    return _masked(value, set(), 0)


def _masked(value: Any, active: set[int], depth: int) -> Any:
    if isinstance(value, str):
        return _mask_text(value)
    if not isinstance(value, Mapping | list | tuple):
        return value
    if id(value) in active:
        return "<cycle>"
    if depth > MAX_VALUE_DEPTH:
        return "<too deep>"
    active.add(id(value))
    try:
        if isinstance(value, Mapping):
            masked: dict[Any, Any] = {}
            for key, item in value.items():
                if isinstance(key, str) and is_secret_name(key) and item is not None and item != "":
                    masked[key] = MASK
                else:
                    masked[key] = _masked(item, active, depth + 1)
            return masked
        return [_masked(item, active, depth + 1) for item in value]
    finally:
        active.discard(id(value))


def _lenient(value: Any, depth: int = 0, seen: frozenset[int] = frozenset()) -> Any:
    """JSON for a trace whatever ``value`` is: what ``to_json_data`` cannot convert becomes its repr."""
    if value is None or isinstance(value, bool | str):
        return value.encode("utf-8", "replace").decode("utf-8") if isinstance(value, str) else value
    if isinstance(value, int):
        return int(value) if -(2**63) <= value <= 2**64 - 1 else str(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(value)
    if depth > MAX_VALUE_DEPTH or id(value) in seen:
        return "<cycle or too deep>"
    inner = seen | {id(value)}
    if isinstance(value, Mapping):
        return {str(key): _lenient(item, depth + 1, inner) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_lenient(item, depth + 1, inner) for item in value]
    try:
        return to_json_data(value)
    except JsonValueError:
        return repr(value)


class JsonlTraceWriter:
    """Writes masked JSON objects, one per line; a registry listener for ``ToolCallEvent``s."""

    def __init__(
        self,
        target: str | os.PathLike[str] | IO[str],
        *,
        mode: Literal["a", "w"] = "a",
        mask: bool = True,
    ) -> None:
        self._lock = threading.Lock()
        self._mask = mask
        if isinstance(target, str | os.PathLike):
            self._stream: IO[str] = open(target, mode, encoding="utf-8")  # noqa: SIM115 - closed by close()
            self._owned = True
        else:
            self._stream = target
            self._owned = False
        self._closed = False

    def write(self, record: Mapping[str, Any]) -> None:
        """Write one record as a line of JSON, secrets masked; raises ``ValueError`` once closed."""
        value = mask_secrets(record) if self._mask else record
        try:
            data = to_json_data(value)
        except JsonValueError:
            data = _lenient(value)
        line = orjson.dumps(data).decode("utf-8") + "\n"
        with self._lock:
            if self._closed:
                raise ValueError("the trace writer is closed")
            self._stream.write(line)
            self._stream.flush()

    def __call__(self, event: ToolCallEvent) -> None:
        """Write a tool-call event (the registry listener interface)."""
        self.write(event.to_dict())

    def close(self) -> None:
        """Flush, and close the file if this writer opened it. Closing twice is harmless."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._owned:
                self._stream.close()
            else:
                self._stream.flush()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> JsonlTraceWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
