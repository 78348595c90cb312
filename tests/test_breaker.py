"""The circuit breaker's state machine, driven by a fake clock (no sleeps anywhere).

Default breaker in these tests: threshold 3, recovery 300 s, one half-open probe.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future

import pytest

from toolresponse import (
    CircuitBreaker,
    CircuitState,
    ErrorCode,
    ToolRegistry,
    ToolResponse,
    ToolStatus,
    validate,
)
from toolresponse.testing import FakeClock
from toolresponse.tools._breaker import BreakerStatus, StateChange, default_is_failure

TOOL = "search"
FAILURE = ToolResponse.error(ErrorCode.EXECUTION_ERROR, "boom")
SUCCESS = ToolResponse.success("ok")
PARTIAL = ToolResponse.partial("first 10 of 50", {"truncated": True})
TYPO = ToolResponse.error(ErrorCode.INVALID_PARAM, "missing 'query'")

CLOSED = CircuitState.CLOSED
OPEN = CircuitState.OPEN
HALF_OPEN = CircuitState.HALF_OPEN


def make(clock: FakeClock, **options: object) -> CircuitBreaker:
    return CircuitBreaker(clock=clock, **options)  # type: ignore[arg-type]


def call(breaker: CircuitBreaker, response: ToolResponse, tool: str = TOOL) -> ToolResponse | None:
    """One call as the registry makes it: admit, and record the response if the tool ran."""
    refusal = breaker.admit(tool)
    if refusal is None:
        breaker.record(tool, response)
    return refusal


def trip(breaker: CircuitBreaker, tool: str = TOOL) -> None:
    for _ in range(breaker.failure_threshold):
        assert call(breaker, FAILURE, tool) is None
    assert OPEN == breaker.state(tool)


def recorder(breaker: CircuitBreaker) -> list[tuple[str, str, str, float, str]]:
    changes: list[tuple[str, str, str, float, str]] = []

    def listen(change: StateChange) -> None:
        changes.append((change.tool_name, change.old_state, change.new_state, change.at, change.reason))

    breaker.add_listener(listen)
    return changes


# -- closed -> open ------------------------------------------------------------------------


@pytest.mark.parametrize("threshold", [1, 2, 3, 5, 10])
def test_opens_after_threshold_consecutive_failures(threshold: int) -> None:
    """The circuit stays closed for threshold - 1 failures and opens at the threshold."""
    breaker = make(FakeClock(), failure_threshold=threshold)
    states = []
    for _ in range(threshold):
        assert call(breaker, FAILURE) is None
        states.append(breaker.state(TOOL))
    assert [CLOSED] * (threshold - 1) + [OPEN] == states


@pytest.mark.parametrize("reset_by", [SUCCESS, PARTIAL], ids=["success", "partial"])
def test_non_failing_response_resets_the_count(reset_by: ToolResponse) -> None:
    """A success or partial response between failures resets the count, so the circuit stays closed."""
    breaker = make(FakeClock())
    for response in [FAILURE, FAILURE, reset_by, FAILURE, FAILURE]:
        assert call(breaker, response) is None
    assert (CLOSED, 2) == (breaker.state(TOOL), breaker.status(TOOL).consecutive_failures)


def test_circuits_are_per_tool() -> None:
    """One tool's open circuit does not refuse another tool."""
    breaker = make(FakeClock())
    trip(breaker, "a")
    assert (None, CLOSED) == (breaker.admit("b"), breaker.state("b"))


# -- open ----------------------------------------------------------------------------------


def test_open_circuit_answers_circuit_open() -> None:
    """An open circuit refuses with a valid, retryable CIRCUIT_OPEN naming the tool, state and failures."""
    breaker = make(FakeClock())
    trip(breaker)
    refusal = breaker.admit(TOOL)
    assert refusal is not None
    assert validate(refusal.to_dict()).valid
    assert (ErrorCode.CIRCUIT_OPEN, True, 300_000) == (
        refusal.code,
        refusal.is_retryable,
        refusal.retry_after_ms,
    )
    assert refusal.error_info is not None
    assert {
        "tool_name": TOOL,
        "state": "open",
        "consecutive_failures": 3,
        "recovery_timeout_s": 300.0,
    } == refusal.error_info.details
    assert TOOL in refusal.text


