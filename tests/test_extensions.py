"""The C extensions give exactly the answers of their Python twins: the scans of JSON text
(toolresponse._jsonscan, twins in _ijson) on generated texts and every prefix of them, staying safe
on any bytes at all; the projector (toolresponse._projector, twin Projection.project) here on edge
cases, and on the conformance fixtures and 100,000 generated responses in test_engine_parity."""

from __future__ import annotations

import contextlib
import json
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
from toolresponse.validation._ijson import (
    MAX_NESTING,
    NATIVE_SCANS,
    first_duplicate_python,
    lines_with_duplicates_python,
    path_at_python,
)
from toolresponse.validation.native import _jsonscan, _projector

POINTER_DEPTH = 32


def test_the_extensions_are_built_and_used() -> None:
    """This environment compiled both C extensions, and the validator runs them (a build without a
    C compiler would fall back to the Python twins, correct but slower)."""
    assert NATIVE_SCANS
    assert root_projector() is not root_projection().project


def _spellings(text: str) -> list[bytes]:
    """A generated text as written, compact, spaced and with non-ASCII characters escaped."""
    value = json.loads(text)
    return [
        text.encode("utf-8"),
        json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        json.dumps(value, indent=1).encode("utf-8"),
    ]


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
            assert (data, expected) == (data, _jsonscan.first_duplicate(data, MAX_NESTING))


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
    native = _jsonscan.lines_with_duplicates(lines, MAX_NESTING)
    assert expected == [index for index in native if index in readable]
    assert expected  # the batch has its repeated names


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
                assert (data, end, expected) == (data, end, _jsonscan.path_at(data, end, depth))


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
    assert expected == _jsonscan.first_duplicate(data, MAX_NESTING)
    with contextlib.suppress(orjson.JSONDecodeError):
        orjson.loads(data)  # the twin reads only what orjson accepts (not a lone surrogate)
        assert expected == first_duplicate_python(data, MAX_NESTING)


@pytest.mark.parametrize("position", [1, 15, 16, 17, 40, 99_999])
def test_objects_with_many_names_are_scanned_in_linear_time(position: int) -> None:
    """An object of 100,000 names (compared one by one while few, then through a hash table) has
    its repeated name found wherever it is, and names of nested objects stay apart."""
    names = [f"n{number}" for number in range(100_000)]
    members = ", ".join(f'"{name}": {{"{name}": 0, "x": 1}}' for name in names)
    unique = ("{" + members + "}").encode()
    assert _jsonscan.first_duplicate(unique, MAX_NESTING) is None
    repeated = unique[:-1] + f', "{names[position]}": 2}}'.encode()
    assert (len(unique) + 1, (names[position],)) == _jsonscan.first_duplicate(repeated, MAX_NESTING)


def test_many_objects_with_the_same_many_names_are_scanned_in_linear_time() -> None:
    """Rows of a table (30,000 objects of the same 20 names, 6 MB) share their names' hashes only
    within their own object: the scan takes a fraction of a second (a hash that ignored which
    object a name is in took minutes here), and finds a repeat in the last row."""
    rows = [{f"column_{number}": number for number in range(20)}] * 30_000
    text = json.dumps(rows).encode()
    assert _jsonscan.first_duplicate(text, MAX_NESTING) is None
    repeated = text[:-2] + b', "column_3": 0}]'
    assert (len(text), (29_999, "column_3")) == _jsonscan.first_duplicate(repeated, MAX_NESTING)


def test_hostile_bytes_are_scanned_in_linear_time() -> None:
    """A megabyte of escaped quotes before colons (no name anywhere) costs one pass, not one
    backward search to the start per colon (which took minutes)."""
    hostile = b"{" + b'\\":' * 300_000
    assert [] == _jsonscan.lines_with_duplicates([hostile], MAX_NESTING)
    assert _jsonscan.first_duplicate(hostile, MAX_NESTING) is None


