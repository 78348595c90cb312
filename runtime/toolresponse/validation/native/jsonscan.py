"""The scans of ``_jsonscan.c`` in pure Python: the same answers, for a build made without a C compiler.

- ``first_duplicate_python(data, max_depth)``: the byte offset and instance path
  of the first repeated member name of a JSON text, or None.
- ``lines_with_duplicates_python(lines, max_depth)``: the indexes of the lines
  in which some object repeats a member name.
- ``path_at_python(data, end, max_depth)``: the instance path of the member or
  item being read at byte ``end`` (where a parser stopped).
- ``first_noncharacter_python(data)``: the byte offset of the first noncharacter
  (U+FDD0-U+FDEF, U+nFFFE, U+nFFFF), raw or escaped, or None;
  ``lines_with_noncharacters_python(lines)`` the indexes of the lines holding one.
- ``triage_python(lines, loads, decode_error, verdict, max_depth, keep)``: the
  validator's per-line loop over a batch (decode, scan, judge), which sets aside
  only the lines that need a second look.

The token loops ``duplicate_member`` and ``_slots_at`` are iterative, so no
nesting exhausts Python's stack. ``duplicate_member`` runs behind a screen,
``has_duplicate_members``, that proves most texts free of duplicates first:
every member of a text has one colon outside strings, and colons inside strings
survive a round trip unchanged, so the text and ``orjson.dumps`` of its value
hold the same number of colons exactly when no member was dropped (orjson keeps
the last of two equal names, and a dropped member takes at least its own colon
with it); only an escaped colon (``\\u003a``) breaks the argument, and a text
containing ``\\u003`` gets the exact scan.

This module knows nothing of the validator; the package's ``__init__`` decides,
once, whether these or the C scans run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

import orjson

__all__ = [
    "PASSED",
    "REFUSED",
    "SUSPECT",
    "UNREADABLE",
    "duplicate_member",
    "first_duplicate_python",
    "first_noncharacter_python",
    "has_duplicate_members",
    "lines_with_duplicates_python",
    "lines_with_noncharacters_python",
    "path_at_python",
    "string_token_value",
    "triage_python",
]

Path = tuple[str | int, ...]

Triage = Callable[
    [list[bytes], Callable[[bytes], Any], type[Exception], Callable[[Any], bool] | None, int, bool],
    tuple[int, list[tuple[int, int, Any]]],
]
"""``triage(lines, loads, decode_error, verdict, max_depth, keep)``: how many lines were accepted,
and an entry (index, kind, found) for each line set aside (see ``triage_python``)."""

PASSED: Final = 0
"""A triage entry's kind: the verdict accepted the line's value (listed only when kept)."""
REFUSED: Final = 1
"""The verdict refused the value."""
SUSPECT: Final = 2
"""A scan found a noncharacter or a repeated member name: the value was not judged."""
UNREADABLE: Final = 3
"""The line is no JSON text: the entry holds the decoder's error."""

_JSON_WHITE_SPACE: Final = b" \t\r\n"
"""What a blank line holds, if anything (a vertical tab or a form feed is no JSON white space)."""
_ESCAPED_COLON_BYTES = b"\\u003"
_ESCAPED_COLON_TEXT = "\\u003"
# The tokens the duplicate scan needs: strings matched whole, so that their content is never
# read as structure, and the brackets and commas. Only run over text that orjson has accepted.
_SCAN_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\],]')
# The same over the valid prefix of a rejected text, which may end inside a string.
_PREFIX_TOKENS = re.compile(r'"(?:[^"\\]++|\\.?)*+(?:"|\Z)|[{}\[\],]')

# A noncharacter in UTF-8 text: raw (U+FDD0-U+FDEF is EF B7 90-AF; U+FFFE and U+FFFF of plane n
# end in BF BE or BF BF), or written as an escape: \uFDD0-\uFDEF, \uFFFE, \uFFFF, or a
# surrogate pair whose high half ends in 3F, 7F, BF or FF and whose low half is \uDFFE or
# \uDFFF. An escape counts only after an even run of backslashes ("\\uFFFE" is no escape).
_NONCHARACTER = re.compile(
    rb"\xef\xb7[\x90-\xaf]|\xef\xbf[\xbe\xbf]|[\xf0-\xf4][\x8f\x9f\xaf\xbf]\xbf[\xbe\xbf]"
    rb"|(?<!\\)(?:\\\\)*+(\\u(?:[fF][dD][dDeE][0-9a-fA-F]|[fF]{3}[eEfF]"
    rb"|[dD][89abAB][37bBfF][fF]\\u[dD][fF][fF][eEfF]))"
)


