"""The calculator demo: the safe evaluator, its ToolResponses, the registry around it, the transcript."""

from __future__ import annotations

import ast
import io
import math
import runpy
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolresponse import CircuitBreaker, CircuitState, ErrorCode, ToolStatus, validate
from toolresponse.demo import calculator
from toolresponse.demo.calculator import MAX_EXPRESSION_LENGTH, build_registry, calculate
from toolresponse.testing import FakeClock

ROOT = Path(__file__).resolve().parent.parent

# -- the evaluator -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("2 + 3 * 4", 14),
        ("(2 + 3) * 4", 20),
        ("7 / 2", 3.5),
        ("7 // 2", 3),
        ("-7 // 2", -4),
        ("7 % 3", 1),
        ("2 ** 10", 1024),
        ("2 ** -1", 0.5),
        ("-2 ** 2", -4),
        ("+5", 5),
        ("--5", 5),
        ("1.5e3", 1500.0),
        ("sqrt(16)", 4.0),
        ("abs(-3)", 3),
        ("round(2.567)", 3),
        ("round(2.5)", 2),
        ("floor(-1.5)", -2),
        ("ceil(1.2)", 2),
        ("log(e)", 1.0),
        ("exp(0)", 1.0),
        ("sin(0) + cos(0)", 1.0),
        ("tan(0)", 0.0),
        ("pi", math.pi),
        ("e", math.e),
        ("tau / 2", math.pi),
        ("  1 + 1  ", 2),
        ("(" * 100 + "1" + ")" * 100, 1),
        ("0 ** 0", 1),
        ("1 ** (10 ** 100)", 1),
    ],
)
def test_evaluates_arithmetic(expression: str, value: float) -> None:
    """Numbers, the seven operators, unary signs, parentheses, functions and constants evaluate."""
    assert value == calculate(expression).data["result"]


