"""The C extensions give exactly the answers of their Python twins: the scans of JSON text
(native/_jsonscan.c, twins in native/jsonscan.py) on generated texts and every prefix of them,
staying safe on any bytes at all; the projector (native/_projector.c, twin Projection.project)
here on edge cases, and on the conformance fixtures and 100,000 generated responses in
test_engine_parity. The projector and ProjectionPlan agree on the order of the plan's fields, or
the package refuses to import.

A test that runs the C code uses the ``native_extensions`` fixture (conftest.py): without the
extensions it is skipped, or fails where TOOLRESPONSE_REQUIRE_NATIVE=1."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsontext import random_json_text

from toolresponse.validation._engine import root_projection, root_projector
from toolresponse.validation._ijson import MAX_NESTING
from toolresponse.validation.native import (
    NATIVE_PROJECTOR,
    NATIVE_SCANS,
    ProjectionPlan,
    check_plan_fields,
    first_duplicate,
    first_duplicate_python,
    lines_with_duplicates,
    lines_with_duplicates_python,
    path_at,
    path_at_python,
    triage,
    triage_python,
)
from toolresponse.validation.native.jsonscan import PASSED, REFUSED, SUSPECT, UNREADABLE

POINTER_DEPTH = 32
REPOSITORY = Path(__file__).resolve().parent.parent

# Run in a fresh interpreter first: the C extensions cannot be imported, as in a build made
# without a C compiler.
WITHOUT_EXTENSIONS = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name in ("toolresponse.validation.native._jsonscan", "toolresponse.validation.native._projector"):
            raise ImportError("built without a C compiler")
sys.meta_path.insert(0, Refuse())
"""

needs_extensions = pytest.mark.usefixtures("native_extensions")


@needs_extensions
def test_the_extensions_are_built_and_used() -> None:
    """This environment compiled both C extensions, and the validator runs them (a build without a
    C compiler would fall back to the Python twins, correct but slower)."""
    from toolresponse.validation.native import _jsonscan

    assert (True, True) == (NATIVE_SCANS, NATIVE_PROJECTOR)
    assert first_duplicate is _jsonscan.first_duplicate
    assert root_projector() is not root_projection().project


def _spellings(text: str) -> list[bytes]:
    """A generated text as written, compact, spaced and with non-ASCII characters escaped."""
    value = json.loads(text)
    return [
        text.encode("utf-8"),
        json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        json.dumps(value, indent=1).encode("utf-8"),
    ]