@pytest.mark.parametrize(
    ("elapsed_s", "retry_after_ms"),
    [
        (0, 300_000),
        (0.0001, 300_000),
        (1, 299_000),
        (1.5, 298_500),
        (150.25, 149_750),
        (299.0004, 1000),
        (299.9995, 1),
        (299.999, 1),
        (299.9999, 1),
    ],
)
def test_retry_after_is_the_time_left_rounded_up(elapsed_s: float, retry_after_ms: int) -> None:
    """retry_after_ms is the time left until recovery, rounded up to a whole millisecond."""
    clock = FakeClock()
    breaker = make(clock)
    trip(breaker)
    clock.advance(elapsed_s)
    refusal = breaker.admit(TOOL)
    assert refusal is not None
    assert retry_after_ms == refusal.retry_after_ms


def test_open_circuit_does_not_run_the_tool_until_recovery() -> None:
    """Every call before the recovery timeout is refused; the one at the timeout is admitted as a probe."""
    clock = FakeClock()
    breaker = make(clock, recovery_timeout_s=10)
    trip(breaker)
    refused = []
    for _ in range(10):
        refused.append(breaker.admit(TOOL) is not None)
        clock.advance(0.999)
    clock.advance(10 - 10 * 0.999)
    assert ([True] * 10, None, HALF_OPEN) == (refused, breaker.admit(TOOL), breaker.state(TOOL))


@pytest.mark.parametrize("straggler", [SUCCESS, FAILURE, TYPO], ids=["success", "failure", "typo"])
def test_outcomes_recorded_while_open_do_not_move_it(straggler: ToolResponse) -> None:
    """A late outcome of a call admitted before the circuit opened leaves it open, timer unchanged."""
    clock = FakeClock()
    breaker = make(clock)
    trip(breaker)
    clock.advance(100)
    breaker.record(TOOL, straggler)
    assert BreakerStatus(
        tool_name=TOOL, state=OPEN, consecutive_failures=3, recovery_in_s=200.0, probes_in_flight=0
    ) == breaker.status(TOOL)


# -- half-open -----------------------------------------------------------------------------


def half_open(clock: FakeClock, **options: object) -> CircuitBreaker:
    breaker = make(clock, **options)
    trip(breaker)
    clock.advance(breaker.recovery_timeout_s)
    assert HALF_OPEN == breaker.state(TOOL)
    return breaker


@pytest.mark.parametrize("max_calls", [1, 2, 5])
def test_half_open_admits_only_max_calls_probes(max_calls: int) -> None:
    """Half-open admits half_open_max_calls probes; the next call is refused with retry_after_ms 0."""
    breaker = half_open(FakeClock(), half_open_max_calls=max_calls)
    admitted = [breaker.admit(TOOL) is None for _ in range(max_calls + 3)]
    refusal = breaker.admit(TOOL)
    assert [True] * max_calls + [False] * 3 == admitted
    assert refusal is not None
    assert refusal.error_info is not None
    assert (ErrorCode.CIRCUIT_OPEN, 0, "half_open") == (
        refusal.code,
        refusal.retry_after_ms,
        refusal.error_info.details and refusal.error_info.details["state"],
    )
    assert validate(refusal.to_dict()).valid


@pytest.mark.parametrize("outcome", [SUCCESS, PARTIAL], ids=["success", "partial"])
def test_probe_success_closes_the_circuit(outcome: ToolResponse) -> None:
    """A successful probe closes the circuit and clears the count."""
    breaker = half_open(FakeClock())
    assert call(breaker, outcome) is None
    assert BreakerStatus(
        tool_name=TOOL, state=CLOSED, consecutive_failures=0, recovery_in_s=None, probes_in_flight=0
    ) == breaker.status(TOOL)


