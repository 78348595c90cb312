"""A bounded fuzz run: the validator's verdicts against python-jsonschema plus a strict I-JSON reader.

Hypothesis writes ToolResponse-like documents (valid ones, and ones with wrong
members and values) as JSON text, in ways a careless or hostile producer writes
it: member names repeated, numbers that are NaN, Infinity or too large for a
double, integers past 64 bits, noncharacters and lone surrogates raw or as
escapes, and the text itself cut, doubled or spliced. The oracle reads the text
with the standard library's parser made strict (no duplicate names, no
non-finite numbers, no lone surrogates, no noncharacters; integers outside the
64-bit range read as doubles, as an I-JSON reader keeps them), then judges the
value with jsonschema's Draft 2020-12 validator over the bundled schema. The
validator must agree on every text: ``validate_json`` with both engines and the
bulk path (``check_lines``), which runs the I-JSON screens.

The budget is fixed (``max_examples``, derandomized): a few seconds in ``make test``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from toolresponse.validation import Options, bundled_schema, check_lines, validate_json

REFERENCE = Draft202012Validator(bundled_schema())
BUDGET = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _is_noncharacter(char: str) -> bool:
    code = ord(char)
    return 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE


class NotIJson(ValueError):
    """The oracle's answer for text that is not I-JSON."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names = [name for name, _ in pairs]
    if len(names) != len(set(names)):
        raise NotIJson("duplicate name")
    for name in names:
        _check_string(name)
    return dict(pairs)


def _check_string(text: str) -> None:
    for char in text:
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF or _is_noncharacter(char):
            raise NotIJson(f"U+{code:04X}")


def _constant(name: str) -> Any:
    raise NotIJson(name)


def _integer(literal: str) -> int | float:
    value = int(literal)
    if -(2**63) <= value <= 2**64 - 1:
        return value
    return _float(literal)


def _float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise NotIJson("too large for a double")
    return value


