"""The validation API: verdicts, violations (pointer, keyword, message, suggestion), order, I-JSON text."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolresponse import SchemaViolation, validate, validate_json
from toolresponse.validation import ValidationResult, iter_errors
from toolresponse.validation._validate import cached_explanation

NOT_FOUND = {
    "status": "error",
    "text": "File config.py does not exist.",
    "error_info": {"code": "NOT_FOUND", "message": "File config.py does not exist."},
}

MESSAGES = [
    (
        {**NOT_FOUND, "error_info": {"code": "NOT_FOUD", "message": "m"}},
        [("/error_info/code", "enum", "'NOT_FOUD' is not a standard error code; did you mean NOT_FOUND?")],
    ),
    (
        {"status": "error", "text": "x", "error": {"code": "NOT_FOUND", "message": "m"}},
        [
            (
                "",
                "additionalProperties",
                'unknown member "error"; HelloAgents 1.0 writes error_info under that name',
            ),
            (
                "",
                "required",
                'missing member "error_info", required when status is "error"; '
                'HelloAgents 1.0 writes it as "error"',
            ),
        ],
    ),
    (
        {"stauts": "success", "text": "x"},
        [
            ("", "additionalProperties", 'unknown member "stauts"; did you mean "status"?'),
            ("", "required", 'missing required member "status"'),
        ],
    ),
    (
        {"status": "sucess", "text": "x"},
        [("/status", "enum", "'sucess' is not a status (success, partial or error); did you mean success?")],
    ),
    (
        {**NOT_FOUND, "error_info": {"code": 404, "message": "m"}},
        [
            ("/error_info/code", "type", "error_info.code must be a string, not 404"),
            ("/error_info/code", "enum", "404 is not a standard error code; did you mean NOT_FOUND?"),
        ],
    ),
    (
        {**NOT_FOUND, "error_info": {"code": "file_not_found", "message": "m"}},
        [
            (
                "/error_info/code",
                "enum",
                "'file_not_found' is not a standard error code; did you mean NOT_FOUND?",
            )
        ],
    ),
    (
        {**NOT_FOUND, "text": ""},
        [("/text", "minLength", 'text must not be empty when status is "error"')],
    ),
    (
        {"status": "success", "text": "x", "error_info": {"code": "NOT_FOUND", "message": "m"}},
        [
            (
                "/error_info",
                "type",
                'error_info must be null (or absent) unless status is "error", not an object',
            )
        ],
    ),
    (
        {"status": "success", "text": "x", "stats": {"time_ms": "12ms"}},
        [("/stats/time_ms", "type", "stats.time_ms must be a number, not the string '12ms'")],
    ),
    (
        {"status": "success", "text": "x", "stats": {"time_ms": -3}},
        [("/stats/time_ms", "minimum", "stats.time_ms must be at least 0, not -3")],
    ),
    (
        {**NOT_FOUND, "error_info": {"code": "TIMEOUT", "message": "m", "retry_after": 5}},
        [
            (
                "/error_info",
                "additionalProperties",
                'unknown member "retry_after" in error_info; did you mean "retry_after_ms"?',
            )
        ],
    ),
    (
        {"status": "success", "text": "x", "context": {"tool_name": ""}},
        [("/context/tool_name", "minLength", "context.tool_name must not be empty")],
    ),
    (
        [{"status": "success", "text": "x"}],
        [
            (
                "",
                "type",
                "a ToolResponse is a JSON object, not an array; "
                "several responses go one per line in JSON lines",
            )
        ],
    ),
    (
        "result: 5",
        [("", "type", "a ToolResponse is a JSON object, not the string 'result: 5'")],
    ),
    (
        {"content": [], "isError": True},
        [
            (
                "",
                "additionalProperties",
                'unknown member "content"; an MCP CallToolResult carries its text there; '
                "ToolResponse has text (and data)",
            ),
            (
                "",
                "additionalProperties",
                'unknown member "isError"; an MCP CallToolResult flags errors with it; '
                'ToolResponse says status "error"',
            ),
            ("", "required", 'missing required member "status"'),
            ("", "required", 'missing required member "text"'),
        ],
    ),
    (
        {"status": "success", "text": "x", "X-Trace": 1},
        [("", "additionalProperties", 'unknown member "X-Trace"; did you mean "x-trace"?')],
    ),
    (
        {"status": "success", "text": "x", "extra": 1},
        [
            (
                "",
                "additionalProperties",
                'unknown member "extra"; the members are status, text, data, error_info, stats, context, or '
                'names beginning with "x-"',
            )
        ],
    ),
]


@pytest.mark.parametrize(("instance", "expected"), MESSAGES, ids=[str(n) for n in range(len(MESSAGES))])
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_each_violation_has_pointer_keyword_and_message(
    instance: Any, expected: list[tuple[str, str, str]], engine: Any
) -> None:
    """Either engine names every violation, most relevant first, with a message a person acts on."""
    actual = [
        (error.pointer, error.keyword, error.message) for error in validate(instance, engine=engine).errors
    ]
    assert expected == actual


@pytest.mark.parametrize(
    ("instance", "expected"),
    [
        ({**NOT_FOUND, "error_info": {"code": "NOT_FOUD", "message": "m"}}, ["NOT_FOUND"]),
        (
            {"status": "error", "text": "x", "error": {"code": "NOT_FOUND", "message": "m"}},
            ["error_info", None],
        ),
        ({"status": "SUCCESS", "text": "x"}, ["success"]),
        ({**NOT_FOUND, "error_info": {"code": 403, "message": "m"}}, [None, None]),
    ],
)
def test_the_nearest_valid_value_is_the_suggestion(instance: Any, expected: list[str | None]) -> None:
    """A violation's suggestion is the value or member name meant, when one stands out."""
    assert expected == [error.suggestion for error in validate(instance).errors]


