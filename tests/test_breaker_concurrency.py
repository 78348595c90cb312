"""The circuit breaker under 8 threads x 2,000 calls: exact counts and never an invalid state.

The thread switch interval is shortened during these tests so that the threads
interleave inside the breaker's methods as often as possible. The clock is a
FakeClock (frozen, or advanced by the workers themselves): nothing sleeps.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from toolresponse import CircuitBreaker, CircuitState, ErrorCode, ToolResponse
from toolresponse.testing import FakeClock
from toolresponse.tools._breaker import StateChange, default_is_failure

THREADS = 8
CALLS = 2_000
TOTAL = THREADS * CALLS
TOOL = "flaky"
FAILURE = ToolResponse.error(ErrorCode.EXECUTION_ERROR, "boom")
SUCCESS = ToolResponse.success("ok")

CLOSED = CircuitState.CLOSED
OPEN = CircuitState.OPEN
HALF_OPEN = CircuitState.HALF_OPEN
ALLOWED = {(CLOSED, OPEN), (OPEN, HALF_OPEN), (HALF_OPEN, OPEN), (HALF_OPEN, CLOSED)}


@pytest.fixture(autouse=True)
def _frequent_thread_switches() -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


class Tally:
    """Thread-safe counts kept by the test, outside the breaker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: Counter[str] = Counter()

    def add(self, key: str, amount: int = 1) -> None:
        with self._lock:
            self.counts[key] += amount


