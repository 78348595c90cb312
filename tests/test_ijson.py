"""Strict I-JSON parsing: every hostile text gets its rule, line, column and pointer; valid text its value."""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsontext import random_json_text

from toolresponse import MalformedJsonError
from toolresponse._errors import IJsonError, IJsonRule
from toolresponse.validation import Options, check_lines
from toolresponse.validation._ijson import MAX_NESTING, locate_all, parse_ijson, pointer_at, positions

REJECTED = [
    # (text, rule, line, column, pointer)
    (b'{"status": "success", "text": "ok"', IJsonRule.SYNTAX, 1, 35, "/text"),
    (b'{"status": "success",\n "text" "ok"}', IJsonRule.SYNTAX, 2, 9, "/text"),
    (b'{"a": 1,}', IJsonRule.SYNTAX, 1, 8, "/a"),
    (b"", IJsonRule.SYNTAX, 1, 1, ""),
    (b" \n\t", IJsonRule.SYNTAX, 2, 2, ""),
    (b'{"a": 1} {"a": 2}', IJsonRule.SYNTAX, 1, 10, ""),
    (b'{"stats": {"time_ms": NaN}}', IJsonRule.NON_FINITE_NUMBER, 1, 23, "/stats/time_ms"),
    (b"[Infinity]", IJsonRule.NON_FINITE_NUMBER, 1, 2, "/0"),
    (b'{"x": [1, -Infinity]}', IJsonRule.NON_FINITE_NUMBER, 1, 11, "/x/1"),
    (b'{"big": 1e400}', IJsonRule.NON_FINITE_NUMBER, 1, 9, "/big"),
    (b'{"a": 1, "a": 2}', IJsonRule.DUPLICATE_NAME, 1, 10, "/a"),
    (b'{"a": {"b": [0, {"c": 1, "c": 2}]}}', IJsonRule.DUPLICATE_NAME, 1, 26, "/a/b/1/c"),
    (b'{"\\u0061": 1, "a": 2}', IJsonRule.DUPLICATE_NAME, 1, 15, "/a"),
    (b'{"a:": 1, "a\\u003a": 2}', IJsonRule.DUPLICATE_NAME, 1, 11, "/a:"),
    (b'{"a/b": 1, "a\\/b": 2}', IJsonRule.DUPLICATE_NAME, 1, 12, "/a~1b"),
    (b'{"status": "success",\n "text": "x",\n "status": "error"}', IJsonRule.DUPLICATE_NAME, 3, 2, "/status"),
    (b'{"\\ud83d\\ude00": 1, "\xf0\x9f\x98\x80": 2}', IJsonRule.DUPLICATE_NAME, 1, 21, "/\U0001f600"),
    (b'{"a\\"b": 1, "a\\u0022b": 2}', IJsonRule.DUPLICATE_NAME, 1, 13, '/a"b'),
    (b'{"a": [{"b": 1}, {"b": 2, "c": {"d": 0, "d": 1}}]}', IJsonRule.DUPLICATE_NAME, 1, 41, "/a/1/c/d"),
    (b'{"text": "caf\xe9"}', IJsonRule.ENCODING, 1, 14, None),
    (b'\xef\xbb\xbf{"status": "success"}', IJsonRule.ENCODING, 1, 1, None),
    (b'{"text": "\\ud800"}', IJsonRule.ENCODING, 1, 11, "/text"),
    (b'{"text": "\\udc00\\ud800"}', IJsonRule.ENCODING, 1, 11, "/text"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff", IJsonRule.BINARY, 3, 1, None),
    (b"\x00\x00\x00", IJsonRule.BINARY, 1, 1, None),
    (b"[" * 100_000, IJsonRule.DEPTH, 1, MAX_NESTING + 2, None),
    (b'{"a": ' * 100_000, IJsonRule.DEPTH, 1, 6 * MAX_NESTING + 2, None),
]


@pytest.mark.parametrize(
    ("text", "rule", "line", "column", "pointer"),
    REJECTED,
    ids=[f"{rule}-{number}" for number, (_, rule, *_) in enumerate(REJECTED)],
)
def test_hostile_text_gets_its_rule_and_position(
    text: bytes, rule: IJsonRule, line: int, column: int, pointer: str | None
) -> None:
    """Each hostile text raises IJsonError with the rule it breaks, its line, column and pointer."""
    with pytest.raises(IJsonError) as caught:
        parse_ijson(text)
    expected = (rule, line, column, pointer)
    actual = (caught.value.rule, caught.value.line, caught.value.column, caught.value.pointer)
    assert expected == actual


def test_malformed_json_names_the_position_in_its_message() -> None:
    """The message of a syntax error says the line and column and what was found there."""
    with pytest.raises(IJsonError) as caught:
        parse_ijson(b'{"status": "success",\n "text" "ok"}')
    expected = "malformed JSON: line 2, column 9: unexpected character, expected ':' after key (found '\"')"
    assert expected == str(caught.value)


def test_ijson_error_is_a_malformed_json_error() -> None:
    """IJsonError belongs to the package's exception tree (MalformedJsonError, a ValueError)."""
    with pytest.raises(MalformedJsonError):
        parse_ijson(b"[NaN]")
    assert issubclass(IJsonError, ValueError)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b'{"status": "success", "text": "ok"}', {"status": "success", "text": "ok"}),
        ('{"text": "caf\u00e9 \\ud83d\\ude00"}', {"text": "caf\u00e9 \U0001f600"}),
        (b'{"a": {"b": 1}, "c": {"b": 2}}', {"a": {"b": 1}, "c": {"b": 2}}),
        (b'[{"a": 1}, {"a": 2}]', [{"a": 1}, {"a": 2}]),
        (b'{"url": "http://x:80/"}', {"url": "http://x:80/"}),
        (b'{"a\\u003a": 1, "a": 2}', {"a:": 1, "a": 2}),
        (b'{"a": "\\u0000"}', {"a": "\x00"}),
        (b'{"a": "\\"a\\": 1, \\"a\\": 2"}', {"a": '"a": 1, "a": 2'}),
        (b"  {}  \r\n", {}),
        (bytearray(b'{"a": 1}'), {"a": 1}),
        (memoryview(b'{"a": 1}'), {"a": 1}),
    ],
)
def test_ijson_text_gives_its_value(text: str | bytes | bytearray | memoryview, expected: Any) -> None:
    """Valid I-JSON (including repeated names in different objects and deep nesting) parses."""
    assert expected == parse_ijson(text)