def test_an_ambiguous_http_status_names_every_code_it_may_mean() -> None:
    """403 may be ACCESS_DENIED or PERMISSION_DENIED; the message names both (from ERROR_CODE_INFO)."""
    messages = [
        error.message for error in validate({**NOT_FOUND, "error_info": {"code": 403, "message": "m"}}).errors
    ]
    assert "403 is not a standard error code; did you mean ACCESS_DENIED or PERMISSION_DENIED?" in messages


def test_a_valid_response_has_no_violations() -> None:
    """validate, iter_errors and validate_json agree that a valid response is valid."""
    result = validate(NOT_FOUND)
    assert (True, (), True) == (result.valid, result.errors, bool(result))
    assert [] == list(iter_errors(NOT_FOUND))
    assert validate_json(b'{"status": "success", "text": "ok"}').valid


def test_iter_errors_yields_what_validate_lists() -> None:
    """iter_errors gives the violations of validate, in the same order."""
    instance = {"stauts": "success", "text": 5}
    assert list(validate(instance).errors) == list(iter_errors(instance))


def test_violations_are_the_public_types() -> None:
    """A result is a ValidationResult of SchemaViolations, constructible by keyword as before."""
    result = validate({"status": "success"})
    assert isinstance(result, ValidationResult)
    assert all(isinstance(error, SchemaViolation) for error in result.errors)
    violation = SchemaViolation(pointer="/text", keyword="required", message="m")
    assert (None, None, None) == (violation.suggestion, violation.line, violation.column)


def test_unknown_engine_is_a_clear_error() -> None:
    """An engine other than fast and reference is refused by name."""
    with pytest.raises(ValueError, match="unknown validation engine 'quick'"):
        validate(NOT_FOUND, engine="quick")  # type: ignore[arg-type]


def test_a_deeply_nested_value_is_explained_without_recursion_errors() -> None:
    """An unknown member holding 100,000 nested arrays is explained (the fast engine hands over)."""
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    errors = validate({"status": "success", "text": "x", "stauts": deep, "data": {"d": deep}}).errors
    expected = [("", "additionalProperties")]
    assert expected == [(error.pointer, error.keyword) for error in errors]


def _cycle() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["again"] = loop
    return loop


NOT_JSON_DATA = [
    (float("nan"), "type", "I-JSON has no NaN"),
    (float("-inf"), "type", "I-JSON has no NaN or Infinity"),
    ("\ud800", "type", "lone surrogate"),
    (10**40, "maximum", "outside the 64-bit range"),
    ((1, 2), "type", "a value of type tuple is not JSON"),
    ({1, 2}, "type", "a value of type set is not JSON"),
    (object(), "type", "a value of type object is not JSON"),
]