def run_threads(worker: Callable[[int], None]) -> None:
    """Run worker(thread_index) on THREADS threads started together; re-raise the first failure."""
    barrier = threading.Barrier(THREADS)
    failures: list[BaseException] = []

    def body(index: int) -> None:
        try:
            barrier.wait()
            worker(index)
        except BaseException as error:  # reported to the test below
            failures.append(error)

    threads = [threading.Thread(target=body, args=(index,)) for index in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def counting_predicate(tally: Tally) -> Callable[[ToolResponse], bool | None]:
    def is_failure(response: ToolResponse) -> bool | None:
        tally.add("recorded")
        return default_is_failure(response)

    return is_failure


def assert_valid_chain(changes: list[StateChange]) -> None:
    """Each change starts where the previous one ended, is an allowed transition, and time never goes back."""
    state = CLOSED
    at = float("-inf")
    for change in changes:
        assert (state, at <= change.at) == (change.old_state, True)
        assert (change.old_state, change.new_state) in ALLOWED
        state, at = change.new_state, change.at


def test_healthy_tool_admits_every_call() -> None:
    """16,000 successful calls: every one admitted and recorded, no circuit kept, no change."""
    tally = Tally()
    breaker = CircuitBreaker(clock=FakeClock(), is_failure=counting_predicate(tally))
    changes: list[StateChange] = []
    breaker.add_listener(changes.append)

    def worker(_: int) -> None:
        admitted = 0
        for _ in range(CALLS):
            if breaker.admit(TOOL) is None:
                admitted += 1
                breaker.record(TOOL, SUCCESS)
        tally.add("admitted", admitted)

    run_threads(worker)
    assert ({"admitted": TOTAL, "recorded": TOTAL}, [], {}) == (tally.counts, changes, breaker.statuses())


def test_failing_tool_opens_exactly_once_with_a_frozen_clock() -> None:
    """Always failing, clock frozen: one closed->open change, then every call refused with the full wait.

    At most one call per thread can be in flight when the threshold is reached, so
    between 3 and 3 + 7 calls run; every call is either admitted and recorded or refused.
    """
    tally = Tally()
    breaker = CircuitBreaker(failure_threshold=3, clock=FakeClock(), is_failure=counting_predicate(tally))
    changes: list[StateChange] = []
    breaker.add_listener(changes.append)

    def worker(_: int) -> None:
        refusals: Counter[tuple[ErrorCode | None, int | None]] = Counter()
        for _ in range(CALLS):
            refusal = breaker.admit(TOOL)
            if refusal is None:
                tally.add("admitted")
                breaker.record(TOOL, FAILURE)
            else:
                refusals[refusal.code, refusal.retry_after_ms] += 1
        for key, count in refusals.items():
            tally.add(f"refused {key[0]} {key[1]}", count)

    run_threads(worker)
    admitted = tally.counts["admitted"]
    assert 3 <= admitted <= 3 + THREADS - 1
    assert {
        "admitted": admitted,
        "recorded": admitted,
        "refused CIRCUIT_OPEN 300000": TOTAL - admitted,
    } == tally.counts
    assert [(CLOSED, OPEN, "failure_threshold", 3)] == [
        (change.old_state, change.new_state, change.reason, change.consecutive_failures) for change in changes
    ]
    assert (OPEN, 3) == (breaker.state(TOOL), breaker.status(TOOL).consecutive_failures)


@pytest.mark.parametrize("max_calls", [1, 4])
def test_half_open_admits_exactly_max_calls_concurrent_probes(max_calls: int) -> None:
    """Half-open, probes never recorded, clock frozen: exactly half_open_max_calls of 16,000 calls run."""
    clock = FakeClock()
    breaker = CircuitBreaker(half_open_max_calls=max_calls, clock=clock)
    breaker.open(TOOL)
    clock.advance(300)
    tally = Tally()

    def worker(_: int) -> None:
        admitted = refused_half_open = 0
        for _ in range(CALLS):
            refusal = breaker.admit(TOOL)
            if refusal is None:
                admitted += 1
            elif refusal.retry_after_ms == 0 and refusal.code is ErrorCode.CIRCUIT_OPEN:
                refused_half_open += 1
        tally.add("admitted", admitted)
        tally.add("refused", refused_half_open)

    run_threads(worker)
    assert {"admitted": max_calls, "refused": TOTAL - max_calls} == tally.counts
    assert (HALF_OPEN, max_calls) == (breaker.state(TOOL), breaker.status(TOOL).probes_in_flight)


def test_mixed_outcomes_with_a_moving_clock_keep_a_valid_state() -> None:
    """Failures, successes and a clock moved by the workers: every call is accounted for, every change
    is a valid transition in order, and no snapshot ever shows an impossible state."""
    clock = FakeClock()
    tally = Tally()
    breaker = CircuitBreaker(
        failure_threshold=3,
        recovery_timeout_s=5,
        half_open_max_calls=2,
        clock=clock,
        is_failure=counting_predicate(tally),
    )
    changes: list[StateChange] = []
    breaker.add_listener(changes.append)
    done = threading.Event()
    bad_snapshots: list[object] = []

    def observe() -> None:
        while not done.is_set():
            status = breaker.status(TOOL)
            if (
                status.state not in CircuitState
                or status.consecutive_failures < 0
                or not 0 <= status.probes_in_flight <= 2
                or (status.state is CLOSED) != (status.recovery_in_s is None)
                or (status.recovery_in_s is not None and not 0 <= status.recovery_in_s <= 5)
            ):
                bad_snapshots.append(status)

    def worker(index: int) -> None:
        admitted = refused = 0
        for call in range(CALLS):
            if breaker.admit(TOOL) is None:
                admitted += 1
                breaker.record(TOOL, SUCCESS if (call + index) % 4 == 0 else FAILURE)
            else:
                refused += 1
            if call % 50 == index:
                clock.advance(1)
        tally.add("admitted", admitted)
        tally.add("refused", refused)

    observer = threading.Thread(target=observe)
    observer.start()
    try:
        run_threads(worker)
    finally:
        done.set()
        observer.join()
    counts = tally.counts
    assert (TOTAL, counts["admitted"], []) == (
        counts["admitted"] + counts["refused"],
        counts["recorded"],
        bad_snapshots,
    )
    state = breaker.state(TOOL)
    assert_valid_chain(changes)
    assert (changes[-1].new_state if changes else CLOSED) == state
    transitions = Counter((change.old_state, change.new_state) for change in changes)
    assert transitions[CLOSED, OPEN] >= 1
    assert transitions[OPEN, HALF_OPEN] >= transitions[HALF_OPEN, OPEN] + transitions[HALF_OPEN, CLOSED]