def test_probe_failure_reopens_at_once_for_a_full_recovery_timeout() -> None:
    """A failing probe re-opens the circuit immediately, with the whole recovery timeout ahead."""
    clock = FakeClock()
    breaker = half_open(clock)
    assert call(breaker, FAILURE) is None
    refusal = breaker.admit(TOOL)
    assert refusal is not None
    assert (OPEN, 4, 300_000) == (
        breaker.state(TOOL),
        breaker.status(TOOL).consecutive_failures,
        refusal.retry_after_ms,
    )


def test_probe_without_evidence_releases_its_slot() -> None:
    """A probe answered INVALID_PARAM neither closes nor re-opens the circuit, and frees the slot."""
    breaker = half_open(FakeClock())
    assert breaker.admit(TOOL) is None
    assert breaker.admit(TOOL) is not None
    breaker.record(TOOL, TYPO)
    assert (HALF_OPEN, None) == (breaker.state(TOOL), breaker.admit(TOOL))


def test_lost_probe_slots_are_reset_after_a_recovery_timeout() -> None:
    """A probe never recorded does not wedge half-open: after another recovery timeout a call probes."""
    clock = FakeClock()
    breaker = half_open(clock)
    assert breaker.admit(TOOL) is None  # this probe's caller crashes: never recorded
    clock.advance(299.999)
    assert breaker.admit(TOOL) is not None
    clock.advance(0.001)
    assert breaker.admit(TOOL) is None
    assert breaker.admit(TOOL) is not None
    breaker.record(TOOL, SUCCESS)
    assert CLOSED == breaker.state(TOOL)


def test_zero_recovery_timeout_probes_at_once() -> None:
    """With recovery_timeout_s=0 an opened circuit is probed by the very next call."""
    breaker = make(FakeClock(), recovery_timeout_s=0, failure_threshold=1)
    changes = recorder(breaker)
    call(breaker, FAILURE)
    assert (None, HALF_OPEN) == (breaker.admit(TOOL), breaker.state(TOOL))
    assert ["open", "half_open"] == [new for _, _, new, _, _ in changes]


# -- the failure predicate -----------------------------------------------------------------

NO_EVIDENCE = {ErrorCode.INVALID_PARAM, ErrorCode.CIRCUIT_OPEN}


@pytest.mark.parametrize("code", list(ErrorCode))
def test_default_predicate_counts_every_error_but_the_callers(code: ErrorCode) -> None:
    """Every error code is a failure by default, except INVALID_PARAM and CIRCUIT_OPEN (no evidence)."""
    expected = None if code in NO_EVIDENCE else True
    assert expected == default_is_failure(ToolResponse.error(code, "message"))


@pytest.mark.parametrize("response", [SUCCESS, PARTIAL], ids=["success", "partial"])
def test_default_predicate_does_not_count_results(response: ToolResponse) -> None:
    """Success and partial responses are not failures."""
    assert default_is_failure(response) is False


@pytest.mark.parametrize("code", sorted(NO_EVIDENCE))
def test_callers_mistakes_neither_count_nor_reset(code: ErrorCode) -> None:
    """Any number of INVALID_PARAM or CIRCUIT_OPEN responses leaves the count where it was."""
    breaker = make(FakeClock())
    no_evidence = ToolResponse.error(code, "message")
    for response in [FAILURE, FAILURE, *[no_evidence] * 20]:
        assert call(breaker, response) is None
    assert (CLOSED, 2) == (breaker.state(TOOL), breaker.status(TOOL).consecutive_failures)
    assert call(breaker, FAILURE) is None
    assert OPEN == breaker.state(TOOL)


def only_timeouts(response: ToolResponse) -> bool:
    return response.code is ErrorCode.TIMEOUT


def partial_is_failure(response: ToolResponse) -> bool:
    return not response.is_success