@pytest.mark.parametrize(("value", "keyword", "message"), NOT_JSON_DATA)
def test_a_value_no_json_reader_gives_is_a_violation(value: Any, keyword: str, message: str) -> None:
    """What validate_json refuses in text, validate refuses in a value the schema would take, at
    the value's pointer; a JSON decoder's own NaN and surrogates included (json.loads gives them)."""
    errors = validate({"status": "success", "text": "x", "data": {"a": value}}).errors
    assert [("/data/a", keyword)] == [(error.pointer, error.keyword) for error in errors]
    assert message in errors[0].message


def test_a_cycle_is_a_violation() -> None:
    """A container that holds itself is named where it first repeats."""
    errors = validate({"status": "success", "text": "x", "data": _cycle()}).errors
    assert [("/data/again", "cycle")] == [(error.pointer, error.keyword) for error in errors]


def test_json_decoded_nan_is_refused_by_both_validators() -> None:
    """The same response, as text and decoded by json.loads, is refused by both."""
    text = '{"status": "success", "text": "x", "data": {"a": NaN}}'
    assert (False, False) == (validate_json(text).valid, validate(json.loads(text)).valid)


JSON_TEXTS = [
    (
        b'{\n  "status": "error",\n  "text": "x",\n  "error_info": {"code": "NOT_FOUD", "message": "m"}\n}',
        [("/error_info/code", "enum", 4, 26)],
    ),
    (
        b'{\n  "status": "error",\n  "text": "x",\n  "error": {"code": "NOT_FOUND", "message": "m"}\n}',
        [("", "additionalProperties", 4, 3), ("", "required", 1, 1)],
    ),
    (b'{"status": "success", "text": NaN}', [("/text", "non-finite-number", 1, 31)]),
    (b'{"status": "success", "text": "a", "status": "error"}', [("/status", "duplicate-name", 1, 36)]),
    (b'{"status": "success", "text": "\xff"}', [("", "encoding", 1, 32)]),
    (b'{"status": "success" "text": "a"}', [("/status", "syntax", 1, 22)]),
    (b"[1, 2]", [("", "type", 1, 1)]),
    (b"[" * 100_000, [("", "depth", 1, 1026)]),
]


@pytest.mark.parametrize(("text", "expected"), JSON_TEXTS, ids=[str(n) for n in range(len(JSON_TEXTS))])
def test_validate_json_locates_every_violation(
    text: bytes, expected: list[tuple[str, str, int, int]]
) -> None:
    """validate_json applies the I-JSON rules, then the schema, and locates each violation (line, column)."""
    actual = [
        (error.pointer, error.keyword, error.line, error.column) for error in validate_json(text).errors
    ]
    assert expected == actual


def test_validate_json_takes_text_as_str() -> None:
    """A str is JSON text too; its columns count characters."""
    errors = validate_json('{"text": "\u00e9\u00e9", "status": "sucess"}').errors
    assert [("/status", 1, 26)] == [(error.pointer, error.line, error.column) for error in errors]


EXPLAINED = [
    {"status": "error", "text": "", "error_info": {"code": "X", "message": "", "retry_after_ms": -1.5}},
    {"status": "success", "text": "t" * 100, "stats": {"time_ms": -0.5, "n": 1}, "context": {"tool_name": 7}},
    {"status": "partial", "text": 5, "data": [1, 2], "error_info": {}, "x-a": {"deep": [1]}},
    {"status": "error", "text": "x", "error": None, "stats": {"time_ms": "x" * 60}},
    {"status": ["success"], "text": None, "context": None, "stats": None},
]


@pytest.mark.parametrize("instance", EXPLAINED, ids=[str(n) for n in range(len(EXPLAINED))])
def test_the_cached_explanation_equals_the_direct_one(instance: dict[str, Any]) -> None:
    """The explanation cached by projection gives what validate gives, first and second time."""
    assert validate(instance).errors == cached_explanation(instance).errors
    assert validate(instance).errors == cached_explanation(instance).errors


def test_a_violation_pickles_with_every_field() -> None:
    """Records cross to and from worker processes: a pickled violation comes back equal, field by field."""
    import dataclasses
    import pickle

    values: dict[str, Any] = {field.name: f"v-{field.name}" for field in dataclasses.fields(SchemaViolation)}
    values.update(line=3, column=9)
    violation = SchemaViolation(**values)
    assert violation == pickle.loads(pickle.dumps(violation, protocol=pickle.HIGHEST_PROTOCOL))
