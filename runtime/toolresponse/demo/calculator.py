"""A calculator tool: every status of the protocol through the registry, and a breaker at work.

The expression is parsed with ``ast`` and walked over tables of what is allowed (numbers,
``+ - * / // % **``, unary signs, parentheses, ``CONSTANTS``, one-argument ``FUNCTIONS``);
nothing reaches ``eval``. Sizes are checked before a power is computed, and every result must be
finite with at most ``MAX_RESULT_DIGITS`` digits. An exact result is a success (``result`` a
number every JSON reader keeps exact, ``result_text`` the exact text); an integer of more than
``MAX_EXACT_DIGITS`` digits is shown rounded half up to ``SIGNIFICANT_DIGITS`` digits, partial
unless the rounding dropped only zeros; a refusal is INVALID_PARAM, INVALID_FORMAT or
EXECUTION_ERROR with ``details.reason``.
"""

from __future__ import annotations

import ast
import asyncio
import decimal
import io
import itertools
import json
import math
import operator
import time
import tokenize
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TextIO

from toolresponse_generated import ErrorCode

from .._response import ToolResponse
from .._suggest import did_you_mean, nearest
from ..testing import FakeClock
from ..tools._breaker import CircuitBreaker, StateChange
from ..tools._registry import ToolRegistry
from ..tools._tool import Tool
from ..validation import validate

Number = int | float

MAX_EXPRESSION_LENGTH: Final = 500
MAX_EXPRESSION_DEPTH: Final = 64
MAX_RESULT_DIGITS: Final = 10_000
"""The most decimal digits any integer (result or intermediate) may have."""
MAX_EXACT_DIGITS: Final = 30
"""Integers of more digits are answered in scientific notation."""
SIGNIFICANT_DIGITS: Final = 15

_TOO_LARGE: Final = 10**MAX_RESULT_DIGITS
_SAFE_INTEGER: Final = 2**53 - 1
_ROUNDING: Final = decimal.Context(prec=SIGNIFICANT_DIGITS, rounding=decimal.ROUND_HALF_UP)

CONSTANTS: Final[dict[str, float]] = {"pi": math.pi, "e": math.e, "tau": math.tau}
FUNCTIONS: Final[dict[str, Callable[[Any], Number]]] = {
    "sqrt": math.sqrt, "abs": abs, "round": round, "floor": math.floor, "ceil": math.ceil,
    "log": math.log, "exp": math.exp, "sin": math.sin, "cos": math.cos, "tan": math.tan,
}  # fmt: skip