@pytest.mark.parametrize(
    ("predicate", "responses", "state"),
    [
        (only_timeouts, [FAILURE] * 5, CLOSED),
        (only_timeouts, [ToolResponse.error(ErrorCode.TIMEOUT, "slow")] * 3, OPEN),
        (partial_is_failure, [PARTIAL] * 3, OPEN),
        (partial_is_failure, [TYPO] * 3, OPEN),
        (lambda response: None, [FAILURE] * 5, CLOSED),
    ],
    ids=["timeouts-only-ignores-errors", "timeouts-only-trips", "partial-trips", "typo-trips", "never"],
)
def test_custom_predicate_decides_what_fails(
    predicate: Callable[[ToolResponse], bool | None], responses: list[ToolResponse], state: CircuitState
) -> None:
    """A custom is_failure predicate replaces the default."""
    breaker = make(FakeClock(), is_failure=predicate)
    for response in responses:
        assert call(breaker, response) is None
    assert state == breaker.state(TOOL)


# -- manual control and status -------------------------------------------------------------


def test_manual_open_refuses_for_a_recovery_timeout_then_probes() -> None:
    """open() opens even a healthy tool's circuit; it is probed after the recovery timeout."""
    clock = FakeClock()
    breaker = make(clock, recovery_timeout_s=60)
    breaker.open(TOOL)
    refusal = breaker.admit(TOOL)
    clock.advance(60)
    assert refusal is not None
    assert (60_000, 0, None) == (
        refusal.retry_after_ms,
        breaker.status(TOOL).consecutive_failures,
        breaker.admit(TOOL),
    )


def test_manual_open_of_an_open_circuit_restarts_its_timer() -> None:
    """open() on an open circuit starts the recovery timeout again."""
    clock = FakeClock()
    breaker = make(clock)
    trip(breaker)
    clock.advance(200)
    breaker.open(TOOL)
    assert 300.0 == breaker.status(TOOL).recovery_in_s


@pytest.mark.parametrize("setup", ["open", "half_open", "failing"])
@pytest.mark.parametrize("action", ["close", "reset_one", "reset_all"])
def test_close_and_reset_forget_the_circuit(setup: str, action: str) -> None:
    """close(), reset(name) and reset() leave a closed circuit with no failures and no refusal."""
    clock = FakeClock()
    breaker = make(clock)
    if setup == "failing":
        call(breaker, FAILURE)
    else:
        trip(breaker)
        if setup == "half_open":
            clock.advance(300)
    actions: dict[str, Callable[[], None]] = {
        "close": lambda: breaker.close(TOOL),
        "reset_one": lambda: breaker.reset(TOOL),
        "reset_all": breaker.reset,
    }
    actions[action]()
    assert (None, 0, {}) == (
        breaker.admit(TOOL),
        breaker.status(TOOL).consecutive_failures,
        breaker.statuses(),
    )


def test_reset_all_leaves_every_tool_closed() -> None:
    """reset() with no name closes every circuit."""
    breaker = make(FakeClock())
    for tool in ["a", "b", "c"]:
        trip(breaker, tool)
    breaker.reset()
    assert [CLOSED] * 3 == [breaker.state(tool) for tool in ["a", "b", "c"]]


def test_status_reports_state_failures_and_time_to_recovery() -> None:
    """status() and statuses() give state, consecutive failures and seconds to recovery per tool."""
    clock = FakeClock()
    breaker = make(clock)
    trip(breaker, "broken")
    call(breaker, FAILURE, "flaky")
    breaker.open("probed")
    clock.advance(100)
    trip(breaker, "fresh")
    clock.advance(200)
    breaker.admit("probed")
    assert {
        "broken": BreakerStatus(
            tool_name="broken", state=HALF_OPEN, consecutive_failures=3, recovery_in_s=0.0, probes_in_flight=0
        ),
        "flaky": BreakerStatus(
            tool_name="flaky", state=CLOSED, consecutive_failures=1, recovery_in_s=None, probes_in_flight=0
        ),
        "fresh": BreakerStatus(
            tool_name="fresh", state=OPEN, consecutive_failures=3, recovery_in_s=100.0, probes_in_flight=0
        ),
        "probed": BreakerStatus(
            tool_name="probed", state=HALF_OPEN, consecutive_failures=0, recovery_in_s=0.0, probes_in_flight=1
        ),
    } == breaker.statuses()
    assert BreakerStatus(
        tool_name="healthy", state=CLOSED, consecutive_failures=0, recovery_in_s=None, probes_in_flight=0
    ) == breaker.status("healthy")


