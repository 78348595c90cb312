"""Strict I-JSON (RFC 7493) parsing with exact positions: ``parse_ijson`` accepts exactly the texts
SPEC-v1 allows and reports any other with the rule it breaks (docs/tool-response-protocol.md,
Validation), its line, column and pointer. orjson parses; a text it rejects is looked at again to
name the rule and place, and a text it accepts is screened for what it lets through (``refusal``).
One scan of a text's structure (``_Scan``) serves repeated names, pointers and ``locate_all``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from .._errors import IJsonError, IJsonRule
from .._violation import SchemaViolation
from ._engine import json_pointer

MAX_NESTING = 1024
"""The deepest nesting of arrays and objects accepted (orjson's limit; RFC 8259 section 9 allows one)."""

BINARY_SNIFF_BYTES = 8192
"""A NUL byte within this many leading bytes marks data as binary (git's rule)."""

_BOM = b"\xef\xbb\xbf"
_POINTER_DEPTH = 32
_NOT_SPACE = re.compile(r"[^ \t\r\n]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE_AT = re.compile(r"\\u[0-9a-fA-F]{4}")


def _error_at(
    text: str | bytes, offset: int, rule: IJsonRule, detail: str, pointer: str | None = None
) -> IJsonError:
    """The error at ``offset``; in text (not bytes that are no UTF-8), with the pointer there."""
    # In bytes that are no UTF-8, a column counts bytes.
    counted = text[:offset].decode("latin-1") if isinstance(text, bytes) else text
    line, column = positions(counted, (offset,))[offset]
    if pointer is None and rule is not IJsonRule.DEPTH and isinstance(text, str):
        pointer = pointer_at(text, offset)
    return IJsonError(rule, detail, line=line, column=column, offset=offset, pointer=pointer)


def excerpt(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` (then ``...``), escaped, for a message."""
    excerpt = text[:limit]
    return repr(excerpt + ("..." if len(text) > limit else ""))


def _decoded(data: bytes) -> str | IJsonError:
    """The text of ``data``, or the error that says why it is not UTF-8 text."""
    nul = data.find(b"\x00", 0, BINARY_SNIFF_BYTES)
    binary = f"binary data (a NUL byte at byte {nul}), not JSON text"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        if nul >= 0:
            return _error_at(data, nul, IJsonRule.BINARY, binary)
        bad = data[error.start : error.start + 1].hex()
        detail = f"not UTF-8: byte 0x{bad} at byte {error.start} ({error.reason})"
        return _error_at(data, error.start, IJsonRule.ENCODING, detail)
    if nul >= 0 and not text.lstrip(" \t\r\n").startswith(("{", "[", '"')):
        return _error_at(data, nul, IJsonRule.BINARY, binary)
    return text


def _diagnose(text: str, error: orjson.JSONDecodeError) -> IJsonError:
    """The I-JSON error for a text (known to be valid Unicode) that orjson rejected."""
    message = error.msg
    pos = min(max(error.pos, 0), len(text))
    if text.startswith("\ufeff"):
        return _error_at(text, 0, IJsonRule.ENCODING, "a byte order mark (U+FEFF) before the JSON text")
    if "depth limit" in message or "recursion limit" in message:
        return _error_at(
            text, pos, IJsonRule.DEPTH, f"arrays and objects nested deeper than {MAX_NESTING} levels"
        )
    if "infinity" in message:
        number = re.match(r"-?[0-9.eE+-]+", text[pos:])
        shown = excerpt(number.group() if number else text[pos:], 24)
        detail = f"the number {shown} is too large for a double; I-JSON numbers are finite"
        return _error_at(text, pos, IJsonRule.NON_FINITE_NUMBER, detail)
    for word, start in (("-Infinity", pos - 1), ("-Infinity", pos), ("Infinity", pos), ("NaN", pos)):
        if start >= 0 and text.startswith(word, start):
            detail = f"{word} is not a JSON number; I-JSON numbers are finite (write null or a string)"
            return _error_at(text, start, IJsonRule.NON_FINITE_NUMBER, detail)
    if "surrogate" in message:
        escape = _ESCAPE_AT.search(text, max(pos - 12, 0))
        shown = escape.group() if escape else "\\u...."
        start = escape.start() if escape else pos
        detail = f"the escape {shown} is a lone surrogate, not a Unicode character"
        return _error_at(text, start, IJsonRule.ENCODING, detail)
    if not text.strip(" \t\r\n"):
        return _error_at(text, len(text), IJsonRule.SYNTAX, "no JSON value (the text is empty)")
    end = len(text.rstrip(" \t\r\n"))
    if pos >= end:
        pos = end
        detail = f"{message} (the text ends too early)"
    else:
        detail = f"{message} (found {text[pos]!r})"
    return _error_at(text, pos, IJsonRule.SYNTAX, detail)


def parse_error(data: str | bytes, error: orjson.JSONDecodeError) -> IJsonError:
    """The ``IJsonError`` for a text orjson rejected with ``error`` (for callers that parse themselves)."""
    if isinstance(data, bytes):
        if data.startswith(_BOM):
            return _error_at(data, 0, IJsonRule.ENCODING, "a UTF-8 byte order mark before the JSON text")
        text = _decoded(data)
        if isinstance(text, IJsonError):
            return text
    else:
        text = data
        surrogate = _SURROGATE.search(text)
        if surrogate is not None:
            detail = f"a lone surrogate U+{ord(surrogate.group()):04X}, not a Unicode character"
            return _error_at(text, surrogate.start(), IJsonRule.ENCODING, detail)
    return _diagnose(text, error)


Path = tuple[str | int, ...]

# The tokens that carry structure (numbers, literals and white space are skipped). Strings are
# matched whole, so that nothing in one is read as structure; in the prefix of a rejected text,
# a string cut off runs to the end.
_TOKENS = re.compile(r'"(?:[^"\\]++|\\.?)*+(?:"|\Z)|[{}\[\],:]')
_NAME, _REPEATED, _VALUE = range(3)


def _string_value(token: str) -> str:
    """The string a JSON string token (its quotes included) stands for."""
    if "\\" not in token:
        return token[1:-1]
    try:
        name: str = json.loads(token)
    except ValueError:  # a malformed escape, in the prefix of a rejected text
        return token[1:-1]
    return name


def _closed(token: str) -> bool:
    """Whether a string token ends with its closing quote (not cut off by the end of the text)."""
    body = token[1:-1]
    return len(token) > 1 and token[-1] == '"' and (len(body) - len(body.rstrip("\\"))) % 2 == 0


@dataclass(slots=True)
class _Frame:
    """An open object (its names so far) or array (``names`` None), and its current slot."""

    names: set[str] | None
    slot: str | int
    wants_name: bool


class _Scan:
    """One pass over the structure of JSON text (up to ``end``), keeping the path being read.

    ``events`` gives each member name read (``_NAME``, or ``_REPEATED``) with its offset, and each
    place a value follows (``_VALUE``) with the offset after the ``[``, ``:`` or ``,`` before it.
    Iterative, so no nesting exhausts the stack; it survives text that is not JSON."""

    def __init__(self, text: str, end: int | None = None) -> None:
        self.text = text
        self.end = len(text) if end is None else max(0, min(end, len(text)))
        self.frames: list[_Frame] = []

    def path(self) -> Path:
        return tuple(frame.slot for frame in self.frames)

    def events(self) -> Iterator[tuple[int, int]]:
        frames = self.frames
        for match in _TOKENS.finditer(self.text, 0, self.end):
            token = match.group()
            first = token[0]
            if first == '"':
                frame = frames[-1] if frames else None
                if frame is not None and frame.names is not None and frame.wants_name and _closed(token):
                    name = _string_value(token)
                    repeated = name in frame.names
                    frame.names.add(name)
                    frame.slot, frame.wants_name = name, False
                    yield _REPEATED if repeated else _NAME, match.start()
            elif first == "{" or first == "[":
                frames.append(_Frame(set(), "", True) if first == "{" else _Frame(None, 0, False))
                if first == "[":
                    yield _VALUE, match.end()
            elif first == "}" or first == "]":
                if frames:
                    frames.pop()
            elif frames:
                frame = frames[-1]
                if first == ":":
                    yield _VALUE, match.end()
                elif frame.names is not None:
                    frame.wants_name = True
                else:
                    frame.slot = int(frame.slot) + 1
                    yield _VALUE, match.end()


def pointer_at(text: str, offset: int) -> str | None:
    """The pointer of the member or item being read at ``offset`` of a text well-formed up to there
    (where a parser stopped), or None when it is very deep."""
    scan = _Scan(text, offset)
    for _ in scan.events():
        pass
    if len(scan.frames) > _POINTER_DEPTH:
        return None
    path = scan.path()
    # At a member name's place (after "{" or ","), the object itself is the place.
    return json_pointer(path[:-1] if scan.frames and scan.frames[-1].wants_name else path)


Target = tuple[Path, bool]
"""An instance path, and whether the member name that ends it is meant rather than the value."""


def locate_all(text: str, targets: Iterable[Target]) -> dict[Target, int]:
    """Where each target's value (or member name) starts in the well-formed JSON text ``text``, in
    one scan; a target that names nothing is left out."""
    wanted = set(targets)
    found: dict[Target, int] = {}
    start = _NOT_SPACE.search(text)
    if ((), False) in wanted and start is not None:
        found[((), False)] = start.start()
    depths = {len(path) for path, _ in wanted if path}
    scan = _Scan(text)
    for event, offset in scan.events():
        if len(found) == len(wanted):
            break
        if len(scan.frames) not in depths:
            continue
        target = (scan.path(), event != _VALUE)
        if target not in wanted or target in found:
            continue
        if event == _VALUE:
            value = _NOT_SPACE.search(text, offset)
            if value is None or text[value.start()] in "]}":  # an empty array: no item there
                continue
            offset = value.start()
        found[target] = offset
    return found


def positions(text: str | bytes, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """The 1-based (line, column) of each offset of ``text``, counted in one pass; in UTF-8 bytes,
    the column counts characters."""
    out: dict[int, tuple[int, int]] = {}
    line = 1
    line_start = 0
    counted = 0
    newline: Any = "\n" if isinstance(text, str) else b"\n"
    for offset in sorted(set(offsets)):
        last = text.rfind(newline, counted, offset)
        if last >= 0:
            line += text.count(newline, counted, offset)
            line_start = last + 1
        counted = offset
        before = text[line_start:offset] if isinstance(text, bytes) else None
        column = offset - line_start if before is None else len(before.decode("utf-8", "replace"))
        out[offset] = (line, column + 1)
    return out


# A noncharacter in UTF-8 text: raw (U+FDD0-U+FDEF is EF B7 90-AF; U+FFFE and U+FFFF of plane n
# end in BF BE or BF BF), or written as an escape: \uFDD0-\uFDEF, \uFFFE, \uFFFF, or a
# surrogate pair whose high half ends in 3F, 7F, BF or FF and whose low half is \uDFFE or
# \uDFFF. An escape counts only after an even run of backslashes ("\\uFFFE" is no escape).
_NONCHARACTER = re.compile(
    rb"\xef\xb7[\x90-\xaf]|\xef\xbf[\xbe\xbf]|[\xf0-\xf4][\x8f\x9f\xaf\xbf]\xbf[\xbe\xbf]"
    rb"|(?<!\\)(?:\\\\)*+(\\u(?:[fF][dD][dDeE][0-9a-fA-F]|[fF]{3}[eEfF]"
    rb"|[dD][89abAB][37bBfF][fF]\\u[dD][fF][fF][eEfF]))"
)


def _may_repeat_a_name(data: str | bytes, value: Any) -> bool:
    """Whether the JSON text ``data``, which orjson read as ``value``, may repeat a member name.

    False is exact, and cheap: the text and ``orjson.dumps`` of its value hold as many colons
    exactly when orjson dropped no member (each has its colon), unless a colon is escaped
    (``\\u003a``): a text holding ``\\u003`` gets the exact scan."""
    try:
        dumped = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return True
    if isinstance(data, bytes):
        return data.count(b":") != dumped.count(b":") or (b"\\" in data and b"\\u003" in data)
    return data.count(":") != dumped.count(b":") or ("\\" in data and "\\u003" in data)


def _duplicate_error(data: str | bytes, value: Any) -> IJsonError | None:
    if not _may_repeat_a_name(data, value):
        return None
    text = data if isinstance(data, str) else data.decode("utf-8")
    scan = _Scan(text)
    offset = next((offset for event, offset in scan.events() if event == _REPEATED), None)
    if offset is None:
        return None
    path = scan.path()
    where = "the top level" if len(path) == 1 else json_pointer(path[:-1])
    detail = (
        f"the member name {json.dumps(path[-1])} occurs twice in one object ({where}); "
        "readers would disagree on its value"
    )
    return _error_at(text, offset, IJsonRule.DUPLICATE_NAME, detail, json_pointer(path))


def _noncharacter_error(data: str | bytes) -> IJsonError | None:
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    if raw.isascii() and b"\\u" not in raw:  # the expression is slow; most texts hold neither
        return None
    found = _NONCHARACTER.search(raw)
    if found is None:
        return None
    byte_offset = found.start(1) if found.group(1) is not None else found.start()
    text = data if isinstance(data, str) else data.decode("utf-8")
    offset = byte_offset if len(text) == len(raw) else len(raw[:byte_offset].decode("utf-8", "surrogatepass"))
    if text[offset] == "\\":
        escape = text[offset : offset + 12] if text[offset + 2] in "dD" else text[offset : offset + 6]
        code = ord(json.loads(f'"{escape}"'))
        written = f"written as the escape {escape}"
    else:
        code = ord(text[offset])
        written = "raw"
    detail = f"the noncharacter U+{code:04X} ({written}); I-JSON text carries no noncharacters (RFC 7493 2.1)"
    return _error_at(text, offset, IJsonRule.ENCODING, detail)


def refusal(data: str | bytes, value: Any) -> IJsonError | None:
    """Why I-JSON refuses a text that orjson accepted (a noncharacter, a repeated name), or None."""
    return _noncharacter_error(data) or _duplicate_error(data, value)


def violation_of(error: IJsonError) -> SchemaViolation:
    """The violation that reports ``error``."""
    return SchemaViolation(
        pointer=error.pointer or "",
        keyword=str(error.rule),
        message=error.detail,
        line=error.line,
        column=error.column,
    )


def parse_ijson(data: str | bytes | bytearray | memoryview) -> Any:
    """The value of the I-JSON text ``data`` (``str``, or its UTF-8 encoding); raises ``IJsonError``
    for any other text."""
    if isinstance(data, bytearray | memoryview):
        data = bytes(data)
    elif not isinstance(data, str | bytes):
        raise TypeError(f"JSON text must be str or bytes, not {type(data).__name__}")
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise parse_error(data, error) from None
    refused = refusal(data, value)
    if refused is not None:
        raise refused
    return value
