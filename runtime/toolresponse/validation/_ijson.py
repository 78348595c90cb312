"""Strict I-JSON (RFC 7493) parsing with exact positions.

``parse_ijson`` accepts exactly the JSON texts SPEC-v1 allows on the wire and
reports every other text with the rule it breaks, the line and column (both
1-based; the column counts characters) and, where there is one, the JSON
pointer of the offending member. The rules, as ``IJsonRule``:

=====================  ===========================================================
``syntax``             not well-formed JSON (RFC 8259), including an empty text
``encoding``           not UTF-8, a byte order mark, a lone surrogate (``"\\ud800"``),
                       a noncharacter (U+FDD0-U+FDEF, U+nFFFE, U+nFFFF; raw or escaped)
``duplicate-name``     a member name that occurs twice in one object, at any depth
``non-finite-number``  ``NaN``, ``Infinity``, ``-Infinity`` or a number too large for a double
``depth``              arrays and objects nested deeper than ``MAX_NESTING`` levels
``binary``             binary data (a NUL byte), not text
=====================  ===========================================================

The exception is ``IJsonError`` (``.rule``, ``.detail``, ``.line``, ``.column``,
``.offset``, ``.pointer``), a ``MalformedJsonError`` of the package's tree.

How it stays fast: orjson parses (it rejects NaN, Infinity, overflowing
numbers, lone surrogates, a byte order mark and nesting beyond 1024 levels by
itself), and only a text that fails is looked at again, to name the rule and
the position. orjson keeps the last of two equal member names silently, so
every text it accepts is also scanned for repeated names, and a rejected
text is scanned up to where orjson stopped for the pointer of the member it
was reading; orjson accepts noncharacters, so every text it accepts is also
scanned for them. The scans (``first_duplicate``, ``first_noncharacter`` and ``path_at``) come from the
validator's ``native`` package, which runs them in C (building no values)
where the package was compiled, and otherwise their Python twins, which give
the same answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import orjson

from .._errors import IJsonError, IJsonRule
from ._engine import json_pointer
from .native import first_duplicate, first_noncharacter, path_at, string_token_value

__all__ = [
    "MAX_NESTING",
    "IJsonError",
    "IJsonRule",
    "duplicate_error",
    "locate",
    "locate_all",
    "noncharacter_error",
    "parse_error",
    "parse_ijson",
    "pointer_at",
    "position",
    "positions",
]

MAX_NESTING = 1024
"""The deepest nesting of arrays and objects accepted (orjson's limit; RFC 8259 section 9 allows one)."""

BINARY_SNIFF_BYTES = 8192
"""A NUL byte within this many leading bytes marks data as binary (git's rule)."""

_BOM = b"\xef\xbb\xbf"
# The tokens of a JSON text that carry structure; numbers, literals and white space
# are skipped by the search. Strings are matched whole so that their content is never
# read as structure. Only run over text that orjson has accepted.
_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\],:]')
_POINTER_DEPTH = 32
_NOT_SPACE = re.compile(r"[^ \t\r\n]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE_AT = re.compile(r"\\u[0-9a-fA-F]{4}")


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of the character at ``offset`` in ``text``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def _error_at(text: str, offset: int, rule: IJsonRule, detail: str, pointer: str | None = None) -> IJsonError:
    line, column = position(text, offset)
    if pointer is None and rule is not IJsonRule.DEPTH:
        pointer = pointer_at(text, offset)
    return IJsonError(rule, detail, line=line, column=column, offset=offset, pointer=pointer)


def _shown(text: str, limit: int = 24) -> str:
    """A short, escaped excerpt of ``text`` for a message."""
    excerpt = text[:limit]
    return repr(excerpt + ("..." if len(text) > limit else ""))


def _decoded(data: bytes) -> str | IJsonError:
    """The text of ``data``, or the error that says why it is not UTF-8 text."""
    nul = data.find(b"\x00", 0, BINARY_SNIFF_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        if nul >= 0:
            line, column = _byte_position(data, nul)
            detail = f"binary data (a NUL byte at byte {nul}), not JSON text"
            return IJsonError(IJsonRule.BINARY, detail, line=line, column=column, offset=nul)
        line, column = _byte_position(data, error.start)
        bad = data[error.start : error.start + 1].hex()
        detail = f"not UTF-8: byte 0x{bad} at byte {error.start} ({error.reason})"
        return IJsonError(IJsonRule.ENCODING, detail, line=line, column=column, offset=error.start)
    if nul >= 0 and not text.lstrip(" \t\r\n").startswith(("{", "[", '"')):
        line, column = _byte_position(data, nul)
        detail = f"binary data (a NUL byte at byte {nul}), not JSON text"
        return IJsonError(IJsonRule.BINARY, detail, line=line, column=column, offset=nul)
    return text


def _non_finite_candidates(pos: int) -> tuple[tuple[str, int], ...]:
    """Where a NaN or Infinity may start, given the position orjson stopped at."""
    return (("-Infinity", pos - 1), ("-Infinity", pos), ("Infinity", pos), ("NaN", pos))


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
        shown = _shown(number.group() if number else text[pos:])
        detail = f"the number {shown} is too large for a double; I-JSON numbers are finite"
        return _error_at(text, pos, IJsonRule.NON_FINITE_NUMBER, detail)
    for word, start in _non_finite_candidates(pos):
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


def _parse_error(data: str | bytes, error: orjson.JSONDecodeError) -> IJsonError:
    if isinstance(data, bytes):
        if data.startswith(_BOM):
            return IJsonError(
                IJsonRule.ENCODING,
                "a UTF-8 byte order mark before the JSON text",
                line=1,
                column=1,
                offset=0,
            )
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
Target = tuple[Path, bool]
"""A place to find in a text: an instance path, and whether the member name that ends it is
meant (True: where an unknown member is shown) rather than the value there."""


class _Node:
    """A node of the trie of targets: the targets whose path passes through one slot."""

    __slots__ = ("children", "name", "value")

    def __init__(self) -> None:
        self.children: dict[str | int, _Node] = {}
        self.value = False
        """A target wants the offset of the value at this path."""
        self.name = False
        """A target wants the offset of the member name that ends this path."""


class _Frame:
    """One open array or object of a scan: its current slot and the trie node of its path."""

    __slots__ = ("expecting_key", "is_object", "node", "slot")

    def __init__(self, is_object: bool, node: _Node | None) -> None:
        self.is_object = is_object
        self.expecting_key = is_object
        self.slot: str | int = "" if is_object else 0
        self.node = node


def _trie(targets: Iterable[Target]) -> _Node:
    root = _Node()
    for path, member_name in targets:
        node = root
        for part in path:
            node = node.children.setdefault(part, _Node())
        if member_name:
            node.name = True
        else:
            node.value = True
    return root


def locate_all(text: str, targets: Iterable[Target]) -> dict[Target, int]:
    """The offsets of many places of the JSON text ``text`` in one pass: for each target found,
    where its value starts (or, for a ``member_name`` target, its member name).

    The cost is one scan of the text whatever the number of targets: a text with thousands of
    violations costs no more to locate than a text with one. ``text`` must be well-formed JSON;
    a target that names nothing in it is left out of the answer.
    """
    wanted = list(targets)
    found: dict[Target, int] = {}
    if ((), False) in wanted:
        start = _NOT_SPACE.search(text)
        if start is not None:
            found[((), False)] = start.start()
    root = _trie(wanted)
    if not root.children:
        return found
    remaining = sum(1 for path, _ in set(wanted) if path)
    stack: list[_Frame] = []
    for match in _TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        child: _Node | None = None
        opens_slot = False
        if first == '"':
            if stack and stack[-1].expecting_key:
                frame = stack[-1]
                frame.slot = string_token_value(token)
                frame.expecting_key = False
                if frame.node is not None:
                    child = frame.node.children.get(frame.slot)
                    if child is not None and child.name:
                        target = ((*(f.slot for f in stack),), True)
                        if target not in found:
                            found[target] = match.start()
                            remaining -= 1
        elif first == "{" or first == "[":
            if stack:
                parent = stack[-1]
                node = None if parent.node is None else parent.node.children.get(parent.slot)
            else:
                node = root
            stack.append(_Frame(first == "{", node))
            opens_slot = first == "["
        elif first == "}" or first == "]":
            stack.pop()
        elif first == ",":
            frame = stack[-1]
            if frame.is_object:
                frame.expecting_key = True
            else:
                frame.slot = int(frame.slot) + 1
                opens_slot = True
        elif first == ":":
            opens_slot = True
        if opens_slot:
            frame = stack[-1]
            child = None if frame.node is None else frame.node.children.get(frame.slot)
            if child is not None and child.value:
                target = ((*(f.slot for f in stack),), False)
                start = _NOT_SPACE.search(text, match.end())
                if target not in found and start is not None and text[start.start()] not in "]}":
                    found[target] = start.start()
                    remaining -= 1
        if remaining <= 0:
            break
    return found


def locate(text: str, path: Path, *, member_name: bool = False) -> int | None:
    """The offset where the value at ``path`` starts in the JSON text ``text``, or None.

    With ``member_name``, the offset of the member name that ends ``path``
    instead (the place to show for an unknown member). ``text`` must be well-formed JSON.
    To find many places, ``locate_all`` scans the text once for all of them.
    """
    target = (tuple(path), member_name)
    return locate_all(text, [target]).get(target)


def positions(text: str, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """The 1-based (line, column) of each offset of ``text``, counted in one pass."""
    out: dict[int, tuple[int, int]] = {}
    line = 1
    line_start = 0
    counted = 0
    for offset in sorted(set(offsets)):
        last = text.rfind("\n", counted, offset)
        if last >= 0:
            line += text.count("\n", counted, offset)
            line_start = last + 1
        counted = offset
        out[offset] = (line, offset - line_start + 1)
    return out


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def pointer_at(text: str, offset: int) -> str | None:
    """The pointer of the member or item being read at ``offset`` of a text that is
    well-formed up to there (where a parser stopped), or None when it is very deep."""
    if text.isascii():
        path = path_at(text.encode("ascii"), offset, _POINTER_DEPTH)
    else:
        path = path_at(_encoded(text), len(_encoded(text[:offset])), _POINTER_DEPTH)
    return None if path is None else json_pointer(path)


def _duplicate_error(data: str | bytes) -> IJsonError | None:
    raw = data if isinstance(data, bytes) else _encoded(data)
    found = first_duplicate(raw, MAX_NESTING)
    if found is None:
        return None
    byte_offset, path = found
    text = data if isinstance(data, str) else data.decode("utf-8")
    offset = byte_offset if len(text) == len(raw) else len(raw[:byte_offset].decode("utf-8", "surrogatepass"))
    where = "the top level" if len(path) == 1 else json_pointer(path[:-1])
    detail = (
        f"the member name {json.dumps(path[-1])} occurs twice in one object ({where}); "
        "readers would disagree on its value"
    )
    return _error_at(text, offset, IJsonRule.DUPLICATE_NAME, detail, json_pointer(path))


def _noncharacter_error(data: str | bytes) -> IJsonError | None:
    raw = data if isinstance(data, bytes) else _encoded(data)
    byte_offset = first_noncharacter(raw)
    if byte_offset is None:
        return None
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


def parse_ijson(data: str | bytes | bytearray | memoryview) -> Any:
    """The value of the I-JSON text ``data``; raises ``IJsonError`` for any other text.

    ``data`` is the text itself (``str``) or its UTF-8 encoding (``bytes`` and the like).
    """
    if isinstance(data, bytearray | memoryview):
        data = bytes(data)
    elif not isinstance(data, str | bytes):
        raise TypeError(f"JSON text must be str or bytes, not {type(data).__name__}")
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise _parse_error(data, error) from None
    noncharacter = _noncharacter_error(data)
    if noncharacter is not None:
        raise noncharacter
    duplicate = _duplicate_error(data)
    if duplicate is not None:
        raise duplicate
    return value


def parse_error(data: str | bytes, error: orjson.JSONDecodeError) -> IJsonError:
    """The ``IJsonError`` for a text orjson rejected with ``error`` (for callers that parse themselves)."""
    return _parse_error(data, error)


def duplicate_error(data: str | bytes) -> IJsonError | None:
    """The ``IJsonError`` for the first repeated member name of a text orjson accepted, or None."""
    return _duplicate_error(data)


def noncharacter_error(data: str | bytes) -> IJsonError | None:
    """The ``IJsonError`` for the first noncharacter of a text orjson accepted, or None."""
    return _noncharacter_error(data)
