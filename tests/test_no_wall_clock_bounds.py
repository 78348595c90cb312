"""No test asserts a wall-clock bound tighter than "it did not hang".

Timeouts, retries and the circuit breaker are tested on an injected clock
(``toolresponse.testing.FakeClock``), never by measuring how long something
took. This module keeps that true: it reads every test module's syntax tree
and fails, naming file and line, on a comparison of a real time difference
(``time.monotonic()``, ``perf_counter()``, ``time.time()``, an event loop's
``time()``, their ``_ns`` forms, and names or arithmetic derived from them)
with a literal below ``LIMIT_S`` seconds. A generous bound of at least
``LIMIT_S`` (a test that only checks nothing hung) is allowed, and so is any
number passed as an argument, such as ``timeout_s=0.1``.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

LIMIT_S = 5.0
"""The tightest bound on a real duration a test may assert, in seconds."""

TESTS = Path(__file__).parent

_SECONDS = frozenset({"monotonic", "perf_counter", "time", "process_time", "thread_time"})
_NANOSECONDS = frozenset(name + "_ns" for name in _SECONDS)
_LOOP_FACTORIES = frozenset({"get_running_loop", "get_event_loop", "new_event_loop"})


@dataclass(frozen=True)
class Bound:
    """A comparison of a real duration with a literal bound tighter than ``LIMIT_S``."""

    path: str
    line: int
    source: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.source}"


class _Scope:
    """What is known inside one function (or the module body): which names hold real clock
    readings or durations, each with its unit (how many of it make a second)."""

    def __init__(self, time_modules: set[str], timer_names: dict[str, float]) -> None:
        self.time_modules = time_modules
        self.timer_names = timer_names
        self.timed: dict[str, float] = {}
        self.loops: set[str] = set()

    def timer_unit(self, call: ast.Call) -> float | None:
        """Units per second of a call that reads a real clock, or None for any other call."""
        func = call.func
        if isinstance(func, ast.Name):
            return self.timer_names.get(func.id)
        if not isinstance(func, ast.Attribute):
            return None
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id in self.time_modules:
            if func.attr in _SECONDS:
                return 1.0
            if func.attr in _NANOSECONDS:
                return 1e9
            return None
        if func.attr == "time" and self.is_loop(receiver):
            return 1.0
        return None

    def is_loop(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.loops
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            return name in _LOOP_FACTORIES
        return False

    def unit(self, node: ast.expr) -> float | None:
        """Units per second of an expression derived from a real clock reading, else None."""
        if isinstance(node, ast.Call):
            unit = self.timer_unit(node)
            if unit is not None:
                return unit
            name = node.func.id if isinstance(node.func, ast.Name) else ""
            if name in {"abs", "min", "max", "round", "float", "int", "sum"}:
                units = [self.unit(argument) for argument in node.args]
                return next((u for u in units if u is not None), None)
            return None
        if isinstance(node, ast.Name):
            return self.timed.get(node.id)
        if isinstance(node, ast.UnaryOp):
            return self.unit(node.operand)
        if isinstance(node, ast.BinOp):
            left, right = self.unit(node.left), self.unit(node.right)
            if left is None and right is None:
                return None
            factor = _number(node.right) if left is not None else _number(node.left)
            unit = left if left is not None else right
            assert unit is not None
            if factor is not None and isinstance(node.op, ast.Mult):
                return unit * factor
            if factor is not None and isinstance(node.op, ast.Div) and left is not None:
                return unit / factor if factor else unit
            if isinstance(node.op, ast.Div) and left is not None and right is not None:
                return 1.0  # a ratio of two durations: bounded like seconds (a tight ratio is suspect too)
            return unit
        return None

    def learn(self, statement: ast.stmt) -> None:
        """Remember the names an assignment binds to clock readings, durations or event loops."""
        targets: list[ast.expr]
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign | ast.AugAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            return
        names = [target.id for target in targets if isinstance(target, ast.Name)]
        if self.is_loop(value):
            self.loops.update(names)
        unit = self.unit(value)
        if unit is not None:
            for name in names:
                self.timed[name] = unit


def _number(node: ast.expr) -> float | None:
    """The value of a numeric literal (``5``, ``0.5``, ``-1``, ``1e9``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _number(node.operand)
        return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.Constant) and type(node.value) is not bool:
        constant = node.value
        return float(constant) if isinstance(constant, int | float) else None
    return None


def _literal_bound(node: ast.expr) -> float | None:
    """The literal a duration is compared with: a number, or ``pytest.approx(number, ...)``."""
    value = _number(node)
    if value is not None:
        return value
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "approx":
            return _number(node.args[0])
    return None


def _imports_of_time(tree: ast.Module) -> tuple[set[str], dict[str, float]]:
    """The names the time module is bound to, and the clock functions imported from it by name."""
    modules: set[str] = set()
    timers: dict[str, float] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name == "time")
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            for alias in node.names:
                if alias.name in _SECONDS:
                    timers[alias.asname or alias.name] = 1.0
                elif alias.name in _NANOSECONDS:
                    timers[alias.asname or alias.name] = 1e9
    return modules, timers


