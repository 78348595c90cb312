"""A calculator tool: every status of the protocol through the registry, and a breaker at work.

The evaluator is safe by construction: the expression is parsed with
``ast.parse(..., mode="eval")`` and only numbers, ``+ - * / // % **``, unary
``+``/``-``, parentheses, the constants ``pi``, ``e``, ``tau`` and a few
functions (``sqrt abs round floor ceil log exp sin cos tan``) are evaluated;
any other node is refused. Nothing is ever passed to ``eval``. Sizes are
guarded before they are computed, so ``9**9**9`` is refused at once instead of
filling the memory, and every float result is checked to be finite.

The results map onto the protocol as follows:

- a result shown exactly: ``success``, ``data`` = ``{expression, result, result_text}``;
- an integer with more than ``MAX_EXACT_DIGITS`` digits: ``partial``, shown in
  scientific notation with ``SIGNIFICANT_DIGITS`` digits; ``data`` adds
  ``digits`` (the exact count), ``significant_digits`` and ``truncated: true``;
  ``result`` is the rounded value as a float when one can hold it;
- an empty expression: ``INVALID_PARAM``; a character, syntax or construct the
  calculator refuses: ``INVALID_FORMAT``; division by zero, a domain error or a
  result too large: ``EXECUTION_ERROR``; each with ``details``.

``result`` is always a JSON number that any reader keeps exact (an integer
within +-(2**53 - 1), else a float); ``result_text`` is the exact decimal text.

Exceptions raised by :func:`evaluate`::

    CalculatorError            an expression with no result; .code and .details say why
    ├── InvalidExpression      INVALID_PARAM: empty, too long or not a string
    ├── MalformedExpression    INVALID_FORMAT: a character, syntax or construct refused
    └── EvaluationFailed       EXECUTION_ERROR: division by zero, a domain error, too large
"""

from __future__ import annotations

import ast
import asyncio
import io
import json
import math
import operator
import re
import time
import tokenize
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TextIO

from toolresponse_generated import ErrorCode

from .._response import ToolResponse
from .._suggest import did_you_mean, nearest
from ..testing import FakeClock
from ..tools import CircuitBreaker, StateChange, Tool, ToolRegistry
from ..validation import validate

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "MAX_EXACT_DIGITS",
    "MAX_EXPRESSION_LENGTH",
    "MAX_RESULT_DIGITS",
    "SIGNIFICANT_DIGITS",
    "Calculator",
    "CalculatorError",
    "EvaluationFailed",
    "InvalidExpression",
    "MalformedExpression",
    "build_registry",
    "calculate",
    "evaluate",
    "main",
]

Number = int | float

MAX_EXPRESSION_LENGTH: Final = 500
"""The longest expression accepted, in characters."""
MAX_EXPRESSION_DEPTH: Final = 64
"""The deepest nesting of operations accepted."""
MAX_RESULT_DIGITS: Final = 10_000
"""The most decimal digits any integer (result or intermediate) may have."""
MAX_EXACT_DIGITS: Final = 30
"""Integers with more digits than this are shown in scientific notation, as a partial result."""
SIGNIFICANT_DIGITS: Final = 15
"""The significant digits of a result shown in scientific notation."""

_MAX_BITS: Final = math.ceil(MAX_RESULT_DIGITS / math.log10(2))
_FEWER_DIGITS_BITS: Final = _MAX_BITS - 2  # an integer this many bits long has fewer digits than the limit
_SAFE_INTEGER: Final = 2**53 - 1
_ROUND_DIGITS_LIMIT: Final = 100
_REFUSED_CHARACTER: Final = re.compile(r"[^0-9A-Za-z_\s.,+\-*/%()]")