def test_nesting_up_to_the_limit_parses() -> None:
    """Arrays nested MAX_NESTING deep parse; one level more is a depth error."""
    value = parse_ijson(b"[" * MAX_NESTING + b"]" * MAX_NESTING)
    depth = 0
    while value:
        value = value[0]
        depth += 1
    assert MAX_NESTING - 1 == depth
    with pytest.raises(IJsonError, match="nested deeper than 1024 levels"):
        parse_ijson(b"[" * (MAX_NESTING + 1) + b"]" * (MAX_NESTING + 1))


def test_a_str_with_a_lone_surrogate_is_an_encoding_error() -> None:
    """A Python str holding a lone surrogate is not Unicode text."""
    with pytest.raises(IJsonError) as caught:
        parse_ijson('{"a": "\ud800"}')
    assert (IJsonRule.ENCODING, 1, 8) == (caught.value.rule, caught.value.line, caught.value.column)


def test_non_text_input_is_a_type_error() -> None:
    """parse_ijson takes str or bytes."""
    with pytest.raises(TypeError, match="must be str or bytes, not int"):
        parse_ijson(5)  # type: ignore[arg-type]


def test_a_50_mb_line_parses_and_its_duplicate_is_found() -> None:
    """A 50 MB text is parsed whole, and a duplicate after 50 MB of string is still found."""
    big = "x" * 50_000_000
    text = orjson.dumps({"status": "success", "text": big})
    assert big == parse_ijson(text)["text"]
    duplicated = text[:-1] + b', "status": "error"}'
    with pytest.raises(IJsonError) as caught:
        parse_ijson(duplicated)
    assert ("/status", 50_000_032) == (caught.value.pointer, caught.value.column)


@pytest.mark.parametrize(
    ("text", "offset", "expected"),
    [
        ("abc", 0, (1, 1)),
        ("abc", 2, (1, 3)),
        ("a\nbc", 2, (2, 1)),
        ("a\n\u00e9\u00e9x", 4, (2, 3)),
    ],
)
def test_position_counts_lines_and_characters(text: str, offset: int, expected: tuple[int, int]) -> None:
    """positions gives the 1-based line and the 1-based column in characters."""
    assert {offset: expected} == positions(text, [offset])