class CalculatorError(ValueError):
    """An expression without a result: ``code`` to answer with, ``details`` (always a ``reason``)."""

    def __init__(self, code: ErrorCode, message: str, reason: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details: dict[str, Any] = {"reason": reason, **details}


def _malformed(message: str, reason: str, **details: Any) -> CalculatorError:
    return CalculatorError(ErrorCode.INVALID_FORMAT, message, reason, **details)


def _failed(message: str, reason: str, **details: Any) -> CalculatorError:
    return CalculatorError(ErrorCode.EXECUTION_ERROR, message, reason, **details)


def _power(base: Number, exponent: Number) -> Number:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        digits = exponent * math.log10(abs(base))
        if digits > MAX_RESULT_DIGITS:
            raise _too_large(f"about {round(digits):,} digits")
    return base**exponent


def _too_large(size: str) -> CalculatorError:
    return _failed(
        f"The result is too large: {size}, more than the {MAX_RESULT_DIGITS} the calculator computes.",
        "result_too_large",
        limit_digits=MAX_RESULT_DIGITS,
    )


_OPERATORS: Final[dict[type[ast.AST], Callable[..., Number]]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: _power,
    ast.UAdd: operator.pos, ast.USub: operator.neg,
}  # fmt: skip

_FAILURES: Final[dict[type[Exception], tuple[str, str]]] = {
    ZeroDivisionError: ("Division by zero in '{}'.", "division_by_zero"),
    OverflowError: ("'{}' is too large for a floating-point number.", "overflow"),
    ValueError: ("'{}' is undefined (outside the function's domain).", "math_domain"),
}
"""What an operation's exception means: its message and reason."""


def _suggestion(name: str, known: Iterable[str]) -> str:
    near = nearest(name, known)
    return f" ({did_you_mean([near])})" if near else ""


class _Walk:
    """The value of a parsed expression, refusing any node but those of arithmetic."""

    def __init__(self, source: str) -> None:
        self.source = source

    def value(self, node: ast.AST, depth: int = 0) -> Number:
        if depth > MAX_EXPRESSION_DEPTH:
            raise _malformed(
                f"The expression nests more than {MAX_EXPRESSION_DEPTH} levels deep.",
                "too_deep",
                limit=MAX_EXPRESSION_DEPTH,
            )
        depth += 1
        match node:
            case ast.Constant(value=int() | float() as number) if not isinstance(number, bool):
                return self.checked(node, number)
            case ast.Constant():
                raise self.refuse(node, f"'{self.text(node)}' is not a real number")
            case ast.BinOp(op=op) | ast.UnaryOp(op=op):
                function = _OPERATORS.get(type(op))
                if function is None:
                    raise self.refuse(node, "This operator is not supported")
                operands = [node.operand] if isinstance(node, ast.UnaryOp) else [node.left, node.right]
                return self.apply(node, function, [self.value(operand, depth) for operand in operands])
            case ast.Name(id=name) if name in CONSTANTS:
                return CONSTANTS[name]
            case ast.Name(id=name) if name in FUNCTIONS:
                raise self.refuse(node, f"'{name}' is a function; call it as {name}(x)")
            case ast.Name(id=name):
                raise self.refuse(node, f"Unknown name '{name}'{_suggestion(name, CONSTANTS)}")
            case ast.Call(func=ast.Name(id=name)) if name in FUNCTIONS:
                if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
                    raise self.refuse(node, f"Call {name} with one argument: {name}(x)")
                return self.apply(node, FUNCTIONS[name], [self.value(node.args[0], depth)])
            case ast.Call(func=function):
                name = function.id if isinstance(function, ast.Name) else ""
                unknown = f"Unknown function '{self.text(function)}'{_suggestion(name, FUNCTIONS)}"
                raise self.refuse(node, unknown)
        raise self.refuse(node, f"'{self.text(node)}' is not arithmetic")

    def text(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source, node) or ast.unparse(node)

    def refuse(self, node: ast.AST, what: str) -> CalculatorError:
        position = getattr(node, "col_offset", 0) + 1
        return _malformed(
            f"{what} (position {position}). Use numbers, + - * / // % **, parentheses, "
            f"the constants {', '.join(CONSTANTS)} and the functions {', '.join(FUNCTIONS)}.",
            "unsupported",
            position=position,
        )

    def apply(self, node: ast.AST, function: Callable[..., Number], arguments: list[Number]) -> Number:
        try:
            result = function(*arguments)
        except CalculatorError:
            raise
        except tuple(_FAILURES) as error:
            message, reason = next(meaning for kind, meaning in _FAILURES.items() if isinstance(error, kind))
            raise _failed(message.format(self.text(node)), reason, operation=self.text(node)) from None
        if isinstance(result, complex):
            raise _failed(f"'{self.text(node)}' is not a real number.", "not_real", operation=self.text(node))
        return self.checked(node, result)

    def checked(self, node: ast.AST, value: Number) -> Number:
        if isinstance(value, float) and not math.isfinite(value):
            raise _failed(f"'{self.text(node)}' is too large for a floating-point number.", "overflow")
        if isinstance(value, int) and abs(value) >= _TOO_LARGE:
            raise _too_large(f"{decimal.Decimal(value).adjusted() + 1:,} digits")
        return value


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression; raises a :class:`CalculatorError` saying why not."""
    source = expression.strip()
    if not source:
        raise CalculatorError(
            ErrorCode.INVALID_PARAM, "The expression is empty: give one such as '2 + 3'.", "empty"
        )
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise CalculatorError(
            ErrorCode.INVALID_PARAM,
            f"The expression is {len(expression)} characters long; the limit is {MAX_EXPRESSION_LENGTH}.",
            "too_long",
            limit=MAX_EXPRESSION_LENGTH,
        )
    position = _number_against_name(source)
    if position is not None:  # '2pi', '1if': the parser would only warn, or misread it
        raise _malformed(
            f"A number directly followed by a name at position {position}: put an operator between "
            "them, for example '2 * pi'.",
            "syntax",
            position=position,
        )
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as error:
        where = f" at position {error.offset}" if error.offset else ""
        raise _malformed(
            f"'{source}' is not a valid arithmetic expression ({error.msg}{where}).",
            "syntax",
            **({"position": error.offset} if error.offset else {}),
        ) from None
    except (RecursionError, MemoryError):
        raise _malformed("The expression nests too deeply to be parsed.", "too_deep") from None
    return _Walk(source).value(tree.body)


def _number_against_name(source: str) -> int | None:
    """The 1-based position of the first number written right against a name, if any."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None  # the parser says what is wrong
    for number, name in itertools.pairwise(tokens):
        if number.type == tokenize.NUMBER and name.type == tokenize.NAME and number.end == name.start:
            return number.start[1] + 1
    return None


def calculate(expression: str) -> ToolResponse:
    """The calculator tool's body: evaluate ``expression`` and answer with a ToolResponse."""
    try:
        value = evaluate(expression)
    except CalculatorError as error:
        return ToolResponse.error(error.code, error.message, details=error.details)
    source = expression.strip()
    exact = decimal.Decimal(value)
    digits = exact.adjusted() + 1
    if isinstance(value, float) or digits <= MAX_EXACT_DIGITS:
        text = repr(value) if isinstance(value, float) else str(value)
        shown = float(value) if abs(value) > _SAFE_INTEGER else value
        return ToolResponse.success(
            f"{source} = {text}", {"expression": source, "result": shown, "result_text": text}
        )
    rounded = exact.normalize(_ROUNDING)
    text = f"{rounded:e}"
    data: dict[str, Any] = {"expression": source, "result_text": text, "digits": digits}
    if math.isfinite(float(rounded)):
        data["result"] = float(rounded)
    if rounded == exact:
        return ToolResponse.success(f"{source} = {text}", data)
    return ToolResponse.partial(
        f"{source} ≈ {text} (rounded to {SIGNIFICANT_DIGITS} significant digits: the exact result has "
        f"{digits} digits, too many to show)",
        {**data, "significant_digits": SIGNIFICANT_DIGITS, "truncated": True},
    )


class Calculator(Tool):
    """The calculator as a tool: ``{"expression": "..."}`` in, the answer of :func:`calculate` out."""

    name = "calculator"
    description = (
        "Evaluate an arithmetic expression exactly: numbers, + - * / // % ** and parentheses, "
        f"the functions {', '.join(FUNCTIONS)} (one argument each) and the constants "
        f"{', '.join(CONSTANTS)}. Integers longer than {MAX_EXACT_DIGITS} digits are answered in "
        "scientific notation."
    )
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"expression": {
            "type": "string", "minLength": 1, "maxLength": MAX_EXPRESSION_LENGTH,
            "description": "An arithmetic expression, for example '2 ** 10 / (3 + 4)' or 'sqrt(2) * pi'.",
        }},
        "required": ["expression"],
        "additionalProperties": False,
    }  # fmt: skip
    output_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "expression": {"type": "string"}, "result": {"type": "number"}, "result_text": {"type": "string"},
            "digits": {"type": "integer", "minimum": 1}, "truncated": {"type": "boolean"},
            "significant_digits": {"type": "integer", "minimum": 1},
        },
        "required": ["expression", "result_text"],
        "additionalProperties": False,
    }  # fmt: skip

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return calculate(params["expression"])