def test_status_to_dict_is_json_ready() -> None:
    """BreakerStatus.to_dict() gives the state as its string value."""
    breaker = make(FakeClock())
    trip(breaker)
    assert {
        "tool_name": TOOL,
        "state": "open",
        "consecutive_failures": 3,
        "recovery_in_s": 300.0,
        "probes_in_flight": 0,
    } == breaker.status(TOOL).to_dict()


def test_healthy_tools_are_not_tracked() -> None:
    """Successful calls of a tool that never failed keep no circuit."""
    breaker = make(FakeClock())
    for _ in range(5):
        call(breaker, SUCCESS, "healthy")
    assert {} == breaker.statuses()


# -- listeners -----------------------------------------------------------------------------


def test_listeners_see_every_transition_in_order() -> None:
    """A full cycle emits closed->open, open->half_open, half_open->open, ..., half_open->closed."""
    clock = FakeClock()
    breaker = make(clock)
    changes = recorder(breaker)
    trip(breaker)
    clock.advance(300)
    call(breaker, FAILURE)
    clock.advance(300)
    call(breaker, SUCCESS)
    breaker.open(TOOL)
    breaker.close(TOOL)
    assert [
        (TOOL, "closed", "open", 0.0, "failure_threshold"),
        (TOOL, "open", "half_open", 300.0, "recovery_timeout"),
        (TOOL, "half_open", "open", 300.0, "probe_failed"),
        (TOOL, "open", "half_open", 600.0, "recovery_timeout"),
        (TOOL, "half_open", "closed", 600.0, "probe_succeeded"),
        (TOOL, "closed", "open", 600.0, "manual"),
        (TOOL, "open", "closed", 600.0, "manual"),
    ] == changes


def test_no_change_no_event() -> None:
    """Calls that change no state, closing a closed circuit and re-opening an open one emit nothing."""
    breaker = make(FakeClock())
    breaker.open(TOOL)
    changes = recorder(breaker)
    breaker.open(TOOL)
    breaker.admit(TOOL)
    breaker.close("other")
    call(breaker, FAILURE, "other")
    breaker.reset("never-seen")
    assert [] == changes


def test_listener_change_carries_the_failure_count() -> None:
    """Each StateChange carries the consecutive failures after the change."""
    breaker = make(FakeClock(), failure_threshold=4)
    seen: list[int] = []
    breaker.add_listener(lambda change: seen.append(change.consecutive_failures))
    trip(breaker)
    breaker.close(TOOL)
    assert [4, 0] == seen


def test_failing_listener_is_logged_and_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    """An exception in a listener is logged on toolresponse.breaker; the call and other listeners go on."""
    breaker = make(FakeClock(), failure_threshold=1)

    def broken(change: StateChange) -> None:
        raise RuntimeError("listener bug")

    breaker.add_listener(broken)
    changes = recorder(breaker)
    with caplog.at_level(logging.ERROR, logger="toolresponse.breaker"):
        assert call(breaker, FAILURE) is None
    assert [(TOOL, "closed", "open", 0.0, "failure_threshold")] == changes
    assert ["toolresponse.breaker"] == [record.name for record in caplog.records]


def test_listener_may_call_the_breaker() -> None:
    """A listener runs outside the lock: it can read the status and even change state."""
    breaker = make(FakeClock(), failure_threshold=1)
    seen: list[tuple[str, str]] = []

    def listen(change: StateChange) -> None:
        seen.append((change.new_state, breaker.status(change.tool_name).state))
        if change.new_state is OPEN:
            breaker.close(change.tool_name)

    breaker.add_listener(listen)
    call(breaker, FAILURE)
    assert ([("open", "open"), ("closed", "closed")], CLOSED) == (seen, breaker.state(TOOL))


def test_removed_listener_is_not_called() -> None:
    """remove_listener() stops the calls; removing an unknown listener is harmless."""
    breaker = make(FakeClock())
    changes: list[StateChange] = []
    breaker.add_listener(changes.append)
    breaker.remove_listener(changes.append)
    breaker.remove_listener(print)
    trip(breaker)
    assert [] == changes