class CalculatorError(ValueError):
    """An expression that has no result: ``code`` is the error code to answer with, ``details``
    the structured specifics (always with a ``reason``)."""

    code: ClassVar[ErrorCode] = ErrorCode.EXECUTION_ERROR

    def __init__(self, message: str, reason: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = {"reason": reason, **details}


class InvalidExpression(CalculatorError):
    """An empty or too long expression, or one that is not a string (INVALID_PARAM)."""

    code = ErrorCode.INVALID_PARAM


class MalformedExpression(CalculatorError):
    """A character, a syntax error or a construct the calculator refuses (INVALID_FORMAT)."""

    code = ErrorCode.INVALID_FORMAT


class EvaluationFailed(CalculatorError):
    """A well-formed expression that fails: division by zero, a domain error, too large (EXECUTION_ERROR)."""

    code = ErrorCode.EXECUTION_ERROR


CONSTANTS: Final[dict[str, float]] = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _round(x: Number, ndigits: Number | None = None) -> Number:
    if ndigits is None:
        return round(x)
    if not isinstance(ndigits, int) or not -_ROUND_DIGITS_LIMIT <= ndigits <= _ROUND_DIGITS_LIMIT:
        raise EvaluationFailed(
            f"round's second argument must be a whole number from {-_ROUND_DIGITS_LIMIT} "
            f"to {_ROUND_DIGITS_LIMIT}, not {ndigits!r}.",
            "argument_out_of_range",
            function="round",
        )
    return round(x, ndigits)


def _log(x: Number, base: Number | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


@dataclass(frozen=True)
class _Function:
    implementation: Callable[..., Number]
    min_args: int
    max_args: int
    signature: str


FUNCTIONS: Final[dict[str, _Function]] = {
    "sqrt": _Function(math.sqrt, 1, 1, "sqrt(x)"),
    "abs": _Function(abs, 1, 1, "abs(x)"),
    "round": _Function(_round, 1, 2, "round(x) or round(x, digits)"),
    "floor": _Function(math.floor, 1, 1, "floor(x)"),
    "ceil": _Function(math.ceil, 1, 1, "ceil(x)"),
    "log": _Function(_log, 1, 2, "log(x) or log(x, base)"),
    "exp": _Function(math.exp, 1, 1, "exp(x)"),
    "sin": _Function(math.sin, 1, 1, "sin(x)"),
    "cos": _Function(math.cos, 1, 1, "cos(x)"),
    "tan": _Function(math.tan, 1, 1, "tan(x)"),
}


def _power(base: Number, exponent: Number) -> Number:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        estimated = exponent * math.log10(abs(base))
        if estimated > MAX_RESULT_DIGITS:
            raise _too_large(f"about {round(estimated):,} digits")
    return base**exponent


def _multiply(left: Number, right: Number) -> Number:
    if (
        isinstance(left, int)
        and isinstance(right, int)
        and left.bit_length() + right.bit_length() > _MAX_BITS + 1
    ):
        raise _too_large(f"about {round((left.bit_length() + right.bit_length()) * math.log10(2)):,} digits")
    return left * right


_BINARY: Final[dict[type[ast.operator], tuple[str, Callable[[Number, Number], Number]]]] = {
    ast.Add: ("+", operator.add),
    ast.Sub: ("-", operator.sub),
    ast.Mult: ("*", _multiply),
    ast.Div: ("/", operator.truediv),
    ast.FloorDiv: ("//", operator.floordiv),
    ast.Mod: ("%", operator.mod),
    ast.Pow: ("**", _power),
}
_UNARY: Final[dict[type[ast.unaryop], Callable[[Number], Number]]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_REFUSED_NODES: Final[dict[type[ast.AST], str]] = {
    ast.Compare: "Comparisons are",
    ast.BoolOp: "'and' and 'or' are",
    ast.Attribute: "Attribute access is",
    ast.Subscript: "Indexing is",
    ast.Lambda: "Lambda is",
    ast.IfExp: "Conditional expressions are",
    ast.Tuple: "Tuples (several values separated by commas) are",
    ast.List: "Lists are",
    ast.Dict: "Dicts are",
    ast.Set: "Sets are",
    ast.Starred: "Starred arguments are",
    ast.NamedExpr: "Assignments are",
    ast.JoinedStr: "Strings are",
}


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    near = nearest(name, known)
    return f" ({did_you_mean([near])})" if near else ""


def _too_large(size: str) -> EvaluationFailed:
    return EvaluationFailed(
        f"The result is too large: {size}, more than the {MAX_RESULT_DIGITS} the calculator computes.",
        "result_too_large",
        limit_digits=MAX_RESULT_DIGITS,
    )


def _checked(value: Number) -> Number:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EvaluationFailed("The result is too large for a floating-point number.", "overflow")
    elif value.bit_length() > _FEWER_DIGITS_BITS and digit_count(value) > MAX_RESULT_DIGITS:
        raise _too_large(f"{digit_count(value):,} digits")
    return value


class _Evaluator:
    """Walks the parsed expression, allowing only the nodes listed in the module docstring."""

    def __init__(self, source: str) -> None:
        self.source = source

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source, node) or ast.unparse(node)

    def refuse(self, node: ast.AST, what: str) -> MalformedExpression:
        column = getattr(node, "col_offset", 0)
        return MalformedExpression(
            f"{what} (position {column + 1}: '{self.segment(node)}'). Use numbers, + - * / // % **, "
            f"parentheses, the constants {', '.join(CONSTANTS)} and the functions {', '.join(FUNCTIONS)}.",
            "unsupported",
            position=column + 1,
        )

    def value(self, node: ast.AST, depth: int = 0) -> Number:
        if depth > MAX_EXPRESSION_DEPTH:
            raise MalformedExpression(
                f"The expression nests more than {MAX_EXPRESSION_DEPTH} levels deep.",
                "too_deep",
                limit=MAX_EXPRESSION_DEPTH,
            )
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.BinOp):
            symbol_function = _BINARY.get(type(node.op))
            if symbol_function is None:
                raise self.refuse(node, "This operator is not supported")
            left = self.value(node.left, depth + 1)
            right = self.value(node.right, depth + 1)
            return self.apply(node, symbol_function[1], left, right)
        if isinstance(node, ast.UnaryOp):
            unary = _UNARY.get(type(node.op))
            if unary is None:
                raise self.refuse(node, "This operator is not supported")
            return unary(self.value(node.operand, depth + 1))
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                raise self.refuse(
                    node, f"'{node.id}' is a function; call it as {FUNCTIONS[node.id].signature}"
                )
            raise self.refuse(node, f"Unknown name '{node.id}'{_did_you_mean(node.id, CONSTANTS)}")
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        raise self.refuse(
            node, f"{_REFUSED_NODES.get(type(node), type(node).__name__ + ' is')} not supported"
        )

    def constant(self, node: ast.Constant) -> Number:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            kind = {bool: "Booleans", complex: "Imaginary numbers", str: "Strings"}.get(
                type(value), "Such values"
            )
            raise self.refuse(node, f"{kind} are not supported")
        if isinstance(value, float) and not math.isfinite(value):
            raise EvaluationFailed(
                f"The number {self.segment(node)} is too large for a floating-point number.", "overflow"
            )
        return value

    def call(self, node: ast.Call, depth: int) -> Number:
        name = node.func.id if isinstance(node.func, ast.Name) else None
        function = FUNCTIONS.get(name) if name is not None else None
        if name is None or function is None:
            raise self.refuse(
                node.func,
                "Only these functions can be called"
                if name is None
                else f"Unknown function '{name}'{_did_you_mean(name, FUNCTIONS)}",
            )
        if node.keywords:
            raise self.refuse(node, f"Keyword arguments are not supported: call {function.signature}")
        if not function.min_args <= len(node.args) <= function.max_args:
            raise self.refuse(
                node, f"Wrong number of arguments ({len(node.args)}): call {function.signature}"
            )
        arguments = [self.value(argument, depth + 1) for argument in node.args]
        return self.apply(node, function.implementation, *arguments)

    def apply(self, node: ast.AST, function: Callable[..., Number], *arguments: Number) -> Number:
        try:
            result = function(*arguments)
            if isinstance(result, complex):
                raise EvaluationFailed(
                    f"'{self.segment(node)}' is not a real number.", "not_real", operation=self.segment(node)
                )
            return _checked(result)
        except CalculatorError:
            raise
        except ZeroDivisionError:
            raise EvaluationFailed(
                f"Division by zero in '{self.segment(node)}'.",
                "division_by_zero",
                operation=self.segment(node),
            ) from None
        except OverflowError:
            raise EvaluationFailed(
                f"'{self.segment(node)}' is too large for a floating-point number.",
                "overflow",
                operation=self.segment(node),
            ) from None
        except ValueError:
            raise EvaluationFailed(
                f"'{self.segment(node)}' is undefined (outside the function's domain).",
                "math_domain",
                operation=self.segment(node),
            ) from None


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression; raises a :class:`CalculatorError` saying why not."""
    if not isinstance(expression, str):
        raise InvalidExpression(
            f"The expression must be a string, not {type(expression).__name__}.", "not_a_string"
        )
    source = expression.strip()
    if not source:
        raise InvalidExpression(
            "The expression is empty: give an arithmetic expression such as '2 + 3'.", "empty"
        )
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise InvalidExpression(
            f"The expression is {len(expression)} characters long; the limit is {MAX_EXPRESSION_LENGTH}.",
            "too_long",
            limit=MAX_EXPRESSION_LENGTH,
        )
    refused = _REFUSED_CHARACTER.search(source)
    if refused is not None:
        raise MalformedExpression(
            f"The character {refused.group()!r} at position {refused.start() + 1} is not allowed in an "
            "arithmetic expression.",
            "character",
            character=refused.group(),
            position=refused.start() + 1,
        )
    juxtaposed = _number_before_name(source)
    if juxtaposed is not None:
        text, position = juxtaposed
        raise MalformedExpression(
            f"A number directly followed by a name ('{text}' at position {position}): put an operator "
            "between them, for example '2 * pi'.",
            "syntax",
            position=position,
        )
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as error:
        where = {"position": error.offset} if error.offset else {}
        raise MalformedExpression(
            f"'{source}' is not a valid arithmetic expression ({error.msg}"
            + (f" at position {error.offset})." if error.offset else ")."),
            "syntax",
            **where,
        ) from None
    except (RecursionError, MemoryError):
        raise MalformedExpression(
            "The expression nests too deeply to be parsed.", "too_deep", limit=MAX_EXPRESSION_DEPTH
        ) from None
    return _Evaluator(source).value(tree.body)


def _number_before_name(source: str) -> tuple[str, int] | None:
    """The first number written right against a name ('2pi', '1if'), which the parser would only
    warn about or misread, with its 1-based position."""
    previous: tokenize.TokenInfo | None = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if (
                previous is not None
                and previous.type == tokenize.NUMBER
                and token.type == tokenize.NAME
                and previous.end == token.start
            ):
                return previous.string + token.string, previous.start[1] + 1
            previous = token
    except (tokenize.TokenError, SyntaxError):
        return None  # the parser reports it
    return None


def digit_count(value: int) -> int:
    """The number of decimal digits of an integer (its sign not counted), without ``str()``."""
    magnitude = abs(value)
    if magnitude < 10:
        return 1
    digits = int(magnitude.bit_length() * math.log10(2)) + 1
    return digits - 1 if magnitude < 10 ** (digits - 1) else digits


def scientific(value: int, significant: int = SIGNIFICANT_DIGITS) -> tuple[str, bool]:
    """An integer in scientific notation rounded (half up) to ``significant`` digits, and whether
    that is exact (every dropped digit was zero)."""
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    digits = digit_count(magnitude)
    exponent = digits - 1
    dropped = max(0, digits - significant)
    unit = 10**dropped
    mantissa, rest = divmod(magnitude, unit)
    if 2 * rest >= unit:
        mantissa += 1
        if mantissa == 10 ** min(digits, significant):
            mantissa //= 10
            exponent += 1
    text = str(mantissa)
    fraction = text[1:].rstrip("0")
    return f"{sign}{text[0]}{'.' + fraction if fraction else ''}e+{exponent}", rest == 0


def _json_number(value: Number) -> Number:
    if isinstance(value, int) and abs(value) > _SAFE_INTEGER:
        return float(value)
    return value


def calculate(expression: str) -> ToolResponse:
    """The calculator tool's body: evaluate ``expression`` and answer with a ToolResponse."""
    try:
        value = evaluate(expression)
    except CalculatorError as error:
        return ToolResponse.error(error.code, error.message, details=error.details)
    source = expression.strip()
    if isinstance(value, float):
        text = repr(value)
        return ToolResponse.success(
            f"{source} = {text}", {"expression": source, "result": value, "result_text": text}
        )
    digits = digit_count(value)
    if digits <= MAX_EXACT_DIGITS:
        text = str(value)
        return ToolResponse.success(
            f"{source} = {text}", {"expression": source, "result": _json_number(value), "result_text": text}
        )
    text, exact = scientific(value)
    data: dict[str, Any] = {"expression": source, "result_text": text, "digits": digits}
    rounded = float(text)
    if math.isfinite(rounded):
        data["result"] = rounded
    if exact:
        return ToolResponse.success(f"{source} = {text}", data)
    return ToolResponse.partial(
        f"{source} ≈ {text} (rounded to {SIGNIFICANT_DIGITS} significant digits: the exact result has "
        f"{digits} digits, too many to show)",
        {**data, "significant_digits": SIGNIFICANT_DIGITS, "truncated": True},
    )


# -- the tool and its registry --------------------------------------------------------------

PARAMETERS: Final[Mapping[str, Any]] = {
    "type": "object",
    "properties": {
        "expression": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_EXPRESSION_LENGTH,
            "description": "An arithmetic expression, for example '2 ** 10 / (3 + 4)' or 'sqrt(2) * pi'.",
        }
    },
    "required": ["expression"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: Final[Mapping[str, Any]] = {
    "type": "object",
    "properties": {
        "expression": {"type": "string"},
        "result": {"type": "number"},
        "result_text": {"type": "string"},
        "digits": {"type": "integer", "minimum": 1},
        "significant_digits": {"type": "integer", "minimum": 1},
        "truncated": {"type": "boolean"},
    },
    "required": ["expression", "result_text"],
    "additionalProperties": False,
}


class Calculator(Tool):
    """The calculator as a tool: ``{"expression": "..."}`` in, the answer of :func:`calculate` out."""

    name = "calculator"
    description = (
        "Evaluate an arithmetic expression exactly: numbers, + - * / // % ** and parentheses, "
        f"the functions {', '.join(FUNCTIONS)} and the constants {', '.join(CONSTANTS)}. "
        f"Integers longer than {MAX_EXACT_DIGITS} digits are answered in scientific notation."
    )
    parameters = PARAMETERS
    output_schema = OUTPUT_SCHEMA

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return calculate(params["expression"])


def build_registry(
    breaker: CircuitBreaker | None = None, clock: Callable[[], float] = time.monotonic
) -> ToolRegistry:
    """A registry holding the calculator tool (``calculator``), guarded by ``breaker`` if given and
    timed with ``clock``; the agent and HTTP demos serve this same registry."""
    registry = ToolRegistry(breaker=breaker, clock=clock)
    registry.register(Calculator())
    return registry


# -- the demo --------------------------------------------------------------------------------

_TIMEOUT_S: Final = 0.05


async def _remote_calculator(expression: str) -> dict[str, Any]:
    """A calculator behind a remote service that never answers (for the TIMEOUT step)."""
    await asyncio.Event().wait()  # cancelled by the registry's timeout
    return {"expression": expression}


@dataclass(frozen=True)
class _Step:
    title: str
    tool: str
    params: Any
    status: str
    code: str | None = None


_TOUR: Final = (
    _Step("an exact result", "calculator", {"expression": "2 + 3 * 4"}, "success"),
    _Step("a float result", "calculator", {"expression": "sqrt(2) * pi"}, "success"),
    _Step("too long to show exactly", "calculator", {"expression": "2 ** 1000"}, "partial"),
    _Step("empty input (the parameters schema)", "calculator", {"expression": ""}, "error", "INVALID_PARAM"),
    _Step("blank input (the tool)", "calculator", {"expression": "   "}, "error", "INVALID_PARAM"),
    _Step("a misspelt parameter", "calculator", {"expresion": "1 + 1"}, "error", "INVALID_PARAM"),
    _Step("a bad character", "calculator", {"expression": "2 + $"}, "error", "INVALID_FORMAT"),
    _Step(
        "code instead of arithmetic", "calculator", {"expression": "__import__"}, "error", "INVALID_FORMAT"
    ),
    _Step("division by zero", "calculator", {"expression": "1 / 0"}, "error", "EXECUTION_ERROR"),
    _Step(
        "a result too large to compute",
        "calculator",
        {"expression": "9 ** 9 ** 9"},
        "error",
        "EXECUTION_ERROR",
    ),
    _Step("a misspelt tool name", "calculater", {"expression": "1 + 1"}, "error", "NOT_FOUND"),
    _Step(
        f"a remote calculator that never answers ({_TIMEOUT_S:g} s timeout)",
        "remote_calculator",
        {"expression": "1 + 1"},
        "error",
        "TIMEOUT",
    ),
)


class _Transcript:
    """Prints each call and its answer, and counts answers that are invalid or unexpected."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.problems = 0

    def line(self, text: str = "") -> None:
        print(text, file=self.out)

    def call(self, registry: ToolRegistry, step: _Step, *, show_time: bool = True) -> ToolResponse:
        self.line(f"  {step.title}: {step.tool}({json.dumps(step.params)})")
        response = registry.execute(step.tool, step.params)
        head = response.status.value if response.code is None else f"{response.status.value} {response.code}"
        self.line(f"    -> {head}: {response.text}")
        if response.error_info is None:
            self.line(f"       data: {json.dumps(response.data, ensure_ascii=False)}")
        else:
            info = response.error_info
            extra = f"retryable: {str(response.is_retryable).lower()}"
            if info.retry_after_ms is not None:
                extra += f", retry_after_ms: {info.retry_after_ms}"
            self.line(f"       details: {json.dumps(info.details, ensure_ascii=False)}; {extra}")
        if show_time and response.stats is not None:
            self.line(f"       time_ms: {response.stats.get('time_ms', 0.0):.3f}")
        verdict = validate(response.to_dict())
        if not verdict.valid:
            self.problems += 1
            self.line(
                f"       INVALID against the schema: {verdict.errors[0].pointer}: {verdict.errors[0].message}"
            )
        if (response.status.value, response.code) != (step.status, step.code):
            self.problems += 1
            self.line(f"       UNEXPECTED: wanted {step.status} {step.code or ''}".rstrip())
        return response


def main(out: TextIO) -> int:
    """Walk through every status through the registry, then a breaker tripping and recovering."""
    transcript = _Transcript(out)
    transcript.line("Every status through the registry (each answer checked against the schema):")
    registry = build_registry()
    registry.register(_remote_calculator, name="remote_calculator", timeout_s=_TIMEOUT_S)
    for step in _TOUR:
        transcript.call(registry, step)
    transcript.line()
    _breaker_tour(transcript)
    transcript.line()
    if transcript.problems:
        transcript.line(f"{transcript.problems} answers were invalid or unexpected.")
        return 1
    transcript.line("Every answer validated against the ToolResponse v1 schema and had the expected status.")
    return 0


def _breaker_tour(transcript: _Transcript) -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(failure_threshold=3, recovery_timeout_s=30, clock=clock)

    def announce(change: StateChange) -> None:
        transcript.line(
            f"    [breaker] {change.tool_name}: {change.old_state} -> {change.new_state} "
            f"at t={change.at:g} s ({change.reason.replace('_', ' ')})"
        )

    breaker.add_listener(announce)
    registry = build_registry(breaker, clock=clock)

    def call(
        title: str, expression: str, status: str, code: str | None = None, tool: str = "calculator"
    ) -> None:
        transcript.call(
            registry, _Step(title, tool, {"expression": expression}, status, code), show_time=False
        )

    def status() -> None:
        snapshot = breaker.status("calculator")
        recovery = "" if snapshot.recovery_in_s is None else f", recovery in {snapshot.recovery_in_s:g} s"
        transcript.line(
            f"    t={clock():g} s: calculator circuit {snapshot.state}, "
            f"{snapshot.consecutive_failures} consecutive failures{recovery}"
        )

    transcript.line("A circuit breaker (3 consecutive failures open it for 30 s), with a fake clock:")
    for attempt in range(1, 5):
        title = f"misspelt tool, call {attempt}" + (
            " (unknown names never reach the breaker)" if attempt == 4 else ""
        )
        call(title, "1 + 1", "error", "NOT_FOUND", tool="calculater")
    call("a bad argument is the caller's mistake, not the tool's", "", "error", "INVALID_PARAM")
    status()
    for attempt in range(1, 4):
        call(f"failing evaluation {attempt}", "1 / 0", "error", "EXECUTION_ERROR")
    call("the open circuit answers without running the tool", "2 + 2", "error", "CIRCUIT_OPEN")
    clock.advance(20)
    call("20 s later: still open, 10 s to wait", "2 + 2", "error", "CIRCUIT_OPEN")
    clock.advance(10)
    call("30 s later: a probe goes through, and fails", "1 / 0", "error", "EXECUTION_ERROR")
    status()
    clock.advance(30)
    call("30 s more: the next probe succeeds", "2 + 2", "success")
    status()
