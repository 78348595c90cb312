"""A circuit breaker per tool name, with a half-open state, an injected clock and no printing.

States and transitions of one tool's circuit::

                 failure_threshold consecutive failures
      CLOSED ───────────────────────────────────────────▶ OPEN ◀───────┐
        ▲                                                   │          │
        │ a probe succeeds              recovery_timeout_s  │          │ a probe fails
        │                                  has passed       ▼          │
        └───────────────────────────────────────────── HALF_OPEN ──────┘

- **closed**: every call runs. A failing response adds one to the count of
  consecutive failures, a successful one resets it to zero; at
  ``failure_threshold`` the circuit opens.
- **open**: calls are answered with ``CIRCUIT_OPEN`` without running the tool,
  ``retryable: true`` and ``retry_after_ms`` = the time left until recovery,
  rounded up to a whole millisecond and clamped to ``MAX_RETRY_AFTER_MS``
  (2^53 - 1, the protocol's interoperable integer range), so that even a
  ``recovery_timeout_s`` of ``1e20`` gives a response that serialises.
  Outcomes recorded while open (calls that were admitted before the circuit
  opened) do not move it.
- **half_open**: once ``recovery_timeout_s`` has passed, up to
  ``half_open_max_calls`` probe calls run; further concurrent calls get
  ``CIRCUIT_OPEN`` with ``retry_after_ms: 0`` (the probe decides shortly). The
  first probe outcome decides: success closes the circuit, failure re-opens it
  at once for another ``recovery_timeout_s``.

A probe that is admitted but never recorded (its caller crashed) cannot wedge
the circuit: a probe slot is released when any outcome is recorded, and when
all slots are taken and ``recovery_timeout_s`` has passed since the circuit
went half-open, the slots are considered lost and reset, so the next call
probes again.

What counts as a failure is a predicate over the response that answers
``True`` (a failure), ``False`` (a success: resets the count, closes a
half-open circuit) or ``None`` (no evidence about the tool's health: the
response changes nothing but releases a probe slot). The default,
:func:`default_is_failure`, counts every ``error`` response except
``INVALID_PARAM`` (the caller's mistake, so that a model's typo cannot lock a
tool) and ``CIRCUIT_OPEN`` (the tool did not run). A misspelled tool name
never reaches the breaker: the registry answers ``NOT_FOUND`` before asking it.

Every change of state happens under one lock. The common cases, admitting a
call of a closed circuit and recording a success of a tool with a clean
record, take a single dict lookup and no lock: a dict read and an attribute
read are atomic, and one that races with a change sees the state just before
or just after it, as if the call had come a moment earlier or later.

State-change listeners get a :class:`StateChange`; they are called outside the
lock, one at a time and in the order of the changes (possibly on another
thread that is already delivering changes), so a listener may call the
breaker. An exception from a listener is logged on the ``toolresponse.breaker``
logger and does not affect the call.
"""

from __future__ import annotations

import collections
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from toolresponse_generated import ErrorCode

from .._response import ToolResponse

__all__ = [
    "BreakerStatus",
    "CircuitBreaker",
    "CircuitState",
    "FailurePredicate",
    "StateChange",
    "StateListener",
    "default_is_failure",
]

_log = logging.getLogger("toolresponse.breaker")
_log.addHandler(logging.NullHandler())


class CircuitState(StrEnum):
    """The state of one tool's circuit."""

    CLOSED = "closed"
    """Calls run; consecutive failures are counted."""
    OPEN = "open"
    """Calls are refused with CIRCUIT_OPEN until the recovery timeout has passed."""
    HALF_OPEN = "half_open"
    """A limited number of probe calls run; their outcome closes or re-opens the circuit."""


FailurePredicate = Callable[[ToolResponse], bool | None]
"""Decides what a response says about a tool's health: ``True`` a failure, ``False`` a success,
``None`` no evidence (the response is ignored, apart from releasing a half-open probe slot)."""

ChangeReason = Literal[
    "failure_threshold", "probe_failed", "probe_succeeded", "recovery_timeout", "manual", "reset"
]


@dataclass(frozen=True, kw_only=True, slots=True)
class StateChange:
    """One transition of one tool's circuit, as passed to state-change listeners."""

    tool_name: str
    old_state: CircuitState
    new_state: CircuitState
    at: float
    """The breaker's clock reading when the change happened (monotonic seconds)."""
    reason: ChangeReason
    consecutive_failures: int
    """The count of consecutive failures after the change."""


StateListener = Callable[[StateChange], None]