def test_nesting_beyond_the_limit_is_an_error_or_no_path() -> None:
    """first_duplicate refuses objects nested deeper than its limit; path_at gives no path there,
    and the path again once the text comes back up."""
    deep = b'{"a": ' * 2000 + b"1" + b"}" * 2000
    with pytest.raises(ValueError, match="nest deeper than 1024"):
        _jsonscan.first_duplicate(deep, MAX_NESTING)
    assert _jsonscan.path_at(b"[" * 100_000, 100_000, POINTER_DEPTH) is None
    back = b"[" + b"[" * 40 + b"]" * 40 + b', {"b": 1'
    assert (1, "b") == _jsonscan.path_at(back, len(back), POINTER_DEPTH)


def test_the_largest_depth_limit_is_no_limit() -> None:
    """A depth limit of sys.maxsize (where limit + 1 would overflow) means no limit at all."""
    assert (9, ("a",)) == _jsonscan.first_duplicate(b'{"a": 1, "a": 2}', sys.maxsize)
    assert ("a", 0) == _jsonscan.path_at(b'{"a": [1', 8, sys.maxsize)
    assert [0] == _jsonscan.lines_with_duplicates([b'{"a": 1, "a": 2}'], sys.maxsize)


@settings(max_examples=500, deadline=None, database=None)
@given(st.binary(max_size=300), st.integers(min_value=-5, max_value=400))
def test_any_bytes_get_an_answer(data: bytes, end: int) -> None:
    """On bytes that are not JSON at all (unterminated strings, a backslash at the end, stray
    brackets, invalid escapes and UTF-8) both scans return, or refuse too deep a nesting."""
    with contextlib.suppress(ValueError):
        _jsonscan.first_duplicate(data, MAX_NESTING)
    path = _jsonscan.path_at(data, end, POINTER_DEPTH)
    assert path is None or isinstance(path, tuple)


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
    assert expected == _jsonscan.path_at(data, end, POINTER_DEPTH)


def test_wrong_arguments_are_type_errors() -> None:
    """The scans take bytes-like text and whole numbers, and say so."""
    with pytest.raises(TypeError):
        _jsonscan.first_duplicate("text", MAX_NESTING)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _jsonscan.path_at(b"{}", "1", POINTER_DEPTH)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_depth"):
        _jsonscan.path_at(b"{}", 1, -1)
    with pytest.raises(TypeError, match="list of bytes"):
        _jsonscan.lines_with_duplicates((b"{}",), MAX_NESTING)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="line 1 is str, not bytes"):
        _jsonscan.lines_with_duplicates([b"{}", "{}"], MAX_NESTING)  # type: ignore[list-item]


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


def test_the_projector_refuses_a_plan_it_cannot_read() -> None:
    """A plan is the tuple Projection.plan builds; anything else is a TypeError, not a crash."""
    with pytest.raises(TypeError, match="not a projection plan"):
        _projector.project((True, False), {"a": 1})
    plan = root_projection().plan
    broken = (*plan[:10], {"status": ("not", "a", "plan")}, plan[11])
    with pytest.raises(TypeError, match="not a projection plan"):
        _projector.project(broken, {"status": "success"})
    bad_check = (*plan[:5], True, True, ((99, 0),), *plan[8:])
    with pytest.raises(ValueError, match="99 is not a comparison"):
        _projector.project(bad_check, 5)


WITHOUT_EXTENSIONS = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name in ("toolresponse.validation.native._jsonscan", "toolresponse.validation.native._projector"):
            raise ImportError("built without a C compiler")
sys.meta_path.insert(0, Refuse())
from toolresponse.validation import _ijson
from toolresponse.cli import main
assert not _ijson.NATIVE_SCANS
raise SystemExit(main(sys.argv[1:]))
"""


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
    samples = Path(__file__).resolve().parent.parent / "runtime" / "toolresponse" / "demo" / "samples"
    argv = ["validate", str(corpus), str(samples)]
    native = subprocess.run([sys.executable, "-m", "toolresponse", *argv], capture_output=True, text=True)
    python = subprocess.run([sys.executable, "-c", WITHOUT_EXTENSIONS, *argv], capture_output=True, text=True)
    assert (1, "") == (native.returncode, native.stderr)
    assert "duplicate-name" in native.stdout
    assert (native.returncode, native.stdout, native.stderr) == (
        python.returncode,
        python.stdout,
        python.stderr,
    )
