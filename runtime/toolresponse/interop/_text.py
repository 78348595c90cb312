"""What a text alone says of a response: one convention, written and read by every dialect.

Many readers see nothing but a result's text: a model, and clients that log only the text (the
openai-agents MCP client keeps the text blocks of a ``CallToolResult`` and drops ``isError`` and
``_meta``). So every dialect with no member for an error's code writes the **model text**
(``model_text``), which states the status in words a reader recognises:

- an error: ``ERROR <CODE>: <message>``, then the response's text on the next lines when it is
  not the message (the agent's feedback begins the same way);
- a partial result: ``PARTIAL: <text>`` (MCP's text block: ``[partial result] <text>``, the
  binding's marker);
- a success: its text, as it is.

Reading text back (``inferred`` and ``text_error``, for every dialect, MCP's text blocks included):

1. where the record has an error flag (MCP ``isError``, Anthropic ``is_error``, LangChain
   ``status``), the flag decides error or not; a success whose text begins like an error stays
   a success;
2. an error's code is the one its text **states** at its very start: ``ERROR <CODE>:`` (ours),
   ``[<CODE>]:`` (HelloAgents 1.0's agent) or ``❌ 错误 [<CODE>]:`` (HelloAgents 1.0.1's model
   text), with one of the 15 codes; the response's text is what follows;
3. else the code the record's own outcome implies, where it has one beside its error flag
   (pydantic-ai's ``denied`` is PERMISSION_DENIED: ``_outcomes``);
4. else the code is **inferred** from the words of third-party text (``infer_code``: errno
   names, HTTP statuses, phrases), the same for every dialect, and ``details`` says so;
5. else EXECUTION_ERROR.

Without a flag (OpenAI's tool messages), text is an error when it states a code, or when it
**opens as failures do**: ``Error`` as its first word, ``An error occurred``, an exception's name
with ``:`` or ``(`` (``FileNotFoundError: ...``), ``Traceback (most recent call last)``; any
other text is a success, or a partial result by its marker.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from toolresponse_generated import ErrorCode

from .._response import ToolResponse

__all__ = [
    "INFERENCE_TABLE",
    "NO_TEXT",
    "TextError",
    "infer_code",
    "inferred",
    "model_text",
    "stated_text",
    "text_error",
]

_CODES: Final = {code.value: code for code in ErrorCode}
# "ERROR NOT_FOUND: ..." (ours); "[NOT_FOUND]: ..." (HelloAgents 1.0's agent); "❌ 错误 [NOT_FOUND]: ..."
# (HelloAgents 1.0.1's to_model_text).
_STATED: Final = re.compile(r"\A(?:ERROR ([A-Z_]+)|(?:❌ 错误 )?\[([A-Z_]+)\]):? ?")
_PARTIAL: Final = re.compile(
    r"\A(?:PARTIAL(?: RESULT)?(?: \(incomplete\))?:|\[PARTIAL\]:?|\[partial result\]|⚠️ 部分成功:) ?"
)
_FAILURE_OPENING: Final = re.compile(
    r"\A\s*(?:(?i:error\b|an error occurred\b|traceback \(most recent call last\))"
    r"|[A-Za-z_][\w.]*(?:Error|Exception)\s*[:(])"
)

NO_TEXT: Final = "The tool reported an error without saying why."
"""An error's message when its record has no text at all."""


def model_text(response: ToolResponse) -> str:
    """What a reader of text alone gets of ``response``: its text, its status stated (see above)."""
    if response.is_partial:
        return f"PARTIAL: {response.text}"
    info = response.error_info
    if info is not None:
        header = f"ERROR {info.code.value}: {info.message}"
        return header if response.text == info.message else f"{header}\n{response.text}"
    return response.text


def stated_text(shown: str, code: str, message: str) -> str:
    """The text of an error response coded ``code`` with ``message``, from the ``shown`` text that
    ``model_text`` made of it (``shown`` itself when it does not begin with that error's header:
    written before the code was stated)."""
    header = f"ERROR {code}: {message}"
    if shown == header:
        return message
    return shown[len(header) + 1 :] if shown.startswith(header + "\n") else shown


# -- the code inferred from third-party text --------------------------------------------------

_ERRNO_NAMES: Final = (
    # (errno name, code), matched as a whole word: ENOENT, not ENOENTITY.
    ("ENOENT", ErrorCode.NOT_FOUND),
    ("EISDIR", ErrorCode.IS_DIRECTORY),
    ("EACCES", ErrorCode.PERMISSION_DENIED),
    ("EPERM", ErrorCode.PERMISSION_DENIED),
    ("EROFS", ErrorCode.PERMISSION_DENIED),
    ("ENOTDIR", ErrorCode.INVALID_PARAM),
    ("EEXIST", ErrorCode.CONFLICT),
    ("ETIMEDOUT", ErrorCode.TIMEOUT),
    ("ECONNREFUSED", ErrorCode.NETWORK_ERROR),
    ("ECONNRESET", ErrorCode.NETWORK_ERROR),
    ("ENOTFOUND", ErrorCode.NETWORK_ERROR),
    ("EPIPE", ErrorCode.NETWORK_ERROR),
)