@dataclass(frozen=True, kw_only=True, slots=True)
class BreakerStatus:
    """A snapshot of one tool's circuit."""

    tool_name: str
    state: CircuitState
    consecutive_failures: int
    recovery_in_s: float | None
    """Seconds until an open circuit admits a probe; 0.0 when half-open; None when closed."""
    probes_in_flight: int
    """Half-open probe calls admitted and not yet recorded."""

    def to_dict(self) -> dict[str, Any]:
        """The snapshot as JSON-ready values (the state as its string value)."""
        return {
            "tool_name": self.tool_name,
            "state": self.state.value,
            "consecutive_failures": self.consecutive_failures,
            "recovery_in_s": self.recovery_in_s,
            "probes_in_flight": self.probes_in_flight,
        }


_NO_EVIDENCE: Final = frozenset({ErrorCode.INVALID_PARAM, ErrorCode.CIRCUIT_OPEN})


def default_is_failure(response: ToolResponse) -> bool | None:
    """The default failure predicate: every error is a failure, except INVALID_PARAM and
    CIRCUIT_OPEN, which say nothing about the tool's health (``None``)."""
    if not response.is_error:
        return False
    return None if response.code in _NO_EVIDENCE else True


_CLOSED: Final = CircuitState.CLOSED
_OPEN: Final = CircuitState.OPEN
_HALF_OPEN: Final = CircuitState.HALF_OPEN


class _Circuit:
    """The mutable state of one tool's circuit; changed only under the breaker's lock."""

    __slots__ = ("failures", "half_open_at", "opened_at", "probes", "state")

    def __init__(self) -> None:
        self.state: CircuitState = _CLOSED
        self.failures = 0
        self.opened_at = 0.0
        self.half_open_at = 0.0
        self.probes = 0