# -- configuration -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"failure_threshold": 0}, ValueError, "failure_threshold must be >= 1"),
        ({"failure_threshold": 2.5}, TypeError, "failure_threshold must be an int"),
        ({"failure_threshold": True}, TypeError, "failure_threshold must be an int"),
        ({"half_open_max_calls": 0}, ValueError, "half_open_max_calls must be >= 1"),
        ({"recovery_timeout_s": -1}, ValueError, "recovery_timeout_s must be a finite number"),
        ({"recovery_timeout_s": float("inf")}, ValueError, "recovery_timeout_s must be a finite number"),
        ({"recovery_timeout_s": "300"}, TypeError, "recovery_timeout_s must be a number"),
        ({"clock": 12.0}, TypeError, "clock must be a function"),
        ({"is_failure": "errors"}, TypeError, "is_failure must be a function"),
    ],
)
def test_bad_configuration_is_refused(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    """Each bad constructor argument raises a specific error naming it."""
    with pytest.raises(error, match=message):
        CircuitBreaker(**options)  # type: ignore[arg-type]


def test_defaults_match_the_reference_design() -> None:
    """The defaults: threshold 3, recovery 300 s, one half-open probe."""
    breaker = CircuitBreaker()
    assert (3, 300.0, 1) == (
        breaker.failure_threshold,
        breaker.recovery_timeout_s,
        breaker.half_open_max_calls,
    )


def test_add_listener_refuses_a_non_callable() -> None:
    """A listener that is not callable is refused at once."""
    with pytest.raises(TypeError, match="a listener must be a function"):
        CircuitBreaker().add_listener("print")  # type: ignore[arg-type]


# -- the fake clock ------------------------------------------------------------------------


def test_fake_clock_moves_only_when_told() -> None:
    """FakeClock reads its start, moves by advance() and by its fake sleeps, exactly."""
    clock = FakeClock(5)
    readings = [clock()]
    for _ in range(10):
        clock.advance(0.1)
    readings.append(clock())
    clock.sleep(2.5)
    readings.append(clock.now)
    assert ([5.0, 6.0, 8.5], (2.5,)) == (readings, clock.sleeps)


async def test_fake_clock_async_sleep_advances_it() -> None:
    """FakeClock.asleep advances the clock and records the request, without waiting."""
    clock = FakeClock()
    await clock.asleep(30)
    assert (30.0, (30,)) == (clock(), clock.sleeps)


@pytest.mark.parametrize(
    ("seconds", "error"),
    [(-1, ValueError), (float("nan"), ValueError), (float("inf"), ValueError), ("1", TypeError)],
)
def test_fake_clock_refuses_to_go_back_or_nowhere(seconds: float, error: type[Exception]) -> None:
    """advance() and sleep() refuse negative, non-finite and non-numeric durations."""
    clock = FakeClock()
    with pytest.raises(error):
        clock.advance(seconds)
    with pytest.raises(error):
        clock.sleep(seconds)
    assert 0.0 == clock()


def _in_thread(*steps: Callable[[], object]) -> threading.Thread:
    """A started thread that runs ``steps`` in order (the other side of a wait on a fake clock)."""

    def run() -> None:
        for step in steps:
            step()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_fake_wait_on_a_done_future_answers_at_once() -> None:
    """FakeClock.wait on a future that is done gives its result without moving the clock."""
    clock = FakeClock()
    future: Future[str] = Future()
    future.set_result("ready")
    assert ("ready", 0.0, 0) == (clock.wait(future, 0.2), clock(), clock.waiting)


def test_fake_wait_gives_a_result_that_came_before_the_deadline() -> None:
    """A result set at 0.1 s on the clock, under a 0.2 s timeout, is the wait's answer."""
    clock = FakeClock()
    future: Future[str] = Future()
    other = _in_thread(lambda: clock.advance_when_waiting(0.1), lambda: future.set_result("in time"))
    answer = clock.wait(future, 0.2)
    other.join()
    assert ("in time", 0.1, 0) == (answer, clock(), clock.waiting)


def test_fake_wait_raises_what_the_future_raised() -> None:
    """The future's own exception (even a TimeoutError) comes out of the wait as it is."""
    clock = FakeClock()
    future: Future[str] = Future()
    future.set_exception(TimeoutError("upstream"))
    with pytest.raises(TimeoutError, match="upstream"):
        clock.wait(future, 0.2)


@pytest.mark.parametrize("late_result", [False, True], ids=["never-done", "done-after-the-deadline"])
def test_fake_wait_times_out_when_the_clock_passes_the_deadline(late_result: bool) -> None:
    """Advanced past the deadline, the wait raises TimeoutError, even if the result came later
    on the clock (a tool that "took" 10 s), and leaves the future alone."""
    clock = FakeClock()
    future: Future[str] = Future()
    steps: list[Callable[[], object]] = [lambda: clock.advance_when_waiting(10 if late_result else 0.2)]
    if late_result:
        steps.append(lambda: future.set_result("late"))
    other = _in_thread(*steps)
    with pytest.raises(TimeoutError, match=r"no result within 0\.2 s on the fake clock"):
        clock.wait(future, 0.2)
    other.join()
    assert (10.0 if late_result else 0.2, late_result, False, 0) == (
        clock(),
        future.done(),
        future.cancelled(),
        clock.waiting,
    )


def test_advance_when_waiting_gives_up_when_nobody_waits() -> None:
    """advance_when_waiting raises TimeoutError, clock unmoved, when no wait begins in time."""
    clock = FakeClock()
    with pytest.raises(TimeoutError, match="0 of 1 waits began"):
        clock.advance_when_waiting(5, timeout_s=0)
    assert 0.0 == clock()


async def test_fake_async_wait_gives_the_result() -> None:
    """FakeClock.async_wait on an awaitable that finishes gives its result, clock unmoved."""
    clock = FakeClock()

    async def answer() -> str:
        await asyncio.sleep(0)
        return "ready"

    assert ("ready", 0.0, 0) == (await clock.async_wait(answer(), 0.2), clock(), clock.waiting)


@pytest.mark.parametrize("advanced_from", ["the loop", "another thread"])
async def test_fake_async_wait_times_out_and_cancels(advanced_from: str) -> None:
    """Advanced to the deadline (by a task on the loop or another thread), async_wait cancels
    the awaitable, waits for it to end and raises TimeoutError."""
    clock = FakeClock()
    cancelled = asyncio.Event()

    async def hang() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    async def advance_on_the_loop() -> None:
        while not clock.waiting:
            await asyncio.sleep(0)
        clock.advance(0.2)

    advance = (
        advance_on_the_loop()
        if advanced_from == "the loop"
        else asyncio.to_thread(clock.advance_when_waiting, 0.2)
    )
    outcome, _ = await asyncio.gather(clock.async_wait(hang(), 0.2), advance, return_exceptions=True)
    assert (TimeoutError, True, 0.2, 0) == (type(outcome), cancelled.is_set(), clock(), clock.waiting)


async def test_fake_async_wait_times_out_on_a_result_after_the_deadline() -> None:
    """An awaitable that "takes" 10 s on the clock under a 0.2 s timeout is a timeout."""
    clock = FakeClock()

    async def slow() -> str:
        await clock.asleep(10)
        return "late"

    with pytest.raises(TimeoutError):
        await clock.async_wait(slow(), 0.2)
    assert (10.0, 0) == (clock(), clock.waiting)


async def test_fake_async_wait_of_no_time_gives_no_result() -> None:
    """A timeout of 0 is a timeout even for an awaitable ready at once, as with asyncio.wait_for."""
    clock = FakeClock()
    ready = asyncio.get_running_loop().create_future()
    ready.set_result("ready")
    with pytest.raises(TimeoutError):
        await clock.async_wait(ready, 0)
    assert (0.0, 0) == (clock(), clock.waiting)


# -- through the registry ------------------------------------------------------------------


class FlakyTool:
    """A registry tool that fails while ``failing`` is set, counting its runs."""

    def __init__(self) -> None:
        self.failing = True
        self.runs = 0

    def __call__(self, x: int) -> int:
        self.runs += 1
        if self.failing:
            raise ConnectionError("upstream down")
        return x


def guarded_registry(clock: FakeClock, **options: object) -> tuple[ToolRegistry, CircuitBreaker, FlakyTool]:
    breaker = make(clock, **options)
    registry = ToolRegistry(breaker=breaker, clock=clock)
    flaky = FlakyTool()
    registry.register(flaky, name="fetch")
    return registry, breaker, flaky


def test_misspelt_tool_is_not_found_every_time() -> None:
    """A misspelt tool called 10 times answers NOT_FOUND every time, never CIRCUIT_OPEN (the
    HelloAgents breaker opened on the 4th call), and no circuit is kept for it."""
    registry, breaker, _ = guarded_registry(FakeClock())
    codes = [registry.execute("fecth", {"x": 1}).code for _ in range(10)]
    assert ([ErrorCode.NOT_FOUND] * 10, {}) == (codes, breaker.statuses())


def test_invalid_arguments_never_open_the_circuit() -> None:
    """Ten calls with bad arguments answer INVALID_PARAM every time and leave the circuit closed."""
    registry, breaker, flaky = guarded_registry(FakeClock())
    codes = [registry.execute("fetch", {"x": "one"}).code for _ in range(10)]
    assert ([ErrorCode.INVALID_PARAM] * 10, CLOSED, 0) == (codes, breaker.state("fetch"), flaky.runs)


def test_registry_trips_refuses_without_running_and_recovers() -> None:
    """Through the registry: 3 failures open the circuit, the next calls are refused without running
    the tool (with the call's context filled in), and after the recovery timeout a probe closes it."""
    clock = FakeClock()
    registry, breaker, flaky = guarded_registry(clock, recovery_timeout_s=60)
    codes = [registry.execute("fetch", {"x": 1}).code for _ in range(3)]
    refusal = registry.execute("fetch", {"x": 1}, call_id="c-4")
    clock.advance(60)
    flaky.failing = False
    probe = registry.execute("fetch", {"x": 2})
    assert [ErrorCode.EXECUTION_ERROR] * 3 == codes
    assert (
        ErrorCode.CIRCUIT_OPEN,
        60_000,
        {"tool_name": "fetch", "params_input": {"x": 1}, "call_id": "c-4"},
    ) == (
        refusal.code,
        refusal.retry_after_ms,
        refusal.context,
    )
    assert validate(refusal.to_dict()).valid
    assert (ToolStatus.SUCCESS, 4, CLOSED) == (probe.status, flaky.runs, breaker.state("fetch"))


def test_probe_with_bad_arguments_keeps_the_circuit_half_open() -> None:
    """The registry asks the breaker before it checks the arguments: a probe with bad arguments
    releases its slot without closing the circuit, and the next good call probes."""
    clock = FakeClock()
    registry, breaker, flaky = guarded_registry(clock)
    for _ in range(3):
        registry.execute("fetch", {"x": 1})
    clock.advance(300)
    flaky.failing = False
    typo = registry.execute("fetch", {"y": 1})
    state_after_typo = breaker.state("fetch")
    probe = registry.execute("fetch", {"x": 1})
    assert (ErrorCode.INVALID_PARAM, HALF_OPEN, ToolStatus.SUCCESS, CLOSED) == (
        typo.code,
        state_after_typo,
        probe.status,
        breaker.state("fetch"),
    )


def test_registry_events_carry_the_breaker_state() -> None:
    """Each ToolCallEvent names the tool's circuit state after the call."""
    registry, _, _ = guarded_registry(FakeClock(), failure_threshold=2)
    states: list[CircuitState | None] = []
    registry.add_listener(lambda event: states.append(event.breaker_state))
    for _ in range(3):
        registry.execute("fetch", {"x": 1})
    registry.execute("fecth", {"x": 1})
    assert [CLOSED, OPEN, OPEN, None] == states