INFERENCE_TABLE: Final[tuple[tuple[str, str, ErrorCode], ...]] = (
    # (signal, regular expression, code): the first that matches the text wins.
    *((name, rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])", code) for name, code in _ERRNO_NAMES),
    (
        "HTTP 429",
        r"(?i:\b(?:http|status(?: code)?)[ :]*429\b|\b429 too many requests\b)",
        ErrorCode.RATE_LIMIT,
    ),
    ("HTTP 401", r"(?i:\b(?:http|status(?: code)?)[ :]*401\b|\b401 unauthorized\b)", ErrorCode.ACCESS_DENIED),
    ("HTTP 403", r"(?i:\b(?:http|status(?: code)?)[ :]*403\b|\b403 forbidden\b)", ErrorCode.ACCESS_DENIED),
    ("HTTP 404", r"(?i:\b(?:http|status(?: code)?)[ :]*404\b|\b404 not found\b)", ErrorCode.NOT_FOUND),
    ("HTTP 409", r"(?i:\b(?:http|status(?: code)?)[ :]*409\b|\b409 conflict\b)", ErrorCode.CONFLICT),
    ("HTTP 408", r"(?i:\b(?:http|status(?: code)?)[ :]*408\b)", ErrorCode.TIMEOUT),
    ("HTTP 504", r"(?i:\b(?:http|status(?: code)?)[ :]*504\b)", ErrorCode.TIMEOUT),
    ("HTTP 5xx", r"(?i:\b(?:http|status(?: code)?)[ :]*5\d\d\b)", ErrorCode.API_ERROR),
    ("HTTP 400", r"(?i:\b(?:http|status(?: code)?)[ :]*400\b|\b400 bad request\b)", ErrorCode.INVALID_PARAM),
    ("rate limit", r"(?i:\brate[ -]?limit|too many requests|quota exceeded)", ErrorCode.RATE_LIMIT),
    ("timed out", r"(?i:\btimed? ?out\b|\btimeout\b|deadline exceeded)", ErrorCode.TIMEOUT),
    (
        "permission denied",
        r"(?i:permission denied|operation not permitted|read-only file system)",
        ErrorCode.PERMISSION_DENIED,
    ),
    (
        "access denied",
        r"(?i:access denied|unauthori[sz]ed|forbidden|not allowed|invalid (?:api )?key)",
        ErrorCode.ACCESS_DENIED,
    ),
    ("is a directory", r"(?i:is a directory)", ErrorCode.IS_DIRECTORY),
    (
        "not found",
        r"(?i:not found|no such file|does not exist|doesn't exist|unknown tool)",
        ErrorCode.NOT_FOUND,
    ),
    (
        "connection",
        r"(?i:connection (?:refused|reset|closed|error)|network (?:error|unreachable)|broken pipe)",
        ErrorCode.NETWORK_ERROR,
    ),
    (
        "invalid",
        r"(?i:\binvalid\b|\bmust be\b|\bvalidation error\b|\brequired (?:property|argument|parameter)\b)",
        ErrorCode.INVALID_PARAM,
    ),
)
"""How a third-party error's text is coded: (signal, pattern, code), most specific first."""

_COMPILED: Final = tuple((signal, re.compile(pattern), code) for signal, pattern, code in INFERENCE_TABLE)


def infer_code(text: str) -> tuple[ErrorCode, str] | None:
    """The code a third-party error text signals, and the signal (an ``INFERENCE_TABLE`` row);
    None when no signal is found."""
    for signal, pattern, code in _COMPILED:
        if pattern.search(text):
            return code, signal
    return None


# -- reading text ----------------------------------------------------------------------------


class TextError(NamedTuple):
    """The error a text stands for."""

    code: ErrorCode
    text: str
    """The response's text: what follows a stated code, else the text itself."""
    message: str
    code_from: str
    """``prefix`` (the text states it), ``record`` (the record's outcome implies it), ``text``
    (inferred from its words) or ``default``."""
    signal: str | None = None
    """The ``INFERENCE_TABLE`` signal an inferred code came from."""

    def details(self) -> dict[str, Any]:
        """What ``error_info.details`` says of where the code came from: for an inferred code,
        ``{"code_from": "text", "inferred": true, "signal": ...}``; nothing otherwise."""
        if self.signal is None:
            return {}
        return {"code_from": "text", "inferred": True, "signal": self.signal}


def text_error(text: str, *, is_error: bool | None, implied: ErrorCode | None = None) -> TextError | None:
    """The error ``text`` stands for, or None when it stands for none: the flag ``is_error`` decides
    (None: the dialect has none, and the text decides); the code is the one the text states, else
    ``implied`` (the code the record's own outcome implies: a denial ...), else the one its words
    signal, else EXECUTION_ERROR (see the module docstring)."""
    if is_error is False:
        return None
    stated = _STATED.match(text)
    code = _CODES.get(next((group for group in stated.groups() if group), "")) if stated else None
    if stated is not None and code is not None:
        rest = text[stated.end() :]
        message = rest.split("\n", 1)[0].strip()
        return TextError(code, rest if message else text, message or text, "prefix")
    if is_error is None and not _FAILURE_OPENING.match(text):
        return None
    message = text.strip() or NO_TEXT
    body = text if text.strip() else message
    if implied is not None:
        return TextError(implied, body, message, "record")
    found = infer_code(text)
    if found is None:
        return TextError(ErrorCode.EXECUTION_ERROR, body, message, "default")
    return TextError(found[0], body, message, "text", found[1])


def inferred(
    text: str,
    *,
    is_error: bool | None,
    context: Mapping[str, Any] | None,
    implied: ErrorCode | None = None,
) -> dict[str, Any]:
    """The ToolResponse wire object of a record that carries no response (written by another
    framework, or without its trailer): an error by ``text_error`` (``implied`` as there), else a
    partial result when the text begins with a partial marker (kept in the text), else a success;
    ``context`` as given."""
    error = text_error(text, is_error=is_error, implied=implied)
    wire: dict[str, Any]
    if error is not None:
        info: dict[str, Any] = {"code": error.code.value, "message": error.message}
        details = error.details()
        if details:
            info["details"] = details
        wire = {"status": "error", "text": error.text, "error_info": info}
    else:
        wire = {"status": "partial" if _PARTIAL.match(text) else "success", "text": text}
    if context:
        wire["context"] = dict(context)
    return wire