@pytest.mark.parametrize(
    ("expression", "code", "reason"),
    [
        ("", ErrorCode.INVALID_PARAM, "empty"),
        ("   \t\n", ErrorCode.INVALID_PARAM, "empty"),
        ("2 + $", ErrorCode.INVALID_FORMAT, "syntax"),
        ("12 \N{MULTIPLICATION SIGN} 4", ErrorCode.INVALID_FORMAT, "syntax"),
        ("__import__('os')", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("open('/etc/passwd').read()", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("[1, 2]", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("1 < 2", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("1 << 2", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("'1'", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("f'{1}'", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("x = 1", ErrorCode.INVALID_FORMAT, "syntax"),
        ("2 +", ErrorCode.INVALID_FORMAT, "syntax"),
        ("(1", ErrorCode.INVALID_FORMAT, "syntax"),
        ("2 3", ErrorCode.INVALID_FORMAT, "syntax"),
        ("__import__", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("pi.real", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("sqrt.__class__", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("1, 2", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("1 and 2", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("1 if 2 else 3", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("True + 1", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("None", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("2j", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("x + 1", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("sqrt", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("sqrt(1, 2)", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("sqrt(x=1)", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("round()", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("print(1)", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("sqrt(*(1,))", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("(lambda_ + 1)", ErrorCode.INVALID_FORMAT, "unsupported"),
        ("-" * 100 + "1", ErrorCode.INVALID_FORMAT, "too_deep"),
        ("-" * 5000 + "1", ErrorCode.INVALID_FORMAT, "too_deep"),  # past the parser's own depth
        ("1 / 0", ErrorCode.EXECUTION_ERROR, "division_by_zero"),
        ("1 // 0", ErrorCode.EXECUTION_ERROR, "division_by_zero"),
        ("1 % 0", ErrorCode.EXECUTION_ERROR, "division_by_zero"),
        ("3 // 0.0", ErrorCode.EXECUTION_ERROR, "division_by_zero"),
        ("0 ** -1", ErrorCode.EXECUTION_ERROR, "division_by_zero"),
        ("sqrt(-1)", ErrorCode.EXECUTION_ERROR, "math_domain"),
        ("log(0)", ErrorCode.EXECUTION_ERROR, "math_domain"),
        ("(-8) ** 0.5", ErrorCode.EXECUTION_ERROR, "not_real"),
        ("floor(1e308 * 10 / 10)", ErrorCode.EXECUTION_ERROR, "overflow"),
        ("1e999", ErrorCode.EXECUTION_ERROR, "overflow"),
        ("exp(1000)", ErrorCode.EXECUTION_ERROR, "overflow"),
        ("1e308 * 10", ErrorCode.EXECUTION_ERROR, "overflow"),
        ("2.0 ** 10000", ErrorCode.EXECUTION_ERROR, "overflow"),
        ("10 ** 400 / 3", ErrorCode.EXECUTION_ERROR, "overflow"),
        ("sqrt(10 ** 5000)", ErrorCode.EXECUTION_ERROR, "overflow"),
        ("9 ** 9 ** 9", ErrorCode.EXECUTION_ERROR, "result_too_large"),
        ("2 ** 2 ** 100", ErrorCode.EXECUTION_ERROR, "result_too_large"),
        ("(10 ** 9999) * (10 ** 9999)", ErrorCode.EXECUTION_ERROR, "result_too_large"),
        ("10 ** 9999 * 10", ErrorCode.EXECUTION_ERROR, "result_too_large"),
        ("10 ** 10000", ErrorCode.EXECUTION_ERROR, "result_too_large"),
    ],
)
def test_refuses_with_a_code_and_reason(expression: str, code: ErrorCode, reason: str) -> None:
    """Each refused expression is an error response with its code and a ``details.reason``."""
    response = calculate(expression)
    assert response.error_info is not None
    assert (code, reason) == (response.code, (response.error_info.details or {})["reason"])


@pytest.mark.parametrize(
    ("expression", "hint"),
    [
        ("sqr(2)", "'sqr(2)' is not arithmetic (position 1). Use numbers, + - * / // % **, parentheses"),
        ("1 + pie", "the constants pi, e, tau and the functions sqrt, abs, round"),
        ("2 + $", "at position 5"),
    ],
)
def test_refusals_tell_how_to_fix(expression: str, hint: str) -> None:
    """Messages name the offending part, its position, and what is allowed."""
    assert hint in calculate(expression).text


def test_evaluator_never_calls_eval_or_exec() -> None:
    """The calculator module contains no call of eval, exec or compile."""
    tree = ast.parse(Path(calculator.__file__).read_text("utf-8"))
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert set() == called & {"eval", "exec", "compile", "__import__"}


# -- digits and scientific notation --------------------------------------------------------


@pytest.mark.parametrize("power", [1, 2, 15, 16, 17, 30, 31, 308, 309, 1000, 4300, 4301, 9998])
@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_digit_count_is_exact_at_powers_of_ten(power: int, offset: int) -> None:
    """The digits of a result (its text when exact, else data.digits) are counted exactly around
    every tested power of ten, negative results too."""
    expected = power + (1 if offset >= 0 else 0)
    for expression in (f"10 ** {power} + {offset}", f"-(10 ** {power} + {offset})"):
        data = calculate(expression).data
        assert expected == data.get("digits", len(data["result_text"].lstrip("-")))


@pytest.mark.parametrize(
    ("expression", "text", "exact"),
    [
        ("2 ** 100", "1.26765060022823e+30", False),
        ("10 ** 40", "1e+40", True),
        ("-(3 ** 200)", "-2.65613988875875e+95", False),
        ("10 ** 20 * 9999999999999995", "1e+36", False),
        ("10 ** 20 * 1234567890123454", "1.23456789012345e+35", False),
        ("12345 * 10 ** 40", "1.2345e+44", True),
    ],
)
def test_scientific_rounds_half_up_with_carry(expression: str, text: str, exact: bool) -> None:
    """A long integer is shown with 15 significant digits, rounded half up (carrying into the
    exponent); it is a success when that was exact, else partial."""
    response = calculate(expression)
    expected = ToolStatus.SUCCESS if exact else ToolStatus.PARTIAL
    assert (text, expected) == (response.data["result_text"], response.status)


# -- the tool's responses ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "data"),
    [
        ("6 * 7", {"expression": "6 * 7", "result": 42, "result_text": "42"}),
        (
            "0.1 + 0.2",
            {"expression": "0.1 + 0.2", "result": 0.30000000000000004, "result_text": "0.30000000000000004"},
        ),
        (
            "2 ** 64",
            {"expression": "2 ** 64", "result": 1.8446744073709552e19, "result_text": "18446744073709551616"},
        ),
        ("10 ** 40", {"expression": "10 ** 40", "result": 1e40, "result_text": "1e+40", "digits": 41}),
    ],
)
def test_exact_results_are_success(expression: str, data: dict[str, Any]) -> None:
    """A result shown exactly is a success; result is a number every JSON reader keeps exact."""
    response = calculate(expression)
    assert (ToolStatus.SUCCESS, data) == (response.status, response.data)
    assert data["result_text"] in response.text


@pytest.mark.parametrize(
    ("expression", "digits", "result_text", "result"),
    [
        ("2 ** 100", 31, "1.26765060022823e+30", 1.26765060022823e30),
        ("2 ** 1000", 302, "1.07150860718627e+301", 1.07150860718627e301),
        ("-(7 ** 500)", 423, "-3.54013649449526e+422", None),
        ("2 ** 33219", 10_000, "8.23049512075887e+9999", None),
    ],
)
def test_too_long_integers_are_partial(
    expression: str, digits: int, result_text: str, result: float | None
) -> None:
    """An integer too long to show is a partial result in scientific notation, with the exact digit
    count, truncated: true, and the rounded value as a float when one can hold it."""
    response = calculate(expression)
    expected: dict[str, Any] = {
        "expression": expression,
        "result_text": result_text,
        "digits": digits,
        "significant_digits": 15,
        "truncated": True,
    }
    if result is not None:
        expected["result"] = result
    assert (ToolStatus.PARTIAL, expected) == (response.status, response.data)
    assert f"{digits} digits" in response.text


def test_errors_carry_the_message_and_details() -> None:
    """An evaluation failure is an error response with the evaluator's message and details."""
    response = calculate("1 / 0")
    assert response.error_info is not None
    assert (
        ErrorCode.EXECUTION_ERROR,
        "Division by zero in '1 / 0'.",
        {"reason": "division_by_zero", "operation": "1 / 0"},
    ) == (
        response.code,
        response.text,
        response.error_info.details,
    )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789+-*/%().e ,sqrtpi", max_size=40))
def test_every_answer_validates(expression: str) -> None:
    """Whatever the expression, calculate() answers a response valid against the schema."""
    assert [] == list(validate(calculate(expression).to_dict()).errors)


# -- through the registry ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({"expression": "6 * 7"}, ToolStatus.SUCCESS, None),
        ({"expression": "2 ** 100"}, ToolStatus.PARTIAL, None),
        ({"expression": ""}, ToolStatus.ERROR, ErrorCode.INVALID_PARAM),
        ({"expression": "  "}, ToolStatus.ERROR, ErrorCode.INVALID_PARAM),
        ({"expression": "1" * (MAX_EXPRESSION_LENGTH + 1)}, ToolStatus.ERROR, ErrorCode.INVALID_PARAM),
        ({"expression": 42}, ToolStatus.ERROR, ErrorCode.INVALID_PARAM),
        ({"expresion": "1 + 1"}, ToolStatus.ERROR, ErrorCode.INVALID_PARAM),
        ({}, ToolStatus.ERROR, ErrorCode.INVALID_PARAM),
        ('{"expression": "2 + 2"}', ToolStatus.SUCCESS, None),
        ({"expression": "2 + $"}, ToolStatus.ERROR, ErrorCode.INVALID_FORMAT),
        ({"expression": "1 / 0"}, ToolStatus.ERROR, ErrorCode.EXECUTION_ERROR),
        ({"expression": "9 ** 9 ** 9"}, ToolStatus.ERROR, ErrorCode.EXECUTION_ERROR),
    ],
)
def test_registry_answers_every_status(params: Any, status: ToolStatus, code: ErrorCode | None) -> None:
    """The calculator through its registry answers the expected status and code, valid against the
    schema, with its data fitting the declared output schema and the context filled in."""
    response = build_registry().execute("calculator", params)
    assert (status, code, "calculator") == (
        response.status,
        response.code,
        (response.context or {})["tool_name"],
    )
    assert [] == list(validate(response.to_dict()).errors)


def test_unknown_tool_suggests_the_calculator() -> None:
    """A misspelt tool name is NOT_FOUND, suggesting the calculator."""
    response = build_registry().execute("calculater", {"expression": "1"})
    assert response.error_info is not None
    assert (ErrorCode.NOT_FOUND, ["calculator"]) == (
        response.code,
        (response.error_info.details or {})["suggestions"],
    )


def test_registry_describes_the_parameters_schema() -> None:
    """The registered calculator declares the expression parameter's schema and an output schema."""
    spec = build_registry().spec("calculator")
    assert spec is not None
    tool = calculator.Calculator
    assert (tool.parameters, tool.output_schema) == (spec.parameters, spec.output_schema)


def test_registry_with_a_breaker_and_clock() -> None:
    """build_registry passes the breaker and clock on: three failures open the calculator's circuit."""
    clock = FakeClock()
    breaker = CircuitBreaker(clock=clock)
    registry = build_registry(breaker, clock=clock)
    codes = [registry.execute("calculator", {"expression": "1 / 0"}).code for _ in range(4)]
    assert ([ErrorCode.EXECUTION_ERROR] * 3 + [ErrorCode.CIRCUIT_OPEN], CircuitState.OPEN) == (
        codes,
        breaker.state("calculator"),
    )


# -- the transcript ------------------------------------------------------------------------

TRANSCRIPT_MARKS = [
    "-> success: 2 + 3 * 4 = 14",
    "-> partial: 2 ** 1000 ≈ 1.07150860718627e+301",
    "-> error INVALID_PARAM",
    "-> error INVALID_FORMAT",
    "-> error EXECUTION_ERROR: Division by zero",
    "-> error NOT_FOUND: No tool named 'calculater'. Did you mean 'calculator'",
    "-> error TIMEOUT",
    "[breaker] calculator: closed -> open at t=0 s (failure threshold)",
    "retry_after_ms: 30000",
    "retry_after_ms: 10000",
    "[breaker] calculator: open -> half_open at t=30 s (recovery timeout)",
    "[breaker] calculator: half_open -> open at t=30 s (probe failed)",
    "[breaker] calculator: half_open -> closed at t=60 s (probe succeeded)",
    "Every answer validated against the ToolResponse v1 schema and had the expected status.",
]


def test_demo_walks_through_every_status() -> None:
    """main() prints each status, the breaker's transitions and a final verdict, and returns 0."""
    out = io.StringIO()
    status = calculator.main(out)
    text = out.getvalue()
    assert (0, []) == (status, [mark for mark in TRANSCRIPT_MARKS if mark not in text])
    assert "INVALID against" not in text
    assert "UNEXPECTED" not in text


def test_example_script_runs_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/tool_response_demo.py runs the same walk-through and exits 0."""
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(str(ROOT / "examples" / "tool_response_demo.py"), run_name="__main__")
    assert (0, True) == (exited.value.code, TRANSCRIPT_MARKS[-1] in capsys.readouterr().out)


@pytest.mark.parametrize("expression", ["2pi", "3sqrt(2)", "1if 2 else 3", "1and 2", "0x1for 2"])
def test_number_against_a_name_is_refused_without_warnings(expression: str) -> None:
    """A number written right against a name is INVALID_FORMAT, with no warning from the parser."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        response = calculate(expression)
    assert response.error_info is not None
    assert (ErrorCode.INVALID_FORMAT, 1, []) == (
        response.code,
        (response.error_info.details or {})["position"],
        caught,
    )