LOCATE_TEXT = (
    '{\n  "status": "x",\n  "error_info": {"code": "NOT_FOUD", "d": [1, 2, {"q": true}]},\n  "e": []\n}'
)


@pytest.mark.parametrize(
    ("path", "member_name", "expected"),
    [
        ((), False, "{"),
        (("status",), False, '"x"'),
        (("error_info", "code"), False, '"NOT_FOUD"'),
        (("error_info", "code"), True, '"code"'),
        (("error_info", "d", 1), False, "2"),
        (("error_info", "d", 2, "q"), False, "true"),
        (("e",), False, "[]"),
    ],
)
def test_locate_finds_where_a_value_starts(
    path: tuple[str | int, ...], member_name: bool, expected: str
) -> None:
    """locate gives the offset of the value (or the member name) at a path."""
    target = (path, member_name)
    offset = locate_all(LOCATE_TEXT, [target]).get(target)
    assert offset is not None
    assert expected == LOCATE_TEXT[offset : offset + len(expected)]


@pytest.mark.parametrize("path", [("nope",), ("e", 0), ("status", "x")])
def test_locate_gives_none_for_a_path_that_is_not_there(path: tuple[str | int, ...]) -> None:
    """A path that names nothing has no location."""
    assert {} == locate_all(LOCATE_TEXT, [(path, False)])


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ('{"a": [1, {"b": ', "/a/1/b"),
        ('{"a": 1, ', ""),
        ('{"a": "unterminated {[', "/a"),
        ("[[[", "/0/0/0"),
        ('{"a": {}, "b": [[], ', "/b/1"),
    ],
)
def test_pointer_at_names_the_member_being_read(prefix: str, expected: str) -> None:
    """pointer_at gives the pointer of the slot open at the end of a valid prefix."""
    assert expected == pointer_at(prefix, len(prefix))


def _reference_duplicate(text: str) -> bool:
    found = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal found
        names = [name for name, _ in items]
        found = found or len(set(names)) != len(names)
        return dict(items)

    json.loads(text, object_pairs_hook=pairs)
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_repeated_names_are_found_as_a_full_parse_finds_them(seed: int) -> None:
    """For random texts (escaped names, colons in strings, any spacing), parse_ijson rejects
    exactly those in which some object repeats a name, as stdlib json with a pairs hook sees it."""
    rng = random.Random(seed)
    for _ in range(20):
        text = random_json_text(rng)
        expected = _reference_duplicate(text)
        for data in (text, text.encode("utf-8")):
            rules = []
            try:
                parse_ijson(data)
            except IJsonError as error:
                rules.append(error.rule)
            assert ([IJsonRule.DUPLICATE_NAME] if expected else []) == rules


def _line_verdicts(lines: list[bytes]) -> tuple[list[bool], int]:
    """For JSON lines: whether the validator's fast path (check_lines) calls each a duplicate,
    and how many lines its verdict-only path (--quiet) counts as invalid for any reason."""
    options = Options()
    batch = check_lines("t", lines, 1, options)
    flagged = {record.line for record in batch.records if record.errors[0].keyword == "duplicate-name"}
    quiet = check_lines("t", lines, 1, options._replace(explain=False))
    return [number in flagged for number in range(1, len(lines) + 1)], quiet.invalid