def build_registry(
    breaker: CircuitBreaker | None = None, clock: Callable[[], float] = time.monotonic
) -> ToolRegistry:
    """A registry holding the calculator tool, guarded by ``breaker`` if given and timed with
    ``clock``; the agent, HTTP and MCP demos serve this same registry."""
    registry = ToolRegistry(breaker=breaker, clock=clock)
    registry.register(Calculator())
    return registry


# -- the demo --------------------------------------------------------------------------------

_TOUR: Final = (
    # (title, tool, expression or params, the answer expected)
    ("an exact result", "calculator", "2 + 3 * 4", "success"),
    ("a float result", "calculator", "sqrt(2) * pi", "success"),
    ("too long to show exactly", "calculator", "2 ** 1000", "partial"),
    ("empty input (the parameters schema)", "calculator", "", "error INVALID_PARAM"),
    ("blank input (the tool)", "calculator", "   ", "error INVALID_PARAM"),
    ("a misspelt parameter", "calculator", {"expresion": "1 + 1"}, "error INVALID_PARAM"),
    ("a bad character", "calculator", "2 + $", "error INVALID_FORMAT"),
    ("code instead of arithmetic", "calculator", "__import__", "error INVALID_FORMAT"),
    ("division by zero", "calculator", "1 / 0", "error EXECUTION_ERROR"),
    ("a result too large to compute", "calculator", "9 ** 9 ** 9", "error EXECUTION_ERROR"),
    ("a misspelt tool name", "calculater", "1 + 1", "error NOT_FOUND"),
    ("a remote calculator that never answers (0.05 s timeout)", "remote", "1 + 1", "error TIMEOUT"),
)  # fmt: skip