def string_token_value(token: str) -> str:
    """The string a JSON string token (its quotes included) stands for, its escapes decoded."""
    if "\\" in token:
        name: str = json.loads(token)
        return name
    return token[1:-1]


def has_duplicate_members(data: str | bytes, value: Any) -> bool:
    """Whether the JSON text ``data``, which orjson parsed to ``value``, may repeat a member name.

    False is exact: the text has no duplicate. True means "run ``duplicate_member``"
    (see the module docstring for why the colon count is exact).
    """
    try:
        dumped = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return True
    if isinstance(data, bytes):
        return data.count(b":") != dumped.count(b":") or (b"\\" in data and _ESCAPED_COLON_BYTES in data)
    return data.count(":") != dumped.count(b":") or ("\\" in data and _ESCAPED_COLON_TEXT in data)


def _token_offset(pattern: re.Pattern[str], text: str, index: int) -> int:
    """Where the ``index``-th match of ``pattern`` in ``text`` starts."""
    for number, match in enumerate(pattern.finditer(text)):
        if number == index:
            return match.start()
    return len(text)


def duplicate_member(text: str) -> tuple[int, Path] | None:
    """The offset and instance path of the first repeated member name of ``text``, or None.

    ``text`` must be well-formed JSON; the path ends with the repeated name.
    """
    # A frame is [is_object, slot, expecting_key, names seen]; lists and findall keep this
    # loop cheap, as it runs over every line the colon screen flags.
    stack: list[list[Any]] = []
    for index, token in enumerate(_SCAN_TOKENS.findall(text)):
        first = token[0]
        if first == '"':
            if stack and stack[-1][2]:
                frame = stack[-1]
                name = string_token_value(token)
                seen: set[str] = frame[3]
                if name in seen:
                    path = (*(f[1] for f in stack[:-1]), name)
                    return _token_offset(_SCAN_TOKENS, text, index), path
                seen.add(name)
                frame[1] = name
                frame[2] = False
        elif first == "{":
            stack.append([True, "", True, set()])
        elif first == "[":
            stack.append([False, 0, False, None])
        elif first == "}" or first == "]":
            stack.pop()
        elif stack[-1][0]:
            stack[-1][2] = True
        else:
            stack[-1][1] += 1
    return None


def _terminated(token: str) -> bool:
    """Whether a string token of ``_PREFIX_TOKENS`` ends with its closing quote."""
    if len(token) < 2 or not token.endswith('"'):
        return False
    backslashes = len(token) - 1 - len(token[:-1].rstrip("\\"))
    return backslashes % 2 == 0


def _slots_at(text: str, offset: int, max_depth: int) -> Path | None:
    """``path_at`` in Python, over characters: the path being read at ``offset`` of ``text``."""
    tokens = _PREFIX_TOKENS.findall(text, 0, offset)
    # Only the last token can be a string cut off where the parser stopped (every other one
    # is followed by more text, so it ends with its quote). A name cut off names nothing yet,
    # and the object is the place; a cut-off value changes nothing either: drop it.
    if tokens and tokens[-1][0] == '"' and not _terminated(tokens[-1]):
        tokens.pop()
    stack: list[list[Any]] = []
    push = stack.append
    for token in tokens:
        first = token[0]
        if first == '"':
            if stack:
                frame = stack[-1]
                if frame[2]:
                    frame[1] = string_token_value(token)
                    frame[2] = False
        elif first == "{":
            push([True, "", True])
        elif first == "[":
            push([False, 0, False])
        elif first == "}" or first == "]":
            if stack:
                stack.pop()
        elif stack:
            frame = stack[-1]
            if frame[0]:
                frame[2] = True
            else:
                frame[1] += 1
    if len(stack) > max_depth:
        return None
    slots = [frame[1] for frame in stack]
    if stack and stack[-1][2]:
        slots.pop()
    return tuple(slots)