def _bodies(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    """The module body and every function's body: each is one scope for the names it binds."""
    yield tree.body
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield node.body if isinstance(node.body, list) else [ast.Expr(node.body)]


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a scope's body in source order, not descending into nested functions."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def wall_clock_bounds(source: str, path: str = "<source>") -> list[Bound]:
    """Every comparison in ``source`` of a real duration with a literal bound below ``LIMIT_S``."""
    tree = ast.parse(source, filename=path)
    modules, timers = _imports_of_time(tree)
    lines = source.splitlines()
    found: list[Bound] = []
    for body in _bodies(tree):
        scope = _Scope(modules, timers)
        for node in _own_nodes(body):
            if isinstance(node, ast.stmt):
                scope.learn(node)
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            units = [scope.unit(operand) for operand in operands]
            bounds = [_literal_bound(operand) for operand in operands]
            for unit in (u for u in units if u is not None):
                if any(b is not None and abs(b) < LIMIT_S * unit for b in bounds):
                    found.append(Bound(path, node.lineno, lines[node.lineno - 1].strip()))
                    break
    return sorted(set(found), key=lambda bound: bound.line)


# -- the rule, on this suite ---------------------------------------------------------------


def test_no_test_bounds_a_real_duration_tighter_than_the_limit() -> None:
    """No test module compares a real duration with a literal below LIMIT_S seconds."""
    found = [
        bound
        for path in sorted(TESTS.rglob("*.py"))
        for bound in wall_clock_bounds(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS.parent)))
    ]
    assert [] == [str(bound) for bound in found], (
        "test on an injected clock (toolresponse.testing.FakeClock) instead of measuring real time"
    )


# -- the scanner itself --------------------------------------------------------------------

FLAGGED = [
    (
        "elapsed-name",
        """
        import time
        def test():
            started = time.monotonic()
            work()
            elapsed = time.monotonic() - started
            assert elapsed < 0.5
        """,
    ),
    (
        "chained",
        """
        import time
        def test():
            t = time.perf_counter()
            assert 0.2 <= time.perf_counter() - t < 1.0
        """,
    ),
    (
        "inline-difference",
        """
        import time
        def test(start):
            assert time.time() - start < 2
        """,
    ),
    (
        "bound-on-the-left",
        """
        import time
        def test(s):
            assert 1 > time.monotonic() - s
        """,
    ),
    (
        "from-import",
        """
        from time import perf_counter as pc
        def test():
            s = pc()
            d = pc() - s
            assert d <= 4.9
        """,
    ),
    (
        "module-alias",
        """
        import time as t
        def test():
            s = t.monotonic()
            assert t.monotonic() - s < 0.1
        """,
    ),
    (
        "milliseconds",
        """
        import time
        def test(s):
            ms = (time.monotonic() - s) * 1000
            assert ms < 500
        """,
    ),
    (
        "nanoseconds",
        """
        import time
        def test(s):
            assert time.monotonic_ns() - s < 1e9
        """,
    ),
    (
        "ratio",
        """
        import time
        def test(a, b):
            fast = time.monotonic() - a
            slow = time.monotonic() - b
            assert fast / slow < 2
        """,
    ),
    (
        "approx",
        """
        import time, pytest
        def test(s):
            assert time.monotonic() - s == pytest.approx(0.2, abs=0.1)
        """,
    ),
    (
        "if-fail",
        """
        import time
        def test(s):
            if time.monotonic() - s > 3:
                raise AssertionError
        """,
    ),
    (
        "loop-time",
        """
        import asyncio
        async def test():
            loop = asyncio.get_running_loop()
            s = loop.time()
            assert loop.time() - s < 1
        """,
    ),
    (
        "augmented",
        """
        import time
        def test(s):
            total = 0.0
            total += time.monotonic() - s
            assert total < 1
        """,
    ),
]

ALLOWED = [
    (
        "timeout-argument",
        """
        def test(tool):
            assert tool.execute({}, timeout_s=0.1).ok
        """,
    ),
    (
        "timeout-positional",
        """
        import time
        def test(event):
            assert event.wait(0.5)
        """,
    ),
    (
        "generous",
        """
        import time
        def test(s):
            assert time.monotonic() - s < 5
        """,
    ),
    (
        "generous-ms",
        """
        import time
        def test(s):
            assert (time.monotonic() - s) * 1000 < 10_000
        """,
    ),
    (
        "fake-clock",
        """
        from toolresponse.testing import FakeClock
        def test():
            c = FakeClock()
            s = c()
            assert c() - s == 0.2
        """,
    ),
    (
        "not-time",
        """
        def test(a, b):
            elapsed = a - b
            assert elapsed < 0.5
        """,
    ),
    (
        "message-only",
        """
        import time
        def test(s, n):
            e = time.monotonic() - s
            assert n >= 3, f'{n} in {e:.1f} s'
        """,
    ),
    (
        "other-scope",
        """
        import time
        def f():
            e = time.monotonic()
        def test(e):
            assert e < 1
        """,
    ),
    (
        "time-of-an-object",
        """
        def test(event):
            assert event.time() < 1
        """,
    ),
]


@pytest.mark.parametrize("source", [source for _, source in FLAGGED], ids=[name for name, _ in FLAGGED])
def test_a_tight_bound_on_a_real_duration_is_found(source: str) -> None:
    """A comparison of a real duration with a literal below the limit is reported with its line."""
    source = textwrap.dedent(source)
    found = wall_clock_bounds(source, "t.py")
    assert 1 == len(found), found
    assert found[0].source.startswith(("assert", "if"))
    assert source.splitlines()[found[0].line - 1].strip() == found[0].source


@pytest.mark.parametrize("source", [source for _, source in ALLOWED], ids=[name for name, _ in ALLOWED])
def test_timeouts_generous_bounds_and_fake_clocks_are_not_flagged(source: str) -> None:
    """Timeouts passed as arguments, bounds of LIMIT_S or more, and fake clocks are not reported."""
    assert [] == wall_clock_bounds(textwrap.dedent(source), "t.py")


def test_a_report_names_file_and_line() -> None:
    """A report reads ``path:line: source``."""
    source = "import time\n\ndef test(s):\n    assert time.monotonic() - s < 1\n"
    assert ["tests/x.py:4: assert time.monotonic() - s < 1"] == [
        str(bound) for bound in wall_clock_bounds(source, "tests/x.py")
    ]