def _spellings(text: str) -> list[bytes]:
    """One value written as JSON lines the ways producers write it: as is, compact (orjson),
    spaced (stdlib json), each with LF or CRLF."""
    value = orjson.loads(text)
    bodies = [text.encode("utf-8"), orjson.dumps(value), json.dumps(value).encode("utf-8")]
    return [body + end for body in bodies for end in (b"\n", b"\r\n")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_the_fast_path_finds_exactly_the_lines_that_repeat_a_name(seed: int) -> None:
    """Random lines (names repeated at any depth, escaped like "\\u0073tatus", colons and escaped
    colons in strings, any spacing) go through the per-line fast path: a line is a duplicate-name
    violation exactly when stdlib json with a pairs hook sees a repeated name, and the verdict-only
    path counts the same lines invalid."""
    rng = random.Random(seed)
    texts = [random_json_text(rng) for _ in range(20)]
    lines = [line for text in texts for line in _spellings(text)]
    expected = [_reference_duplicate(line.decode("utf-8")) for line in lines]
    flagged, quiet_invalid = _line_verdicts(lines)
    assert expected == flagged
    # Every line is a JSON text but no ToolResponse (the generator writes no "text"), so the
    # verdict-only path counts them all invalid, duplicates or not.
    assert len(lines) == quiet_invalid


@pytest.mark.parametrize(
    ("line", "duplicate"),
    [
        (b'{"\\u0073tatus": "error", "status": "success", "text": "x"}\n', True),
        (b'{"status":"success","text":"x","status":"error"}\n', True),
        (b'{"status" : "success" , "text" : "x" , "status" : "error"}\r\n', True),
        (b'{"status": "success", "text": "x", "data": {"a": {"b": 1, "b": 2}}}\n', True),
        (b'{"status": "success", "text": "a\\u003a", "data": {"k": 1, "k": 2}}\n', True),
        (b'{"status":"success","text":"x"}\n', False),
        (b'{"status":"success","text":"x"}   \r\n', False),
        (b'{"status": "success", "text": "http://x:1/", "data": {"a:": 1, "a": 2}}\n', False),
        (b'{"status": "success", "text": "\\u003a", "data": {"l": [{"k": 1}, {"k": 2}]}}\n', False),
        (b'{"status": "success", "text": "x", "data": {"d": ' + b"[" * 300 + b"]" * 300 + b"}}\n", False),
        (
            b'{"status": "success", "text": "x", "data": {"d": '
            + b"[" * 300
            + b'{"a": 1, "a": 2}'
            + b"]" * 300
            + b"}}\n",
            True,
        ),
    ],
)
def test_the_fast_path_tells_a_repeated_name_from_a_repeated_look(line: bytes, duplicate: bool) -> None:
    """Escaped and spaced spellings of one name are a duplicate; the same name in two objects,
    colons in strings and values too deep for the screen's dump are not."""
    assert ([duplicate], 1 if duplicate else 0) == _line_verdicts([line])


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ('{"a": 1', "/a"),
        ('{"a\\', ""),
        ('{"\\u12', ""),
        ('{"a": "\\"', "/a"),
        ("[" + "[" * 40 + "]" * 40 + ', {"b": 1', "/1/b"),
    ],
)
def test_pointer_at_survives_a_cut_off_text(prefix: str, expected: str) -> None:
    """A name cut off (inside an escape too) names nothing: the object is the place; a value cut
    off inside an escaped quote is still the member's; a deep nesting closed again is left."""
    assert expected == pointer_at(prefix, len(prefix))


def test_pointer_at_clamps_its_offset_and_gives_up_on_deep_nesting() -> None:
    """An offset past either end is clamped; a place nested deeper than 32 levels has no pointer."""
    assert ("/a", "") == (pointer_at('{"a": 1', 100), pointer_at('{"a": 1', -3))
    assert pointer_at("[" * 100_000, 100_000) is None


@pytest.mark.parametrize("position", [1, 17, 99_999])
def test_an_object_of_100_000_names_has_its_repeated_name_found(position: int) -> None:
    """Wherever the repeated name of a large object is, it is found at its place; the same names
    in nested objects stay apart."""
    names = [f"n{number}" for number in range(100_000)]
    unique = "{" + ", ".join(f'"{name}": {{"{name}": 0, "x": 1}}' for name in names) + "}"
    assert len(names) == len(parse_ijson(unique))
    with pytest.raises(IJsonError) as caught:
        parse_ijson(unique[:-1] + f', "{names[position]}": 2}}')
    assert (f"/{names[position]}", len(unique) + 2) == (caught.value.pointer, caught.value.column)


def test_rows_of_the_same_names_are_no_repetition() -> None:
    """A table of 30,000 objects of the same 20 names parses; a repeat in the last row is found."""
    text = json.dumps([{f"column_{number}": number for number in range(20)}] * 30_000)
    assert 30_000 == len(parse_ijson(text))
    with pytest.raises(IJsonError) as caught:
        parse_ijson(text[:-2] + ', "column_3": 0}]')
    assert "/29999/column_3" == caught.value.pointer


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_get_a_value_or_an_i_json_error(data: bytes) -> None:
    """Bytes that are not JSON at all (unterminated strings, a backslash at the end, stray
    brackets, invalid escapes and UTF-8) get an IJsonError, never another exception."""
    with contextlib.suppress(IJsonError):
        parse_ijson(data)
