"""Text safe for a terminal: what a third party's file holds never reaches the screen as controls.

``printable(text)`` escapes C0 and C1 control characters (ESC, BEL, CR ...), the
bidi controls that reorder what a line shows, lone surrogates and the backslash
itself (so that an escape cannot be faked), as ``\\xNN`` or ``\\uNNNN``. Every
text output of the package (reports, the validator's lines) writes names from
inputs through it; JSON outputs are escaped by the JSON writer already.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

_UNSAFE = re.compile(r"[\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\\":
        return "\\\\"
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: control, bidi and surrogate characters escaped."""
    return _UNSAFE.sub(_escape, text)