def path_at_python(data: bytes, end: int, max_depth: int) -> Path | None:
    """The extension's ``path_at`` in Python: the path being read at byte ``end`` of ``data``."""
    text = data[: max(end, 0)].decode("utf-8", "surrogatepass")
    return _slots_at(text, len(text), max_depth)


def first_duplicate_python(data: bytes, max_depth: int) -> tuple[int, Path] | None:
    """The extension's ``first_duplicate`` in Python: the colon screen, then the token scan.

    The byte offset of the first repeated member name and its path, or None. ValueError when
    orjson cannot read ``data`` (as the extension gives when it nests deeper than ``max_depth``;
    orjson's own limit is 1024 levels)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise ValueError(f"not JSON text orjson reads: {error}") from None
    return _first_duplicate_of(data, value)


def _first_duplicate_of(data: bytes, value: Any) -> tuple[int, Path] | None:
    """``first_duplicate_python`` of ``data``, which orjson has read as ``value``."""
    if not has_duplicate_members(data, value):
        return None
    text = data.decode("utf-8")
    found = duplicate_member(text)
    if found is None:
        return None
    offset, path = found
    return len(text[:offset].encode("utf-8", "surrogatepass")), path


def lines_with_duplicates_python(lines: list[bytes], max_depth: int) -> list[int]:
    """The extension's ``lines_with_duplicates`` in Python: the indexes of the JSON texts ``lines``
    in which some object repeats a name (a line orjson cannot read is not among them)."""
    found = []
    for index, line in enumerate(lines):
        try:
            if first_duplicate_python(line, max_depth) is not None:
                found.append(index)
        except ValueError:
            continue
    return found


def first_noncharacter_python(data: bytes) -> int | None:
    """The extension's ``first_noncharacter`` in Python: the byte offset of the first
    noncharacter of the UTF-8 text ``data`` (of the backslash, for an escape), or None."""
    found = _NONCHARACTER.search(data)
    if found is None:
        return None
    return found.start(1) if found.group(1) is not None else found.start()


def lines_with_noncharacters_python(lines: list[bytes]) -> list[int]:
    """The extension's ``lines_with_noncharacters`` in Python. Only a line with a byte above 0x7F
    (a raw noncharacter's UTF-8 form begins with 0xEF to 0xF4) or a ``\\u`` (an escaped one) is
    searched: the expression is slow, and most lines hold neither."""
    return [index for index, line in enumerate(lines) if _holds_noncharacter(line)]


def _holds_noncharacter(line: bytes) -> bool:
    return (not line.isascii() or b"\\u" in line) and _NONCHARACTER.search(line) is not None


def triage_python(
    lines: list[bytes],
    loads: Callable[[bytes], Any],
    decode_error: type[Exception],
    verdict: Callable[[Any], bool] | None,
    max_depth: int,
    keep: bool,
) -> tuple[int, list[tuple[int, int, Any]]]:
    """The extension's ``triage`` in Python: each line decoded by ``loads``, scanned, and judged by
    ``verdict`` (None: every line is accepted, and kept). Returns how many lines were accepted,
    and an entry ``(index, kind, found)`` in line order for each line ``REFUSED`` (the value),
    ``SUSPECT`` (the value, not judged) or ``UNREADABLE`` (the ``decode_error`` raised; a line of
    nothing but JSON white space gets none, and is not decoded), and with ``keep`` for each
    ``PASSED`` (the value). ``max_depth`` bounds the C scan; a value orjson reads nests within it
    (1,024 levels), and the Python scan, iterative, needs no bound."""
    keep = keep or verdict is None
    accepted = 0
    entries: list[tuple[int, int, Any]] = []
    white_space = _JSON_WHITE_SPACE
    for index, line in enumerate(lines):
        # A blank line is skipped before the decoder sees it: the error it would raise costs
        # about a microsecond to build.
        if not line.strip(white_space):
            continue
        try:
            value = loads(line)
        except decode_error as error:
            entries.append((index, UNREADABLE, error))
            continue
        if _holds_noncharacter(line) or _first_duplicate_of(line, value) is not None:
            entries.append((index, SUSPECT, value))
        elif verdict is None or verdict(value):
            accepted += 1
            if keep:
                entries.append((index, PASSED, value))
        else:
            entries.append((index, REFUSED, value))
    return accepted, entries