_BREAKER_TOUR: Final = (
    # (seconds the fake clock moves first, title, tool, expression, the answer expected, show the circuit)
    *((0, f"misspelt tool, call {n}", "calculater", "1 + 1", "error NOT_FOUND", False) for n in (1, 2, 3)),
    (0, "misspelt tool, call 4 (unknown names never reach the breaker)",
     "calculater", "1 + 1", "error NOT_FOUND", False),
    (0, "a bad argument is the caller's mistake, not the tool's",
     "calculator", "", "error INVALID_PARAM", True),
    *((0, f"failing evaluation {n}", "calculator", "1 / 0", "error EXECUTION_ERROR", False)
      for n in (1, 2, 3)),
    (0, "the open circuit answers without running the tool",
     "calculator", "2 + 2", "error CIRCUIT_OPEN", False),
    (20, "20 s later: still open, 10 s to wait", "calculator", "2 + 2", "error CIRCUIT_OPEN", False),
    (10, "30 s later: a probe goes through, and fails", "calculator", "1 / 0", "error EXECUTION_ERROR", True),
    (30, "30 s more: the next probe succeeds", "calculator", "2 + 2", "success", True),
)  # fmt: skip


async def _never_answers(expression: str) -> ToolResponse:
    """A calculator behind a remote service that never answers (the registry's timeout cancels it)."""
    await asyncio.Event().wait()
    return calculate(expression)


def _call(registry: ToolRegistry, out: TextIO, title: str, tool: str, params: Any, expected: str) -> bool:
    """Call, print the answer, and say whether it is valid and the one expected."""
    params = {"expression": params} if isinstance(params, str) else params
    print(f"  {title}: {tool}({json.dumps(params)})", file=out)
    response = registry.execute(tool, params)
    head = response.status.value + ("" if response.code is None else f" {response.code.value}")
    print(f"    -> {head}: {response.text}", file=out)
    if (info := response.error_info) is None:
        print(f"       data: {json.dumps(response.data, ensure_ascii=False)}", file=out)
    else:
        after = "" if info.retry_after_ms is None else f", retry_after_ms: {info.retry_after_ms}"
        details = json.dumps(info.details, ensure_ascii=False)
        print(f"       details: {details}; retryable: {str(response.is_retryable).lower()}{after}", file=out)
    errors = validate(response.to_dict()).errors
    for error in errors[:1]:
        print(f"       INVALID against the schema: {error.pointer}: {error.message}", file=out)
    if head != expected:
        print(f"       UNEXPECTED: wanted {expected}", file=out)
    return head == expected and not errors


def main(out: TextIO) -> int:
    """Every status through the registry, then a breaker tripping and recovering on a fake clock."""
    print("Every status through the registry (each answer checked against the schema):", file=out)
    registry = build_registry()
    registry.register(_never_answers, name="remote", timeout_s=0.05)
    good = [_call(registry, out, *step) for step in _TOUR]

    print("\nA circuit breaker (3 consecutive failures open it for 30 s), with a fake clock:", file=out)
    clock = FakeClock()
    breaker = CircuitBreaker(failure_threshold=3, recovery_timeout_s=30, clock=clock)

    def announce(change: StateChange) -> None:
        reason = change.reason.replace("_", " ")
        print(f"    [breaker] {change.tool_name}: {change.old_state} -> {change.new_state} "
              f"at t={change.at:g} s ({reason})", file=out)  # fmt: skip

    breaker.add_listener(announce)
    registry = build_registry(breaker, clock=clock)
    for advance, title, tool, expression, expected, show_circuit in _BREAKER_TOUR:
        clock.advance(advance)
        good.append(_call(registry, out, title, tool, expression, expected))
        if show_circuit:
            now = breaker.status("calculator")
            recovery = "" if now.recovery_in_s is None else f", recovery in {now.recovery_in_s:g} s"
            print(f"    t={clock():g} s: calculator circuit {now.state}, "
                  f"{now.consecutive_failures} consecutive failures{recovery}", file=out)  # fmt: skip
    if not all(good):
        print(f"\n{good.count(False)} answers were invalid or unexpected.", file=out)
        return 1
    print(
        "\nEvery answer validated against the ToolResponse v1 schema and had the expected status.", file=out
    )
    return 0
