"""What a text alone says of a response: one convention, written and read by every dialect.

A model, and clients that log only a result's text, see nothing else, so a dialect with no member
for an error's code writes the model text: ``ERROR <CODE>: <message>``, ``PARTIAL: <text>`` or the
text. Read back, the record's error flag decides (without one, a stated code or a failure's
opening); the code is the stated one, else the record's, else its words' (``infer_code``), else
EXECUTION_ERROR. docs/migrating.md, "Errors in text: one convention", is the full account.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from toolresponse_generated import INFERENCE_RULES, ErrorCode

from .._response import ToolResponse

CODES: Final = {code.value: code for code in ErrorCode}
"""Every error code by its name."""
# "ERROR NOT_FOUND: ..." (ours); "[NOT_FOUND]: ..." (HelloAgents 1.0's agent); "❌ 错误 [NOT_FOUND]: ..."
# (HelloAgents 1.0.1's to_model_text).
_STATED: Final = re.compile(r"\A(?:ERROR ([A-Z_]+)|(?:❌ 错误 )?\[([A-Z_]+)\]):? ?")
_PARTIAL: Final = re.compile(
    r"\A(?:PARTIAL(?: RESULT)?(?: \(incomplete\))?:|\[PARTIAL\]:?|\[partial result\]|⚠️ 部分成功:) ?"
)
_FAILURE_OPENING: Final = re.compile(
    r"\A\s*(?:(?i:error\b|an error occurred\b|traceback \(most recent call last\))"
    r"|(?:[A-Za-z_][\w.]*)?(?:Error|Exception)\s*[:(])"
)

NO_TEXT: Final = "The tool reported an error without saying why."
"""An error's message when its record has no text at all."""


def model_text(response: ToolResponse) -> str:
    """What a reader of text alone gets of ``response``: its text, its status stated (see above)."""
    info = response.error_info
    code, message = (None, None) if info is None else (info.code.value, info.message)
    return _stating(response.status.value, response.text, code, message)


def wire_model_text(wire: Mapping[str, Any]) -> str | None:
    """``model_text`` of the wire object ``wire`` (not yet validated); None when it lacks a string
    status, text or (for an error) ``error_info`` code and message."""
    status, text, info = wire.get("status"), wire.get("text"), wire.get("error_info")
    code, message = (info.get("code"), info.get("message")) if isinstance(info, Mapping) else (None, None)
    if not isinstance(status, str) or not isinstance(text, str):
        return None
    if status == "error" and not (isinstance(code, str) and isinstance(message, str)):
        return None
    return _stating(status, text, code, message)


def _stating(status: str, text: str, code: str | None, message: str | None) -> str:
    if status == "partial":
        return f"PARTIAL: {text}"
    if status == "error":
        header = f"ERROR {code}: {message}"
        return header if text == message else f"{header}\n{text}"
    return text


def stated_text(shown: str, code: str, message: str) -> str:
    """The text of an error coded ``code`` with ``message`` from its model text ``shown`` (``shown``
    itself when it does not begin with that error's header)."""
    header = f"ERROR {code}: {message}"
    if shown == header:
        return message
    return shown[len(header) + 1 :] if shown.startswith(header + "\n") else shown


# -- the code inferred from third-party text --------------------------------------------------

# How a third-party error's text is coded: schema/v1/interop/text-inference.json, most specific rule
# first (the TypeScript package reads the same table), each pattern compiled once.
_COMPILED: Final = tuple((rule.signal, rule.regex, rule.code) for rule in INFERENCE_RULES)


def infer_code(text: str) -> tuple[ErrorCode, str] | None:
    """The code a third-party error text signals, and the signal (an ``INFERENCE_RULES`` row);
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
    source: dict[str, Any]
    """Where the code came from, as ``error_info.details`` says it: ``code_from`` ``prefix`` (the
    text states it), ``record`` (the record's outcome implies it), ``default``, or ``text``
    (inferred from its words: then ``"inferred": true`` and the ``INFERENCE_RULES`` ``signal``)."""


def text_error(text: str, *, is_error: bool | None, implied: ErrorCode | None = None) -> TextError | None:
    """The error ``text`` stands for, or None (see the module docstring): ``is_error`` None means the
    dialect has no flag; ``implied`` is the code the record's own outcome implies."""
    if is_error is False:
        return None
    stated = _STATED.match(text)
    code = CODES.get(next((group for group in stated.groups() if group), "")) if stated else None
    if stated is not None and code is not None:
        rest = text[stated.end() :]
        message = rest.split("\n", 1)[0].strip()
        return TextError(code, rest if message else text, message or text, {"code_from": "prefix"})
    if is_error is None and not _FAILURE_OPENING.match(text):
        return None
    message = text.strip() or NO_TEXT
    body = text if text.strip() else message
    if implied is not None:
        return TextError(implied, body, message, {"code_from": "record"})
    found = infer_code(text)
    if found is None:
        return TextError(ErrorCode.EXECUTION_ERROR, body, message, {"code_from": "default"})
    return TextError(found[0], body, message, {"code_from": "text", "inferred": True, "signal": found[1]})


def inferred(
    text: str,
    *,
    is_error: bool | None,
    context: Mapping[str, Any] | None,
    implied: ErrorCode | None = None,
) -> dict[str, Any]:
    """The ToolResponse wire object of a record that carries no response: an error by
    ``text_error``, else a partial result by its marker (kept in the text), else a success."""
    error = text_error(text, is_error=is_error, implied=implied)
    wire: dict[str, Any]
    if error is not None:
        info: dict[str, Any] = {"code": error.code.value, "message": error.message}
        if "inferred" in error.source:  # only a code inferred from the words is explained
            info["details"] = error.source
        wire = {"status": "error", "text": error.text, "error_info": info}
    else:
        wire = {"status": "partial" if _PARTIAL.match(text) else "success", "text": text}
    if context:
        wire["context"] = dict(context)
    return wire