class CircuitBreaker:
    """A circuit per tool name: stops calling a tool that keeps failing, then probes it.

    The registry calls :meth:`admit` before running a tool (``None``: run it;
    otherwise the ``CIRCUIT_OPEN`` response to return instead) and
    :meth:`record` with every response of a tool that ran. ``clock`` is any
    function returning monotonic seconds (``toolresponse.testing.FakeClock``
    in tests). See the module documentation for the state machine.
    """

    __slots__ = (
        "_circuits",
        "_clock",
        "_default_predicate",
        "_dispatch_lock",
        "_failure_threshold",
        "_half_open_max_calls",
        "_is_failure",
        "_listeners",
        "_lock",
        "_pending",
        "_recovery_timeout_s",
    )

    def __init__(
        self,
        failure_threshold: int = 3,
        recovery_timeout_s: float = 300,
        half_open_max_calls: int = 1,
        clock: Callable[[], float] = time.monotonic,
        is_failure: FailurePredicate | None = None,
    ) -> None:
        self._failure_threshold = _positive_int(failure_threshold, "failure_threshold")
        self._half_open_max_calls = _positive_int(half_open_max_calls, "half_open_max_calls")
        self._recovery_timeout_s = _duration(recovery_timeout_s, "recovery_timeout_s")
        if not callable(clock):
            raise TypeError(f"clock must be a function returning monotonic seconds, not {clock!r}")
        if is_failure is not None and not callable(is_failure):
            raise TypeError(f"is_failure must be a function of a ToolResponse, not {is_failure!r}")
        self._clock = clock
        self._is_failure: FailurePredicate = is_failure or default_is_failure
        self._default_predicate = self._is_failure is default_is_failure
        self._lock = threading.Lock()
        self._circuits: dict[str, _Circuit] = {}
        self._listeners: tuple[StateListener, ...] = ()
        self._pending: collections.deque[StateChange] = collections.deque()
        self._dispatch_lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"CircuitBreaker(failure_threshold={self._failure_threshold}, "
            f"recovery_timeout_s={self._recovery_timeout_s}, "
            f"half_open_max_calls={self._half_open_max_calls})"
        )

    @property
    def failure_threshold(self) -> int:
        return self._failure_threshold

    @property
    def recovery_timeout_s(self) -> float:
        return self._recovery_timeout_s

    @property
    def half_open_max_calls(self) -> int:
        return self._half_open_max_calls

    # The interface the registry calls.

    def admit(self, tool_name: str) -> ToolResponse | None:
        """``None`` if the tool may run now, else the CIRCUIT_OPEN response to answer with."""
        circuit = self._circuits.get(tool_name)
        if circuit is None or circuit.state is _CLOSED:
            return None  # the common case, answered without the lock (see the module docstring)
        refused: tuple[CircuitState, int, float] | None = None
        with self._lock:
            circuit = self._circuits.get(tool_name)
            if circuit is None or circuit.state is _CLOSED:
                return None
            now = self._clock()
            if circuit.state is _OPEN:
                remaining = circuit.opened_at + self._recovery_timeout_s - now
                if remaining > 0:
                    refused = (_OPEN, circuit.failures, remaining)
                else:
                    self._half_open(tool_name, circuit, now)
            if refused is None:  # half-open: a probe, if a slot is free
                if circuit.probes < self._half_open_max_calls:
                    circuit.probes += 1
                elif now - circuit.half_open_at >= self._recovery_timeout_s:
                    # Every slot is held by a probe that never came back: consider them lost.
                    circuit.half_open_at = now
                    circuit.probes = 1
                else:
                    refused = (_HALF_OPEN, circuit.failures, 0.0)
        if self._pending:
            self._dispatch()
        return None if refused is None else self._refusal(tool_name, *refused)

    def record(self, tool_name: str, response: ToolResponse) -> None:
        """Count the outcome of a call of ``tool_name`` that ran (admitted by :meth:`admit`)."""
        if self._default_predicate and response.error_info is None:
            verdict: bool | None = False  # default_is_failure, inlined for the common case
        else:
            verdict = self._is_failure(response)
        if not verdict and tool_name not in self._circuits:
            return  # a success of a tool with a clean record: nothing to count, no lock taken
        with self._lock:
            circuit = self._circuits.get(tool_name)
            if circuit is None:
                if not verdict:
                    return
                circuit = self._circuits[tool_name] = _Circuit()
            state = circuit.state
            if verdict is None:
                if state is _HALF_OPEN and circuit.probes:
                    circuit.probes -= 1
            elif verdict:
                if state is _CLOSED:
                    circuit.failures += 1
                    if circuit.failures >= self._failure_threshold:
                        self._open(tool_name, circuit, self._clock(), "failure_threshold")
                elif state is _HALF_OPEN:
                    circuit.failures += 1
                    self._open(tool_name, circuit, self._clock(), "probe_failed")
            elif state is _CLOSED:
                del self._circuits[tool_name]  # a clean closed circuit is not kept
            elif state is _HALF_OPEN:
                self._close(tool_name, circuit, self._clock(), "probe_succeeded")
        if self._pending:
            self._dispatch()

    def state(self, tool_name: str) -> CircuitState:
        """The current state of the tool's circuit (an unknown name is closed)."""
        circuit = self._circuits.get(tool_name)
        if circuit is None or circuit.state is _CLOSED:
            return _CLOSED
        with self._lock:
            circuit = self._circuits.get(tool_name)
            if circuit is None:
                return _CLOSED
            self._refresh(tool_name, circuit)
            state = circuit.state
        if self._pending:
            self._dispatch()
        return state

    # Inspection.

    def status(self, tool_name: str) -> BreakerStatus:
        """A snapshot of the tool's circuit: state, consecutive failures, time to recovery."""
        with self._lock:
            circuit = self._circuits.get(tool_name)
            snapshot = self._snapshot(tool_name, circuit)
        if self._pending:
            self._dispatch()
        return snapshot

    def statuses(self) -> dict[str, BreakerStatus]:
        """A snapshot of every circuit that is not closed with a clean count, by tool name."""
        with self._lock:
            snapshots = {name: self._snapshot(name, self._circuits[name]) for name in sorted(self._circuits)}
        if self._pending:
            self._dispatch()
        return snapshots

    # Manual control.

    def open(self, tool_name: str) -> None:
        """Open the tool's circuit now, for ``recovery_timeout_s`` (then it is probed as usual)."""
        with self._lock:
            circuit = self._circuits.get(tool_name)
            if circuit is None:
                circuit = self._circuits[tool_name] = _Circuit()
            self._open(tool_name, circuit, self._clock(), "manual")
        if self._pending:
            self._dispatch()

    def close(self, tool_name: str) -> None:
        """Close the tool's circuit now and forget its failures."""
        self._forget((tool_name,), "manual")

    def reset(self, tool_name: str | None = None) -> None:
        """Forget the circuit of ``tool_name``, or of every tool: closed, no failures."""
        with self._lock:
            names = tuple(self._circuits) if tool_name is None else (tool_name,)
        self._forget(names, "reset")

    # Listeners.

    def add_listener(self, listener: StateListener) -> None:
        """Call ``listener(change)`` with a :class:`StateChange` after every state change."""
        if not callable(listener):
            raise TypeError(f"a listener must be a function of a StateChange, not {listener!r}")
        with self._lock:
            self._listeners = (*self._listeners, listener)

    def remove_listener(self, listener: StateListener) -> None:
        """Stop calling ``listener`` (compared with ``==``, so bound methods work); unknown: ignored."""
        with self._lock:
            self._listeners = tuple(known for known in self._listeners if known != listener)

    # Internals; the methods below that take a circuit run under the lock.

    def _forget(self, names: tuple[str, ...], reason: ChangeReason) -> None:
        with self._lock:
            now: float | None = None
            for name in names:
                circuit = self._circuits.pop(name, None)
                if circuit is not None and circuit.state is not _CLOSED:
                    now = self._clock() if now is None else now
                    circuit.failures = 0
                    self._change(name, circuit, _CLOSED, now, reason)
        if self._pending:
            self._dispatch()

    def _refresh(self, tool_name: str, circuit: _Circuit) -> float:
        now = self._clock()
        if circuit.state is _OPEN and now - circuit.opened_at >= self._recovery_timeout_s:
            self._half_open(tool_name, circuit, now)
        return now

    def _snapshot(self, tool_name: str, circuit: _Circuit | None) -> BreakerStatus:
        if circuit is None:
            return BreakerStatus(
                tool_name=tool_name,
                state=_CLOSED,
                consecutive_failures=0,
                recovery_in_s=None,
                probes_in_flight=0,
            )
        now = self._refresh(tool_name, circuit)
        recovery_in_s: float | None
        if circuit.state is _OPEN:
            recovery_in_s = circuit.opened_at + self._recovery_timeout_s - now
        elif circuit.state is _HALF_OPEN:
            recovery_in_s = 0.0
        else:
            recovery_in_s = None
        return BreakerStatus(
            tool_name=tool_name,
            state=circuit.state,
            consecutive_failures=circuit.failures,
            recovery_in_s=recovery_in_s,
            probes_in_flight=circuit.probes if circuit.state is _HALF_OPEN else 0,
        )

    def _open(self, tool_name: str, circuit: _Circuit, now: float, reason: ChangeReason) -> None:
        circuit.opened_at = now
        circuit.probes = 0
        if circuit.state is not _OPEN:
            self._change(tool_name, circuit, _OPEN, now, reason)

    def _half_open(self, tool_name: str, circuit: _Circuit, now: float) -> None:
        circuit.half_open_at = now
        circuit.probes = 0
        self._change(tool_name, circuit, _HALF_OPEN, now, "recovery_timeout")

    def _close(self, tool_name: str, circuit: _Circuit, now: float, reason: ChangeReason) -> None:
        circuit.failures = 0
        circuit.probes = 0
        self._change(tool_name, circuit, _CLOSED, now, reason)
        del self._circuits[tool_name]

    def _change(
        self, tool_name: str, circuit: _Circuit, new_state: CircuitState, now: float, reason: ChangeReason
    ) -> None:
        old_state = circuit.state
        circuit.state = new_state
        if self._listeners:
            self._pending.append(
                StateChange(
                    tool_name=tool_name,
                    old_state=old_state,
                    new_state=new_state,
                    at=now,
                    reason=reason,
                    consecutive_failures=circuit.failures,
                )
            )

    def _dispatch(self) -> None:
        """Deliver pending changes in order, outside the state lock, one delivering thread at a time."""
        pending = self._pending
        while pending:
            if not self._dispatch_lock.acquire(blocking=False):
                return  # the thread holding it delivers ours too (it re-checks after releasing)
            try:
                while pending:
                    change = pending.popleft()
                    for listener in self._listeners:
                        try:
                            listener(change)
                        except Exception:
                            _log.exception("circuit breaker listener %r failed on %r", listener, change)
            finally:
                self._dispatch_lock.release()

    def _refusal(
        self, tool_name: str, state: CircuitState, failures: int, remaining_s: float
    ) -> ToolResponse:
        retry_after_ms = _ceil_ms(remaining_s)
        if state is _OPEN:
            message = (
                f"Tool '{tool_name}' is unavailable: its circuit breaker opened after {failures} "
                f"consecutive failures. Do not call it again for {retry_after_ms / 1000:g} s."
            )
        else:
            message = (
                f"Tool '{tool_name}' is being tested by a recovery call after {failures} consecutive "
                "failures; retry shortly."
            )
        return ToolResponse.error(
            ErrorCode.CIRCUIT_OPEN,
            message,
            details={
                "tool_name": tool_name,
                "state": state.value,
                "consecutive_failures": failures,
                "recovery_timeout_s": self._recovery_timeout_s,
            },
            retryable=True,
            retry_after_ms=retry_after_ms,
        )


MAX_RETRY_AFTER_MS: Final = 2**53 - 1
"""The longest ``retry_after_ms`` the breaker writes: the largest integer every JSON reader keeps
exact (the protocol's interoperable range; about 285,000 years)."""


def _ceil_ms(seconds: float) -> int:
    """Seconds as whole milliseconds rounded up (float noise below a nanosecond ignored), from 0
    to ``MAX_RETRY_AFTER_MS`` (a longer wait is clamped to it)."""
    milliseconds = round(seconds * 1000.0, 6)
    if not milliseconds < MAX_RETRY_AFTER_MS:  # huge, or infinite (1e308 s in ms)
        return MAX_RETRY_AFTER_MS
    return max(0, math.ceil(milliseconds))


def _positive_int(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, not {value}")
    return value


def _duration(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number of seconds >= 0, not {value!r}")
    return float(value)