def _walk_strings(value: Any) -> None:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            _check_string(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def oracle(text: bytes) -> bool:
    """The verdict of the strict I-JSON reader plus jsonschema."""
    try:
        decoded = text.decode("utf-8")
        if decoded.startswith("\ufeff"):
            return False
        value = json.loads(
            decoded,
            object_pairs_hook=_no_duplicates,
            parse_constant=_constant,
            parse_int=_integer,
            parse_float=_float,
        )
        _walk_strings(value)
    except (NotIJson, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False
    return bool(REFERENCE.is_valid(value))


# --- writing JSON text the way producers do

_CHARACTERS = st.one_of(
    st.characters(codec="utf-8"),
    st.sampled_from(["\ufffe", "\uffff", "\ufdd0", "\ufdef", "\U0001fffe", "\U0010ffff", "\ufffd", "\ufdcf"]),
    st.sampled_from(["\x1b", "\x07", "\u202e", "\x9b", '"', "\\", "/"]),
)


@st.composite
def string_text(draw: st.DrawFn, value: str, hostile: bool = True) -> str:
    """A JSON string token for ``value``: characters raw or escaped, now and then a lone surrogate."""
    out = ['"']
    for char in value:
        code = ord(char)
        if char in '"\\' or code < 0x20:
            out.append(json.dumps(char)[1:-1])
        elif draw(st.integers(0, 4)) == 0:
            out.append(json.dumps(char, ensure_ascii=True)[1:-1] if code > 0x7F else f"\\u{code:04x}")
        else:
            out.append(char)
    if hostile and draw(st.integers(0, 30)) == 0:
        out.append(
            draw(st.sampled_from(["\\ud800", "\\udfff", "\\uDBFF\\uDFFF", "\\uFFFE", "\\\\uFFFE", "\\uFDD0"]))
        )
    out.append('"')
    return "".join(out)


@st.composite
def number_text(draw: st.DrawFn) -> str:
    return draw(
        st.one_of(
            st.integers(-(2**70), 2**70).map(str),
            st.floats(allow_nan=False, allow_infinity=False).map(repr),
            st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e999", "9" * 400, "0", "-0", "1E5"]),
        )
    )


@st.composite
def value_text(draw: st.DrawFn, depth: int = 0) -> str:
    """A JSON value's text: mostly well-formed, with the departures of the module docstring."""
    kinds = ["string", "number", "literal"] + (["object", "array"] if depth < 4 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "string":
        return draw(string_text(draw(st.text(_CHARACTERS, max_size=8))))
    if kind == "number":
        return draw(number_text())
    if kind == "literal":
        return draw(st.sampled_from(["true", "false", "null"]))
    if kind == "array":
        items = draw(st.lists(value_text(depth + 1), max_size=3))
        return "[" + ", ".join(items) + "]"
    names = draw(st.lists(st.text(_CHARACTERS, max_size=6), max_size=3))
    return object_text(draw, [(name, draw(value_text(depth + 1))) for name in names])


def object_text(draw: st.DrawFn, members: list[tuple[str, str]]) -> str:
    """An object of ``members`` (name, value text), now and then with a name written twice."""
    if members and draw(st.integers(0, 12)) == 0:
        members = [*members, (members[0][0], draw(value_text(3)))]
    return "{" + ", ".join(f"{draw(string_text(name))}: {value}" for name, value in members) + "}"


_STATUSES = st.sampled_from(['"success"', '"partial"', '"error"', '"sucess"', '"Error"', "1", "null"])
_CODES = st.sampled_from(['"NOT_FOUND"', '"TIMEOUT"', '"NOT_FOUD"', '"INTERNAL_ERROR"', "404", '""'])


_PLAIN = st.characters(codec="utf-8", exclude_categories=["Cs", "Cn"])
"""Characters a careful producer writes (noncharacters are unassigned, category Cn)."""


@st.composite
def valid_response_text(draw: st.DrawFn) -> bytes:
    """A valid ToolResponse as JSON text, its strings written raw or with escapes."""
    status = draw(st.sampled_from(["success", "partial", "error"]))
    members = [
        ("status", f'"{status}"'),
        ("text", draw(string_text(draw(st.text(_PLAIN, min_size=1, max_size=12)), False))),
    ]
    if status == "error":
        code = draw(st.sampled_from(['"NOT_FOUND"', '"TIMEOUT"', '"INVALID_PARAM"', '"INTERNAL_ERROR"']))
        message = draw(string_text(draw(st.text(_PLAIN, min_size=1, max_size=12)), False))
        members.append(("error_info", "{" + f'"code": {code}, "message": {message}' + "}"))
    if draw(st.booleans()):
        names = draw(st.lists(st.text(_PLAIN, max_size=6), max_size=4, unique=True))
        values = [
            draw(st.sampled_from(["1", "-2.5", "true", "null", '"v"', "[1, {}]", "9" * 30])) for _ in names
        ]
        members.append(
            (
                "data",
                "{"
                + ", ".join(f"{draw(string_text(n, False))}: {v}" for n, v in zip(names, values, strict=True))
                + "}",
            )
        )
    if draw(st.booleans()):
        members.append(("stats", '{"time_ms": ' + str(draw(st.integers(0, 10**6))) + "}"))
    text = "{" + ", ".join(f'"{name}": {value}' for name, value in draw(st.permutations(members))) + "}"
    return text.encode("utf-8")


@st.composite
def hostile_response_text(draw: st.DrawFn) -> bytes:
    """A ToolResponse (or something close to one) as JSON text."""
    members: list[tuple[str, str]] = [("status", draw(_STATUSES)), ("text", draw(value_text(3)))]
    if draw(st.booleans()):
        members.append(("data", draw(value_text(1))))
    if draw(st.booleans()):
        info = [("code", draw(_CODES)), ("message", draw(value_text(3)))]
        if draw(st.booleans()):
            info.append(("retryable", draw(st.sampled_from(["true", "false", '"yes"']))))
        if draw(st.booleans()):
            info.append(("retry_after_ms", draw(number_text())))
        members.append(("error_info", object_text(draw, info)))
    if draw(st.booleans()):
        members.append(("stats", object_text(draw, [("time_ms", draw(number_text()))])))
    if draw(st.integers(0, 5)) == 0:
        members.append(
            (draw(st.sampled_from(["error", "x-trace", "extra", "x-\ufffe"])), draw(value_text(2)))
        )
    order = draw(st.permutations(members))
    text = object_text(draw, list(order))
    mutation = draw(st.integers(0, 9))
    if mutation == 0 and text:
        cut = draw(st.integers(0, len(text) - 1))
        text = text[:cut] + text[cut + 1 :]
    elif mutation == 1:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(list('{}[],:"\\ 0\x0b\x0c'))) + text[cut:]
    return text.encode("utf-8", "surrogatepass")


@BUDGET
@given(st.one_of(valid_response_text(), hostile_response_text()))
def test_the_validator_agrees_with_jsonschema_and_a_strict_ijson_reader(text: bytes) -> None:
    """validate_json (both engines) and the bulk path give the oracle's verdict on every text."""
    expected = oracle(text)
    single_line = b"\n" not in text and b"\r" not in text
    verdicts = {
        "fast": validate_json(text).valid,
        "reference": validate_json(text, engine="reference").valid,
    }
    if single_line:
        batch = check_lines("fuzz", [text + b"\n"], 1, Options())
        verdicts["bulk"] = batch.valid == 1 and batch.invalid == 0
    assert dict.fromkeys(verdicts, expected) == verdicts, text
