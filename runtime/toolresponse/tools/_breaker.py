"""A circuit breaker per tool name, with a half-open state and an injected clock::

    CLOSED ──── failure_threshold consecutive failures ────▶ OPEN
      ▲                                                   │    ▲
      │ a probe succeeds            recovery_timeout_s    ▼    │ a probe fails
      └────────────────────────────────────────────── HALF_OPEN

Open, a call is answered CIRCUIT_OPEN (retryable, ``retry_after_ms`` the time left, rounded up);
outcomes of calls admitted before it opened do not move it. Half-open, up to ``half_open_max_calls``
probes run, their slots freed once held for ``recovery_timeout_s`` (probes whose callers never came
back). Changes happen under one lock, the closed circuit's common paths take none; listeners get
each ``StateChange`` outside the lock, in order, one at a time, so that a listener may call the breaker.
"""

from __future__ import annotations

import collections
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from toolresponse_generated import ErrorCode

from .._response import ToolResponse
from .._suggest import checked_count, checked_seconds

_log = logging.getLogger("toolresponse.breaker")
_log.addHandler(logging.NullHandler())

MAX_RETRY_AFTER_MS: Final = 2**53 - 1
"""The longest ``retry_after_ms`` written: the largest integer every JSON reader keeps exact."""


class CircuitState(StrEnum):
    """The state of one tool's circuit."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


_CLOSED: Final = CircuitState.CLOSED
_OPEN: Final = CircuitState.OPEN
_HALF_OPEN: Final = CircuitState.HALF_OPEN

FailurePredicate = Callable[[ToolResponse], bool | None]
"""What a response says about a tool's health: True a failure, False a success, None no evidence
(nothing is counted, but a half-open circuit's probe slot is freed)."""

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
        return {**asdict(self), "state": self.state.value}


_NO_EVIDENCE: Final = frozenset({ErrorCode.INVALID_PARAM, ErrorCode.CIRCUIT_OPEN})


def default_is_failure(response: ToolResponse) -> bool | None:
    """Every error is a failure, but INVALID_PARAM and CIRCUIT_OPEN, which say nothing (None)."""
    if not response.is_error:
        return False
    return None if response.code in _NO_EVIDENCE else True


@dataclass(slots=True)
class _Circuit:
    """The mutable state of one tool's circuit; changed only under the breaker's lock."""

    state: CircuitState = _CLOSED
    failures: int = 0
    since: float = 0.0
    """When it opened (open), or began to admit probes (half-open)."""
    probes: int = 0


class CircuitBreaker:
    """A circuit per tool name: stops calling a tool that keeps failing, then probes it.

    The registry calls ``admit`` before running a tool (None: run it; else the CIRCUIT_OPEN
    response to answer with) and ``record`` with the response of every tool that ran. ``clock``
    returns monotonic seconds (``toolresponse.testing.FakeClock`` in tests).
    """

    def __init__(
        self,
        failure_threshold: int = 3,
        recovery_timeout_s: float = 300,
        half_open_max_calls: int = 1,
        clock: Callable[[], float] = time.monotonic,
        is_failure: FailurePredicate | None = None,
    ) -> None:
        self.failure_threshold = checked_count(failure_threshold, "failure_threshold")
        self.half_open_max_calls = checked_count(half_open_max_calls, "half_open_max_calls")
        self.recovery_timeout_s = float(checked_seconds(recovery_timeout_s, "recovery_timeout_s"))
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
        self._delivering = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"CircuitBreaker(failure_threshold={self.failure_threshold}, "
            f"recovery_timeout_s={self.recovery_timeout_s}, half_open_max_calls={self.half_open_max_calls})"
        )

    # -- what the registry calls ----------------------------------------------------------------

    def admit(self, tool_name: str) -> ToolResponse | None:
        """None if the tool may run now, else the CIRCUIT_OPEN response to answer with."""
        circuit = self._circuits.get(tool_name)
        if circuit is None or circuit.state is _CLOSED:
            return None  # the common case, without the lock
        refused: BreakerStatus | None = None
        with self._lock:
            circuit = self._circuits.get(tool_name) or _Circuit()  # none: closed meanwhile
            now = self._refresh(tool_name, circuit)
            if circuit.state is _HALF_OPEN and circuit.probes < self.half_open_max_calls:
                circuit.probes += 1
            elif circuit.state is _HALF_OPEN and now - circuit.since >= self.recovery_timeout_s:
                circuit.since, circuit.probes = now, 1  # every slot was held by a lost probe
            elif circuit.state is not _CLOSED:
                refused = self._snapshot(tool_name, circuit, now)
        self._deliver()
        return None if refused is None else self._refusal(refused)

    def record(self, tool_name: str, response: ToolResponse) -> None:
        """Count the outcome of a call of ``tool_name`` that ran (admitted by ``admit``)."""
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
            if verdict is None:
                if circuit.state is _HALF_OPEN and circuit.probes:
                    circuit.probes -= 1
            elif circuit.state is _OPEN:
                pass  # a call admitted before the circuit opened
            elif verdict:
                circuit.failures += 1
                if circuit.state is _HALF_OPEN:
                    self._open(tool_name, circuit, "probe_failed")
                elif circuit.failures >= self.failure_threshold:
                    self._open(tool_name, circuit, "failure_threshold")
            elif circuit.state is _HALF_OPEN:
                self._change(tool_name, circuit, _CLOSED, "probe_succeeded")
            else:
                del self._circuits[tool_name]  # a clean closed circuit is not kept
        self._deliver()

    def state(self, tool_name: str) -> CircuitState:
        """The current state of the tool's circuit (an unknown name is closed)."""
        circuit = self._circuits.get(tool_name)
        if circuit is None or circuit.state is _CLOSED:
            return _CLOSED
        return self.status(tool_name).state

    # -- inspection and manual control ----------------------------------------------------------

    def status(self, tool_name: str) -> BreakerStatus:
        """A snapshot of the tool's circuit: state, consecutive failures, time to recovery."""
        with self._lock:
            circuit = self._circuits.get(tool_name) or _Circuit()
            snapshot = self._snapshot(tool_name, circuit, self._refresh(tool_name, circuit))
        self._deliver()
        return snapshot

    def statuses(self) -> dict[str, BreakerStatus]:
        """A snapshot of every circuit that is not closed with a clean count, by tool name."""
        with self._lock:
            snapshots = {
                name: self._snapshot(name, circuit, self._refresh(name, circuit))
                for name, circuit in sorted(self._circuits.items())
            }
        self._deliver()
        return snapshots

    def open(self, tool_name: str) -> None:
        """Open the tool's circuit now, for ``recovery_timeout_s`` (then it is probed as usual)."""
        with self._lock:
            circuit = self._circuits.setdefault(tool_name, _Circuit())
            self._open(tool_name, circuit, "manual")
        self._deliver()

    def close(self, tool_name: str) -> None:
        """Close the tool's circuit now and forget its failures."""
        self._forget((tool_name,), "manual")

    def reset(self, tool_name: str | None = None) -> None:
        """Forget the circuit of ``tool_name``, or of every tool: closed, no failures."""
        with self._lock:
            names = tuple(self._circuits) if tool_name is None else (tool_name,)
        self._forget(names, "reset")

    def add_listener(self, listener: StateListener) -> None:
        """Call ``listener(change)`` with a ``StateChange`` after every state change."""
        if not callable(listener):
            raise TypeError(f"a listener must be a function of a StateChange, not {listener!r}")
        with self._lock:
            self._listeners = (*self._listeners, listener)

    def remove_listener(self, listener: StateListener) -> None:
        """Stop calling ``listener`` (compared with ``==``, so bound methods work); unknown: ignored."""
        with self._lock:
            self._listeners = tuple(known for known in self._listeners if known != listener)

    # -- under the lock -------------------------------------------------------------------------

    def _forget(self, names: tuple[str, ...], reason: ChangeReason) -> None:
        with self._lock:
            for name in names:
                circuit = self._circuits.pop(name, None)
                if circuit is not None and circuit.state is not _CLOSED:
                    self._change(name, circuit, _CLOSED, reason)
        self._deliver()

    def _refresh(self, tool_name: str, circuit: _Circuit) -> float:
        """The clock's reading, an open circuit made half-open when its recovery time has come."""
        now = self._clock()
        if circuit.state is _OPEN and now - circuit.since >= self.recovery_timeout_s:
            circuit.since, circuit.probes = now, 0
            self._change(tool_name, circuit, _HALF_OPEN, "recovery_timeout", now)
        return now

    def _open(self, tool_name: str, circuit: _Circuit, reason: ChangeReason) -> None:
        circuit.since, circuit.probes = self._clock(), 0
        if circuit.state is not _OPEN:
            self._change(tool_name, circuit, _OPEN, reason, circuit.since)

    def _snapshot(self, tool_name: str, circuit: _Circuit, now: float) -> BreakerStatus:
        recovery_in_s = {
            _OPEN: circuit.since + self.recovery_timeout_s - now,
            _HALF_OPEN: 0.0,
            _CLOSED: None,
        }[circuit.state]
        return BreakerStatus(
            tool_name=tool_name,
            state=circuit.state,
            consecutive_failures=circuit.failures,
            recovery_in_s=recovery_in_s,
            probes_in_flight=circuit.probes if circuit.state is _HALF_OPEN else 0,
        )

    def _change(
        self,
        tool_name: str,
        circuit: _Circuit,
        new_state: CircuitState,
        reason: ChangeReason,
        now: float | None = None,
    ) -> None:
        """Move the tool's circuit to ``new_state``, queueing the change for the listeners; a
        circuit closed has no failures, and is forgotten."""
        old_state, circuit.state = circuit.state, new_state
        if new_state is _CLOSED:
            circuit.failures = circuit.probes = 0
            self._circuits.pop(tool_name, None)
        if self._listeners:
            at = self._clock() if now is None else now
            change = StateChange(
                tool_name=tool_name,
                old_state=old_state,
                new_state=new_state,
                at=at,
                reason=reason,
                consecutive_failures=circuit.failures,
            )
            self._pending.append(change)

    def _deliver(self) -> None:
        """Deliver the pending changes in order, outside the state lock, one thread at a time."""
        pending = self._pending
        while pending:
            if not self._delivering.acquire(blocking=False):
                return  # the thread delivering takes ours too (it looks again after releasing)
            try:
                while pending:
                    change = pending.popleft()
                    for listener in self._listeners:
                        try:
                            listener(change)
                        except Exception:
                            _log.exception("circuit breaker listener %r failed on %r", listener, change)
            finally:
                self._delivering.release()

    def _refusal(self, status: BreakerStatus) -> ToolResponse:
        tool_name, failures = status.tool_name, status.consecutive_failures
        retry_after_ms = _ceil_ms(status.recovery_in_s or 0.0)
        if status.state is _OPEN:
            message = (
                f"Tool '{tool_name}' is unavailable: its circuit breaker opened after {failures} "
                f"consecutive failures. Do not call it again for {retry_after_ms / 1000:g} s."
            )
        else:
            message = (
                f"Tool '{tool_name}' is being tested by a recovery call after {failures} consecutive "
                "failures; retry shortly."
            )
        details = {
            "tool_name": tool_name,
            "state": status.state.value,
            "consecutive_failures": failures,
            "recovery_timeout_s": self.recovery_timeout_s,
        }
        return ToolResponse.error(
            ErrorCode.CIRCUIT_OPEN, message, details=details, retryable=True, retry_after_ms=retry_after_ms
        )


def _ceil_ms(seconds: float) -> int:
    """Seconds as whole milliseconds rounded up (noise below a nanosecond ignored), from 0 to
    ``MAX_RETRY_AFTER_MS``."""
    milliseconds = round(seconds * 1000.0, 6)
    if not milliseconds < MAX_RETRY_AFTER_MS:  # huge, or infinite
        return MAX_RETRY_AFTER_MS
    return max(0, math.ceil(milliseconds))