@needs_extensions
@settings(max_examples=300, deadline=None, database=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_first_duplicate_agrees_with_its_python_twin(seed: int) -> None:
    """On random texts (names repeated at any depth, escaped like "\\u0061", colons and escaped
    colons in strings, any spacing) the C scan finds the same first repeated name, at the same
    byte offset and instance path, as the Python one."""
    rng = random.Random(seed)
    for _ in range(10):
        for data in _spellings(random_json_text(rng)):
            expected = first_duplicate_python(data, MAX_NESTING)
            assert (data, expected) == (data, first_duplicate(data, MAX_NESTING))


@needs_extensions
@settings(max_examples=100, deadline=None, database=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_lines_with_duplicates_agrees_with_its_python_twin(seed: int) -> None:
    """A batch of random lines, some cut short or too deep for orjson: of the lines orjson reads,
    the C scan names those that repeat a name, as the Python one does (what either says of the
    other lines means nothing: the validator reports them as malformed)."""
    rng = random.Random(seed)
    lines = [spelling for _ in range(10) for spelling in _spellings(random_json_text(rng))]
    lines += [lines[0][: len(lines[0]) // 2], b"[" * 1100 + b"]" * 1100, b'{"a": 1, "a": 2}\n']
    rng.shuffle(lines)
    readable = set()
    for index, line in enumerate(lines):
        with contextlib.suppress(orjson.JSONDecodeError):
            orjson.loads(line)
            readable.add(index)
    expected = lines_with_duplicates_python(lines, MAX_NESTING)
    native = lines_with_duplicates(lines, MAX_NESTING)
    assert expected == [index for index in native if index in readable]
    assert expected  # the batch has its repeated names


TRIAGE_LINES = [
    b'{"status": "success", "text": "ok"}',  # accepted by the verdict below
    b'{"status": "ok", "text": "no"}',  # refused by it
    b"",  # blank lines get no entry, whatever the white space
    b"  \t\r",
    b'{"status": "success", "text": "a", "text": "b"}',  # a repeated name: suspect
    b'{"status": "success", "text": "\\uFFFE"}',  # an escaped noncharacter: suspect
    b'{"status": "success", "text": "\xef\xbf\xbf"}',  # a raw one
    b'{"status": "success", "text": "cut',  # unreadable
    b"NaN",
    b"\x0b",  # a vertical tab is no JSON white space
    b'[{"a": 1}, {"a": 2}]',  # equal names in two objects are no repetition
]


FLAGGED = [SUSPECT, SUSPECT, SUSPECT, UNREADABLE, UNREADABLE, UNREADABLE]
"""The kinds of lines 4 to 9 of ``TRIAGE_LINES``, whatever the verdict."""


def _comparable(result: tuple[int, list[tuple[int, int, object]]]) -> tuple[int, list[tuple[object, ...]]]:
    accepted, entries = result
    shown: list[tuple[object, ...]] = [
        (index, kind, (type(found), str(found)) if kind == UNREADABLE else found)
        for index, kind, found in entries
    ]
    return accepted, shown


def _accepts_success(value: object) -> bool:
    return isinstance(value, dict) and value.get("status") == "success"


@needs_extensions
@pytest.mark.parametrize("verdict", [_accepts_success, None], ids=["verdict", "no-verdict"])
@pytest.mark.parametrize("keep", [False, True], ids=["drop", "keep"])
def test_triage_agrees_with_its_python_twin(verdict: object, keep: bool) -> None:
    """The C loop over a batch sets aside the same lines, with the same kinds and values, in line
    order, and counts the same accepted lines, as its Python twin."""
    arguments = (TRIAGE_LINES, orjson.loads, orjson.JSONDecodeError, verdict, MAX_NESTING, keep)
    expected = _comparable(triage_python(*arguments))  # type: ignore[arg-type]
    assert expected == _comparable(triage(*arguments))  # type: ignore[arg-type]
    kinds = [kind for _, kind, _ in expected[1]]
    if verdict is None:
        assert [PASSED, PASSED, *FLAGGED, PASSED] == kinds
        assert 3 == expected[0]
    else:
        refused_or_kept = [PASSED, REFUSED] if keep else [REFUSED]
        assert [*refused_or_kept, *FLAGGED, REFUSED] == kinds
        assert 1 == expected[0]


_NONCHARACTERS = ["\ufdd0", "\ufffe", "\U0001fffe", "\U0010ffff"]


def _with_noncharacter(text: str, rng: random.Random) -> bytes:
    """``text`` with a noncharacter in a string of it, raw or escaped, or as it is."""
    choice = rng.random()
    if choice < 0.4 or '"v:al"' not in text:
        return text.encode("utf-8")
    character = rng.choice(_NONCHARACTERS)
    written = json.dumps(character) if choice < 0.7 else json.dumps(character, ensure_ascii=False)
    return text.replace('"v:al"', written, 1).encode("utf-8")


@needs_extensions
@settings(max_examples=150, deadline=None, database=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_triage_agrees_with_its_python_twin_on_random_lines(seed: int) -> None:
    """Random lines (names repeated at any depth, escaped or not; noncharacters raw and escaped;
    lines cut short; padding that moves every byte across the 64-byte blocks of the C scans):
    the C loop flags, refuses and counts what the Python twin does. It reads a line name by
    name only when the value has fewer members than the text has colons, and for a
    noncharacter only when a byte or an escape may begin one: neither shortcut misses one."""
    rng = random.Random(seed)
    lines = []
    for _ in range(8):
        text = random_json_text(rng)
        for spelling in _spellings(text):
            line = _with_noncharacter(spelling.decode("utf-8"), rng)
            lines.append(b" " * rng.randrange(64) + line)
    lines.append(lines[0][: len(lines[0]) // 2])
    rng.shuffle(lines)
    for verdict in (None, _accepts_success, bool):
        arguments = (lines, orjson.loads, orjson.JSONDecodeError, verdict, MAX_NESTING, False)
        expected = _comparable(triage_python(*arguments))
        assert expected == _comparable(triage(*arguments))


@pytest.mark.parametrize(
    "line",
    [
        b'{"a": 1, "\\u0061": 2}',  # the same name, once escaped
        b'{"x": [{"k": 1, "k": 1}]}',  # deep in an array
        b'{"k": {"k": 1}, "k": 2}',
        b" " * 62 + b'{"a": "\\uFFFF"}',  # an escape that crosses a block boundary
        b" " * 63 + b'["\\uFDD0"]',
        b" " * 60 + '{"a": "\ufdef"}'.encode(),  # a raw noncharacter across a boundary
    ],
)
@needs_extensions
def test_triage_flags_the_lines_that_are_not_i_json(line: bytes) -> None:
    """Lines that orjson reads but I-JSON refuses are set aside as suspect, each read again."""
    accepted, entries = triage([line], orjson.loads, orjson.JSONDecodeError, bool, MAX_NESTING, False)
    assert (0, [(0, SUSPECT)]) == (accepted, [(index, kind) for index, kind, _ in entries])


@needs_extensions
@pytest.mark.parametrize("scan", [triage, triage_python], ids=["c", "python"])
def test_triage_lets_the_errors_of_its_callables_through(scan: object) -> None:
    """An error of the verdict, or of the decoder that is not its decode error, is raised, not
    taken for a verdict."""

    def broken_verdict(value: object) -> bool:
        raise LookupError("the verdict broke")

    def broken_loads(line: bytes) -> object:
        raise MemoryError

    with pytest.raises(LookupError, match="the verdict broke"):
        scan([b"{}"], orjson.loads, orjson.JSONDecodeError, broken_verdict, MAX_NESTING, False)  # type: ignore[operator]
    with pytest.raises(MemoryError):
        scan([b"{}"], broken_loads, orjson.JSONDecodeError, None, MAX_NESTING, False)  # type: ignore[operator]


# Lines of nothing but JSON white space (space, tab, CR, LF: "\r" is what a CRLF line leaves), and
# lines that look blank but are not (a vertical tab, a form feed, a no-break space).
BLANK_LINES = [b"", b"\r", b" ", b"\t", b" \t\r", b" " * 200 + b"\r"]
NOT_BLANK = [b"\x0b", b"\x0c", b"\xc2\xa0", b" \r{}"]


class CountingLoads:
    """``orjson.loads``, counting its calls and the errors it raised."""

    def __init__(self) -> None:
        self.calls = 0
        self.errors = 0

    def __call__(self, line: bytes) -> object:
        self.calls += 1
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            self.errors += 1
            raise


@pytest.mark.parametrize("scan", [triage, triage_python], ids=["c", "python"])
def test_triage_skips_blank_lines_without_decoding_them(scan: object, request: pytest.FixtureRequest) -> None:
    """A blank line is passed over without a call of the decoder (and without the error it would
    raise: building one cost about a microsecond a line); the lines that only look blank are
    decoded and set aside as unreadable, as before."""
    if scan is not triage_python:
        request.getfixturevalue("native_extensions")
    lines = [*BLANK_LINES * 500, *NOT_BLANK, *BLANK_LINES]
    loads = CountingLoads()
    accepted, entries = scan(lines, loads, orjson.JSONDecodeError, None, MAX_NESTING, False)  # type: ignore[operator]
    assert (len(NOT_BLANK), len(NOT_BLANK) - 1) == (loads.calls, loads.errors)
    first = len(BLANK_LINES) * 500
    expected = [(first, UNREADABLE), (first + 1, UNREADABLE), (first + 2, UNREADABLE), (first + 3, PASSED)]
    assert (1, expected) == (accepted, [(index, kind) for index, kind, _ in entries])


@needs_extensions
def test_triage_survives_a_verdict_that_empties_the_batch() -> None:
    """The verdict is Python code: one that clears the list being read ends the loop early,
    without a read of a line that is gone."""
    lines = [b"{}", b"{}", b"{}"]

    def clearing(value: object) -> bool:
        lines.clear()
        return True

    assert (1, []) == triage(lines, orjson.loads, orjson.JSONDecodeError, clearing, MAX_NESTING, False)
    with pytest.raises(TypeError, match="list of bytes"):
        triage((b"{}",), orjson.loads, orjson.JSONDecodeError, None, MAX_NESTING, False)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="line 0 is str, not bytes"):
        triage(["{}"], orjson.loads, orjson.JSONDecodeError, None, MAX_NESTING, False)  # type: ignore[list-item]


@needs_extensions
@settings(max_examples=100, deadline=None, database=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_path_at_agrees_with_its_python_twin_at_every_offset(seed: int) -> None:
    """At every byte offset of random texts (inside names, values, escapes and white space) the
    C scan names the same path as the Python one, at the pointer depth limit and without one."""
    rng = random.Random(seed)
    for _ in range(3):
        data = random_json_text(rng).encode("utf-8")
        for end in range(len(data) + 1):
            if end < len(data) and data[end] & 0xC0 == 0x80:
                continue  # inside a UTF-8 sequence: no parser stops there
            for depth in (2, POINTER_DEPTH):
                expected = path_at_python(data, end, depth)
                assert (data, end, expected) == (data, end, path_at(data, end, depth))


@needs_extensions
@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"a": 1, "a": 2}', (9, ("a",))),
        (b'{"a": [{"b": 1}, {"b": 2, "c": {"d": 0, "d": 1}}]}', (40, ("a", 1, "c", "d"))),
        (b'{"\\u0061": 1, "a": 2}', (14, ("a",))),
        (b'{"\\ud83d\\ude00": 1, "\xf0\x9f\x98\x80": 2}', (20, ("\U0001f600",))),
        (b'{"\\ud800": 1, "\\ud800": 2}', (14, ("\ud800",))),
        (b'{"a\\"b": 1, "a\\u0022b": 2}', (12, ('a"b',))),
        (b'{"a": {"x": 1}, "b": {"x": 1}}', None),
        (b'[{"a": 1}, {"a": 1}]', None),
        (b'{"a": "\\"a\\": 1, \\"a\\": 2"}', None),
    ],
)
def test_first_duplicate_finds_the_repeated_name(data: bytes, expected: object) -> None:
    """The offset of the repeated name and its path; escaped spellings of one name are one name,
    the same name in two objects or inside a string is no repetition."""
    assert expected == first_duplicate(data, MAX_NESTING)
    with contextlib.suppress(orjson.JSONDecodeError):
        orjson.loads(data)  # the twin reads only what orjson accepts (not a lone surrogate)
        assert expected == first_duplicate_python(data, MAX_NESTING)


@needs_extensions
@pytest.mark.parametrize("position", [1, 15, 16, 17, 40, 99_999])
def test_objects_with_many_names_are_scanned_in_linear_time(position: int) -> None:
    """An object of 100,000 names (compared one by one while few, then through a hash table) has
    its repeated name found wherever it is, and names of nested objects stay apart."""
    names = [f"n{number}" for number in range(100_000)]
    members = ", ".join(f'"{name}": {{"{name}": 0, "x": 1}}' for name in names)
    unique = ("{" + members + "}").encode()
    assert first_duplicate(unique, MAX_NESTING) is None
    repeated = unique[:-1] + f', "{names[position]}": 2}}'.encode()
    assert (len(unique) + 1, (names[position],)) == first_duplicate(repeated, MAX_NESTING)


@needs_extensions
def test_many_objects_with_the_same_many_names_are_scanned_in_linear_time() -> None:
    """Rows of a table (30,000 objects of the same 20 names, 6 MB) share their names' hashes only
    within their own object: the scan takes a fraction of a second (a hash that ignored which
    object a name is in took minutes here), and finds a repeat in the last row."""
    rows = [{f"column_{number}": number for number in range(20)}] * 30_000
    text = json.dumps(rows).encode()
    assert first_duplicate(text, MAX_NESTING) is None
    repeated = text[:-2] + b', "column_3": 0}]'
    assert (len(text), (29_999, "column_3")) == first_duplicate(repeated, MAX_NESTING)


@needs_extensions
def test_hostile_bytes_are_scanned_in_linear_time() -> None:
    """A megabyte of escaped quotes before colons (no name anywhere) costs one pass, not one
    backward search to the start per colon (which took minutes)."""
    hostile = b"{" + b'\\":' * 300_000
    assert [] == lines_with_duplicates([hostile], MAX_NESTING)
    assert first_duplicate(hostile, MAX_NESTING) is None


@needs_extensions
def test_nesting_beyond_the_limit_is_an_error_or_no_path() -> None:
    """first_duplicate refuses objects nested deeper than its limit; path_at gives no path there,
    and the path again once the text comes back up."""
    deep = b'{"a": ' * 2000 + b"1" + b"}" * 2000
    with pytest.raises(ValueError, match="nest deeper than 1024"):
        first_duplicate(deep, MAX_NESTING)
    assert path_at(b"[" * 100_000, 100_000, POINTER_DEPTH) is None
    back = b"[" + b"[" * 40 + b"]" * 40 + b', {"b": 1'
    assert (1, "b") == path_at(back, len(back), POINTER_DEPTH)


@needs_extensions
def test_the_largest_depth_limit_is_no_limit() -> None:
    """A depth limit of sys.maxsize (where limit + 1 would overflow) means no limit at all."""
    assert (9, ("a",)) == first_duplicate(b'{"a": 1, "a": 2}', sys.maxsize)
    assert ("a", 0) == path_at(b'{"a": [1', 8, sys.maxsize)
    assert [0] == lines_with_duplicates([b'{"a": 1, "a": 2}'], sys.maxsize)


@needs_extensions
@settings(max_examples=500, deadline=None, database=None)
@given(st.binary(max_size=300), st.integers(min_value=-5, max_value=400))
def test_any_bytes_get_an_answer(data: bytes, end: int) -> None:
    """On bytes that are not JSON at all (unterminated strings, a backslash at the end, stray
    brackets, invalid escapes and UTF-8) both scans return, or refuse too deep a nesting."""
    with contextlib.suppress(ValueError):
        first_duplicate(data, MAX_NESTING)
    path = path_at(data, end, POINTER_DEPTH)
    assert path is None or isinstance(path, tuple)


@needs_extensions
@pytest.mark.parametrize(
    ("data", "end", "expected"),
    [
        (b'{"a": 1', 100, ("a",)),
        (b'{"a": 1', -3, ()),
        (b'{"a\\', 4, ()),
        (b'{"\\u12": 1, "x": [', 19, ("x", 0)),
        (b'{"\xff\xfe": [', 8, ("\\xff\\xfe", 0)),
    ],
)
def test_path_at_clamps_and_survives_broken_text(data: bytes, end: int, expected: object) -> None:
    """An end past either side is clamped; a cut-off escape names nothing; a malformed escape or a
    name that is not UTF-8 still gives a name a message can show."""
    assert expected == path_at(data, end, POINTER_DEPTH)


@needs_extensions
def test_wrong_arguments_are_type_errors() -> None:
    """The scans take bytes-like text and whole numbers, and say so."""
    with pytest.raises(TypeError):
        first_duplicate("text", MAX_NESTING)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        path_at(b"{}", "1", POINTER_DEPTH)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_depth"):
        path_at(b"{}", 1, -1)
    with pytest.raises(TypeError, match="list of bytes"):
        lines_with_duplicates((b"{}",), MAX_NESTING)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="line 1 is str, not bytes"):
        lines_with_duplicates([b"{}", "{}"], MAX_NESTING)  # type: ignore[list-item]


@needs_extensions
@pytest.mark.parametrize(
    "value",
    [
        {"status": "success", "text": "", "stats": {"time_ms": -0.0, "tokens": 10**40}},
        {"status": "error", "text": "x" * 100, "stats": {"time_ms": 2.0, "tokens": -1}},
        {"status": "ok", "text": 5, "data": [], "error_info": {"code": "NOT_FOUD", "retry_after_ms": 1.5}},
        {"status": True, "text": None, "data": "a" * 100, "context": {"tool_name": 7, "params_input": [1]}},
        {"error": {"code": "X", "message": "m" * 60}, "x-vendor": {"a": [1, 2]}, "\u00e9": 1e308},
        [1, "two", {"three": 3}],
        "just text",
    ],
)
def test_the_projector_gives_the_python_projection(value: object) -> None:
    """Edge cases: numbers at and past their limits (-0.0, 2.0, 10**40, 1.5 for an integer), strings
    longer than a message quotes, wrong types, unknown and extension members, a response that is
    not an object: the C projector gives the Python projector's value, down to the types."""
    assert repr(root_projection().project(value)) == repr(root_projector()(value))


@needs_extensions
def test_the_projector_refuses_a_plan_it_cannot_read() -> None:
    """A plan is a ProjectionPlan; anything else is a TypeError or a ValueError, not a crash."""
    from toolresponse.validation.native import _projector

    with pytest.raises(TypeError, match="not a projection plan"):
        _projector.project((True, False), {"a": 1})  # type: ignore[arg-type]
    plan = root_projection().plan
    broken = plan._replace(members={"status": ("not", "a", "plan")})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="not a projection plan"):
        _projector.project(broken, {"status": "success"})
    bad_check = plan._replace(integers_typed=True, numbers_typed=True, checks=((99, 0),))
    with pytest.raises(ValueError, match="99 is not a comparison"):
        _projector.project(bad_check, 5)


@needs_extensions
def test_the_projector_reads_the_fields_of_projection_plan_in_order() -> None:
    """The C projector names the fields it reads by position, and they are ProjectionPlan's."""
    from toolresponse.validation.native import _projector

    assert ProjectionPlan._fields == _projector.PLAN_FIELDS
    check_plan_fields(ProjectionPlan._fields, _projector.PLAN_FIELDS)


@pytest.mark.parametrize(("first", "second"), [(0, 1), (8, 9), (10, 11)])
def test_a_plan_with_two_fields_swapped_is_refused(first: int, second: int) -> None:
    """A field order that differs from ProjectionPlan's in two fields (two flags, the two
    stand-ins, the member plans and the callable) is an ImportError naming both orders."""
    fields = list(ProjectionPlan._fields)
    fields[first], fields[second] = fields[second], fields[first]
    swapped = tuple(fields)
    with pytest.raises(ImportError) as refused:
        check_plan_fields(ProjectionPlan._fields, swapped)
    assert repr(swapped) in str(refused.value)
    assert repr(ProjectionPlan._fields) in str(refused.value)


def test_a_plan_field_order_that_is_missing_is_refused() -> None:
    """A projector built from older sources, which names no field order, is refused too."""
    with pytest.raises(ImportError, match="None"):
        check_plan_fields(ProjectionPlan._fields, None)


SWAPPED_PROJECTOR = """
import sys, types
projector = types.ModuleType("toolresponse.validation.native._projector")
projector.PLAN_FIELDS = tuple(sys.argv[1:])
projector.project = lambda plan, value: value
sys.modules[projector.__name__] = projector
try:
    import toolresponse.validation.native
except ImportError as error:
    print(error)
    raise SystemExit(3)
"""


def test_a_projector_that_reads_the_fields_swapped_stops_the_import() -> None:
    """Where the C projector reads two fields in the other order, importing the native package
    fails with both orders named (it is never passed over for the Python projector)."""
    first, second, *rest = ProjectionPlan._fields
    swapped = (second, first, *rest)
    ran = subprocess.run(
        [sys.executable, "-c", SWAPPED_PROJECTOR, *swapped], capture_output=True, text=True, check=False
    )
    assert (3, "") == (ran.returncode, ran.stderr)
    assert repr(swapped) in ran.stdout
    assert repr(ProjectionPlan._fields) in ran.stdout


@needs_extensions
def test_a_build_without_the_extensions_gives_the_same_report(tmp_path: Path) -> None:
    """Where the package was installed without a C compiler, the validator runs the Python twins
    and writes the very report the C extensions give (repeated names, malformed lines, cached
    explanations, the bundled samples)."""
    rng = random.Random(7)
    lines = [random_json_text(rng) for _ in range(300)]
    lines += [
        '{"status": "success", "text": "x", "data": {"a": 1, "\\u0061": 2}}',
        '{"status": "ok", "text": ',
    ]
    corpus = tmp_path / "mixed.jsonl"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    samples = REPOSITORY / "runtime" / "toolresponse" / "demo" / "samples"
    argv = ["validate", str(corpus), str(samples)]
    without = WITHOUT_EXTENSIONS + (
        "from toolresponse.validation import native\n"
        "assert (False, False) == (native.NATIVE_SCANS, native.NATIVE_PROJECTOR)\n"
        "from toolresponse.cli import main\n"
        "raise SystemExit(main(sys.argv[1:]))\n"
    )
    compiled = subprocess.run([sys.executable, "-m", "toolresponse", *argv], capture_output=True, text=True)
    python = subprocess.run([sys.executable, "-c", without, *argv], capture_output=True, text=True)
    assert (1, "") == (compiled.returncode, compiled.stderr)
    assert "duplicate-name" in compiled.stdout
    assert (compiled.returncode, compiled.stdout, compiled.stderr) == (
        python.returncode,
        python.stdout,
        python.stderr,
    )


def _pytest_without_extensions(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """This module's check that the extensions are used, run by pytest where they cannot be imported."""
    run_pytest = WITHOUT_EXTENSIONS + "import pytest\nraise SystemExit(pytest.main(sys.argv[1:]))\n"
    selected = f"{Path(__file__).name}::test_the_extensions_are_built_and_used"
    return subprocess.run(
        [sys.executable, "-c", run_pytest, "-q", "-rsE", "-p", "no:cacheprovider", selected],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
        env=environment,
        check=False,
    )


@pytest.mark.parametrize("required", [False, True])
def test_a_test_that_needs_the_extensions_skips_unless_they_are_required(required: bool) -> None:
    """Without the C extensions a test that needs them is skipped, saying why and how to require
    them; with TOOLRESPONSE_REQUIRE_NATIVE=1 it fails instead."""
    environment = {key: value for key, value in os.environ.items() if key != "TOOLRESPONSE_REQUIRE_NATIVE"}
    if required:
        environment["TOOLRESPONSE_REQUIRE_NATIVE"] = "1"
    ran = _pytest_without_extensions(environment)
    assert "_jsonscan, _projector" in ran.stdout
    if required:
        assert 1 == ran.returncode, ran.stdout
        assert "1 error" in ran.stdout
        assert "TOOLRESPONSE_REQUIRE_NATIVE=1 requires them" in ran.stdout
    else:
        assert 0 == ran.returncode, ran.stdout
        assert "1 skipped" in ran.stdout
        assert "set TOOLRESPONSE_REQUIRE_NATIVE=1" in ran.stdout
