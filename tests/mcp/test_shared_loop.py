"""The loop an MCP connection lives on: a waiting thread runs it itself when nobody else does, the
loop's own thread runs what is handed to it otherwise, and calls from threads and event loops at
once all end, through a real server."""

from __future__ import annotations

import _thread
import asyncio
import functools
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from toolresponse import ErrorCode, ToolRegistry, ToolResponse, ToolStatus
from toolresponse.mcp import McpConnection, attach
from toolresponse.mcp._loop import LoopShutDown, ReentrantWait, SharedLoop

SDK_SERVER = Path(__file__).parent / "sdk_server.py"
BOUND_S = 30.0
"""How long a test waits for what must end before it says it hung (no bound on speed)."""


class Caller:
    """A call made in a daemon thread of its own, so that a test bounds its wait for the call:
    one that hangs fails the test instead of stalling the suite."""

    def __init__(self, function: Callable[[], Any]) -> None:
        self._outcome: list[tuple[bool, Any]] = []
        self._thread = threading.Thread(target=self._run, args=(function,), daemon=True)
        self._thread.start()

    def _run(self, function: Callable[[], Any]) -> None:
        try:
            self._outcome.append((True, function()))
        except BaseException as error:
            self._outcome.append((False, error))

    def ended(self) -> tuple[bool, Any]:
        """``(True, value)`` or ``(False, what it raised)``; fails the test if the call hangs."""
        self._thread.join(BOUND_S)
        assert not self._thread.is_alive(), "the call did not end"
        return self._outcome[0]

    def value(self) -> Any:
        returned, value = self.ended()
        if not returned:
            raise value
        return value

    def raised(self) -> BaseException:
        returned, value = self.ended()
        assert not returned, f"the call returned {value!r}"
        assert isinstance(value, BaseException)
        return value


def _until(condition: Callable[[], bool]) -> None:
    """Wait (bounded) until ``condition`` holds, polling: for a state another thread reaches."""
    deadline = time.monotonic() + BOUND_S
    while not condition():
        assert time.monotonic() < deadline, "the state was never reached"
        time.sleep(0.005)


class Forever:
    """Coroutines that wait until cancelled, counting those started and those cancelled."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.started = 0
        self.cancelled = 0

    async def wait(self) -> None:
        with self._lock:
            self.started += 1
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            with self._lock:
                self.cancelled += 1
            raise


@pytest.fixture
def shared() -> Iterator[SharedLoop]:
    loop = SharedLoop("test-shared-loop")
    yield loop
    loop.shutdown()


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as in an interactive Python, whatever this process
    inherited: a command a shell starts in the background ignores SIGINT, and Python then
    leaves it ignored (a test that sends one would wait for good)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


async def _thread_ident() -> int:
    await asyncio.sleep(0)
    return threading.get_ident()


def test_a_waiting_thread_runs_the_loop_itself(shared: SharedLoop) -> None:
    assert threading.get_ident() == shared.wait(_thread_ident())


def test_a_call_from_another_loop_is_run_by_the_loops_own_thread(shared: SharedLoop) -> None:
    ran_on = asyncio.run(shared.wait_async(_thread_ident()))
    assert threading.get_ident() != ran_on
    assert shared._thread.ident == ran_on


def test_a_waiting_thread_takes_the_loop_back_from_its_own_thread(shared: SharedLoop) -> None:
    asyncio.run(shared.wait_async(_thread_ident()))  # the loop's own thread now runs it
    assert threading.get_ident() == shared.wait(_thread_ident())
    assert shared._thread.ident == asyncio.run(shared.wait_async(_thread_ident()))


def test_a_parked_loop_is_run_again_by_its_own_thread_after_a_quiet_spell(shared: SharedLoop) -> None:
    shared.wait(_thread_ident())  # this thread ran the loop and left it parked
    ran = threading.Event()
    ran_on: list[int] = []

    def note() -> None:  # what the server might send meanwhile: nothing but the loop runs it
        ran_on.append(threading.get_ident())
        ran.set()

    shared.loop.call_soon_threadsafe(note)
    assert ran.wait(60)
    assert [shared._thread.ident] == ran_on


def test_threads_and_event_loops_waiting_at_once_all_get_their_answers(shared: SharedLoop) -> None:
    async def echo(value: int) -> int:
        for _ in range(3):
            await asyncio.sleep(0)
        return value

    async def from_a_loop(base: int) -> list[int]:
        return [await shared.wait_async(echo(base + n)) for n in range(50)]

    def from_a_thread(base: int) -> list[int]:
        return [shared.wait(echo(base + n)) for n in range(50)]

    with ThreadPoolExecutor(6) as pool:
        threads = [pool.submit(from_a_thread, 1000 * k) for k in range(4)]
        loops = [pool.submit(asyncio.run, from_a_loop(1000 * k)) for k in range(4, 6)]
        answers = [future.result(timeout=120) for future in threads + loops]
    assert [[1000 * k + n for n in range(50)] for k in range(6)] == answers


def test_cancelling_the_await_cancels_the_coroutine(shared: SharedLoop) -> None:
    started = threading.Event()
    cancelled = threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def main() -> None:
        waiting = asyncio.ensure_future(shared.wait_async(forever()))
        while not started.is_set():
            await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting

    asyncio.run(main())
    assert cancelled.wait(60)


def test_an_exception_reaches_the_waiter(shared: SharedLoop) -> None:
    async def fail() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        shared.wait(fail())
    with pytest.raises(ValueError, match="no"):
        asyncio.run(shared.wait_async(fail()))


def test_work_handed_after_shutdown_is_refused(shared: SharedLoop) -> None:
    shared.shutdown()
    assert not shared.alive
    with pytest.raises(LoopShutDown):
        shared.wait(_thread_ident())
    with pytest.raises(LoopShutDown):
        asyncio.run(shared.wait_async(_thread_ident()))


def test_a_synchronous_wait_on_the_loop_itself_is_refused(shared: SharedLoop) -> None:
    async def nested() -> None:
        shared.wait(_thread_ident())

    with pytest.raises(ReentrantWait, match="never end"):
        shared.wait(nested())


def test_a_parked_loop_is_run_again_after_a_waiting_thread_took_it_from_its_own_thread(
    shared: SharedLoop,
) -> None:
    asyncio.run(shared.wait_async(_thread_ident()))  # the loop's own thread runs it
    shared.wait(_thread_ident())  # this thread asked for it, ran it, and left it parked
    ran = threading.Event()
    shared.loop.call_soon_threadsafe(ran.set)  # what the server might send meanwhile
    assert ran.wait(BOUND_S)


def test_many_threads_and_loops_waiting_at_once_each_get_their_own_answer(shared: SharedLoop) -> None:
    async def echo(value: int) -> int:
        for _ in range(value % 4):
            await asyncio.sleep(0)
        return value

    def from_a_thread(base: int) -> list[int]:
        return [shared.wait(echo(base + n)) for n in range(40)]

    async def from_a_loop(base: int) -> list[int]:
        return list(await asyncio.gather(*(shared.wait_async(echo(base + n)) for n in range(40))))

    callers = [Caller(functools.partial(from_a_thread, 1000 * k)) for k in range(12)]
    callers += [Caller(functools.partial(asyncio.run, from_a_loop(1000 * k))) for k in range(12, 16)]
    assert [[1000 * k + n for n in range(40)] for k in range(16)] == [caller.value() for caller in callers]


def _wakeups_while_idle(shared: SharedLoop) -> int:
    """How many times, over an idle second and a half, the loop waited for I/O or a thread waited
    for its turn: an idle loop does so a few dozen times at most (its parking spells), one that
    spins, and burns a core, hundreds of thousands of times. (A count, not a duration.)"""
    woken = [0]
    selector = shared.loop._selector  # type: ignore[attr-defined]
    select, wait = selector.select, shared._turns.wait

    def counted_select(timeout: float | None = None) -> Any:
        woken[0] += 1
        return select(timeout)

    def counted_wait(timeout: float | None = None) -> bool:
        woken[0] += 1
        return wait(timeout)

    selector.select = counted_select
    shared._turns.wait = counted_wait  # type: ignore[method-assign]
    try:
        time.sleep(1.5)
    finally:
        selector.select, shared._turns.wait = select, wait  # type: ignore[method-assign]
    return woken[0]


@pytest.mark.parametrize("driven", [False, True], ids=["parked", "run-by-a-waiting-thread"])
def test_an_idle_loop_costs_no_cpu(shared: SharedLoop, driven: bool) -> None:
    asyncio.run(shared.wait_async(_thread_ident()))
    shared.wait(_thread_ident())
    if driven:  # a thread waits on a call that does not end, running the loop meanwhile
        forever = Forever()
        Caller(lambda: shared.wait(forever.wait()))
        _until(lambda: forever.started == 1)
    assert _wakeups_while_idle(shared) < 1000


def test_shutdown_ends_every_waiters_work_with_loop_shut_down(shared: SharedLoop) -> None:
    forever = Forever()
    callers = [Caller(lambda: shared.wait(forever.wait())) for _ in range(6)]
    callers += [Caller(lambda: asyncio.run(shared.wait_async(forever.wait()))) for _ in range(3)]
    _until(lambda: forever.started == 9)
    shared.shutdown()
    assert [LoopShutDown] * 9 == [type(caller.raised()) for caller in callers]
    assert 9 == forever.cancelled
    assert shared.loop.is_closed()


def test_work_handed_while_the_loop_shuts_down_ends(shared: SharedLoop) -> None:
    async def echo(value: int) -> int:
        await asyncio.sleep(0)
        return value

    def keep_waiting() -> int:
        waits = 0
        while True:
            try:
                shared.wait(echo(waits))
            except LoopShutDown:
                return waits
            waits += 1

    callers = [Caller(keep_waiting) for _ in range(8)]
    _until(lambda: shared._handed > 0)
    shared.shutdown()
    for caller in callers:
        caller.value()
    assert shared.loop.is_closed()


def test_a_stop_asked_for_by_a_shutdown_after_the_run_ended_does_not_cut_the_loops_end_short(
    shared: SharedLoop,
) -> None:
    """The thread running the loop is done (its run is ending) when a shutdown asks that run to
    stop: the request comes late, and is left for the loop's end."""
    busy, free = threading.Event(), threading.Event()

    def be_busy() -> None:
        busy.set()
        free.wait(BOUND_S)

    def queued() -> int:
        return len(shared.loop._ready)  # type: ignore[attr-defined]  # the loop's callbacks to run

    async def ticks() -> AsyncIterator[None]:
        while True:
            yield

    left_open = ticks()  # an async generator that the loop's end closes (as the SDK leaves some)

    async def end_busy() -> str:
        await anext(left_open)
        asyncio.get_running_loop().call_soon(be_busy)  # runs as the run is told to end
        return "done"

    driver = Caller(lambda: shared.wait(end_busy()))
    assert busy.wait(BOUND_S)
    before = queued()
    closer = Caller(shared.shutdown)
    _until(lambda: queued() == before + 1)  # the shutdown's request to stop
    free.set()
    assert "done" == driver.value()
    closer.value()
    assert shared.loop.is_closed()


def test_shutdown_from_two_threads_at_once_and_again_returns(shared: SharedLoop) -> None:
    forever = Forever()
    waiter = Caller(lambda: shared.wait(forever.wait()))
    _until(lambda: forever.started == 1)
    closers = [Caller(shared.shutdown) for _ in range(2)]
    for closer in closers:
        closer.value()
    shared.shutdown()
    assert isinstance(waiter.raised(), LoopShutDown)
    assert not shared.alive


def test_shutdown_from_a_coroutine_on_the_loop_does_not_wait_for_itself(shared: SharedLoop) -> None:
    async def shut_down() -> str:
        shared.shutdown()
        return "done"

    waited = Caller(lambda: shared.wait(shut_down()))
    returned, value = waited.ended()
    assert ("done" == value) if returned else isinstance(value, LoopShutDown)
    assert not shared.alive


def test_an_interrupt_in_the_driving_thread_cancels_its_work_and_leaves_the_loop_usable(
    shared: SharedLoop,
) -> None:
    forever = Forever()

    def interrupt() -> None:
        raise KeyboardInterrupt

    async def interrupted() -> None:
        asyncio.get_running_loop().call_soon(interrupt)  # as a signal would, in the middle
        await forever.wait()

    with pytest.raises(KeyboardInterrupt):
        shared.wait(interrupted())
    _until(lambda: forever.cancelled == 1)
    assert 42 == Caller(lambda: shared.wait(_answer(42))).value()
    assert 43 == shared.wait(_answer(43))


@pytest.mark.usefixtures("ctrl_c_raises")
def test_an_interrupt_in_a_thread_that_handed_its_work_over_cancels_the_work(shared: SharedLoop) -> None:
    forever = Forever()
    driver = Caller(lambda: shared.wait(forever.wait()))  # another thread runs the loop
    _until(lambda: forever.started == 1)

    def interrupt_once_handed() -> None:
        _until(lambda: forever.started == 2)
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)  # as Ctrl-C does

    assert threading.current_thread() is threading.main_thread()
    interrupter = Caller(interrupt_once_handed)
    with pytest.raises(KeyboardInterrupt):
        shared.wait(forever.wait())
    interrupter.value()
    _until(lambda: forever.cancelled == 1)
    shared.shutdown()
    assert isinstance(driver.raised(), LoopShutDown)


@pytest.mark.usefixtures("ctrl_c_raises")
def test_an_interrupt_that_comes_just_before_the_wait_blocks_is_not_lost(shared: SharedLoop) -> None:
    """A signal whose C handler has run but whose Python handler is pending does not interrupt a
    lock's wait (the race a Ctrl-C lands in when it comes just before a thread blocks):
    ``interrupt_main`` makes exactly that state. The waiting thread acts on it within its poll,
    not after the work ends (never, here); a real SIGINT unsticks the test if it does not."""
    forever = Forever()
    driver = Caller(lambda: shared.wait(forever.wait()))  # another thread runs the loop
    _until(lambda: forever.started == 1)
    interrupted = threading.Event()
    second_needed: list[bool] = []

    def interrupt_pending() -> None:
        _until(lambda: forever.started == 2)
        _thread.interrupt_main()  # pending, as a signal that came before the wait blocked
        if not interrupted.wait(BOUND_S / 3):
            second_needed.append(True)
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    interrupter = Caller(interrupt_pending)
    with pytest.raises(KeyboardInterrupt):
        shared.wait(forever.wait())
    interrupted.set()
    interrupter.value()
    assert [] == second_needed, "the pending interrupt was held back until a second one came"
    _until(lambda: forever.cancelled == 1)
    shared.shutdown()
    assert isinstance(driver.raised(), LoopShutDown)


@pytest.mark.parametrize("driving", [True, False], ids=["driving", "handed"])
def test_a_wait_that_times_out_cancels_its_work(shared: SharedLoop, driving: bool) -> None:
    forever = Forever()
    other = Forever()
    if not driving:  # another thread runs the loop: this wait hands its work over
        driver = Caller(lambda: shared.wait(other.wait()))
        _until(lambda: other.started == 1)
    with pytest.raises(TimeoutError):
        shared.wait(forever.wait(), timeout_s=0.2)
    _until(lambda: forever.cancelled == 1)
    if not driving:
        shared.shutdown()
        assert isinstance(driver.raised(), LoopShutDown)


async def _answer(value: int) -> int:
    await asyncio.sleep(0)
    return value


def test_remote_calls_from_threads_and_a_loop_at_once_all_succeed() -> None:
    registry = ToolRegistry()
    with attach(registry, [sys.executable, str(SDK_SERVER)], timeout_s=60.0):

        def from_a_thread() -> list[ToolStatus]:
            return [registry.execute("noop").status for _ in range(15)]

        async def from_a_loop() -> list[ToolStatus]:
            return [(await registry.aexecute("noop")).status for _ in range(15)]

        with ThreadPoolExecutor(4) as pool:
            futures = [pool.submit(from_a_thread) for _ in range(3)] + [
                pool.submit(asyncio.run, from_a_loop())
            ]
            statuses = [status for future in futures for status in future.result(timeout=300)]
    assert [ToolStatus.SUCCESS] * 60 == statuses


# -- through a real server, from many threads and loops ------------------------------------


@pytest.fixture
def server() -> Iterator[tuple[ToolRegistry, McpConnection]]:
    """The SDK-written test server, with a timeout long enough for a busy machine (no speed bound)."""
    registry = ToolRegistry()
    with attach(registry, [sys.executable, str(SDK_SERVER)], timeout_s=60.0) as connection:
        yield registry, connection


def _hanging(connection: McpConnection) -> int:
    """How many calls of ``hang`` the server has in progress."""
    response = connection.call("hanging")
    assert ToolStatus.SUCCESS is response.status, response.text
    count: int = response.data["result"]
    return count


def test_each_of_many_threads_and_loops_calling_at_once_gets_its_own_answer(
    server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, _ = server

    def from_a_thread(name: str) -> list[str]:
        return [registry.execute("echo", {"text": f"{name}-{n}"}).text for n in range(10)]

    async def from_a_loop(name: str) -> list[str]:
        calls = (registry.aexecute("echo", {"text": f"{name}-{n}"}) for n in range(10))
        return [response.text for response in await asyncio.gather(*calls)]

    callers = [Caller(functools.partial(from_a_thread, f"t{k}")) for k in range(12)]
    callers += [Caller(functools.partial(asyncio.run, from_a_loop(f"l{k}"))) for k in range(4)]
    names = [f"t{k}" for k in range(12)] + [f"l{k}" for k in range(4)]
    assert [[f"{name}-{n}" for n in range(10)] for name in names] == [caller.value() for caller in callers]


def test_an_idle_connection_costs_no_cpu(server: tuple[ToolRegistry, McpConnection]) -> None:
    registry, connection = server
    assert ToolStatus.SUCCESS is asyncio.run(registry.aexecute("noop")).status
    assert ToolStatus.SUCCESS is registry.execute("noop").status
    assert _wakeups_while_idle(connection._shared) < 1000


def test_calls_past_their_timeout_while_others_go_on_each_answer_in_time() -> None:
    registry = ToolRegistry()
    with attach(
        registry, [sys.executable, str(SDK_SERVER)], timeout_s=4.0, connect_timeout_s=60.0
    ) as connection:
        hangs = [Caller(lambda: registry.execute("hang")) for _ in range(3)]
        hangs += [Caller(lambda: asyncio.run(registry.aexecute("hang")))]

        def echo_until_the_hangs_end() -> set[bool]:
            echoed = set()
            while _hanging(connection):
                echoed.add("go on" == registry.execute("echo", {"text": "go on"}).text)
            return echoed

        echoes = [Caller(echo_until_the_hangs_end) for _ in range(3)]
        assert [ErrorCode.TIMEOUT] * 4 == [caller.value().code for caller in hangs]
        assert [True] * 3 == [all(caller.value()) for caller in echoes]
        assert ToolStatus.SUCCESS is registry.execute("noop").status


def test_a_server_dying_mid_call_ends_every_call_in_flight_with_a_network_error(
    server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, connection = server
    hangs = [Caller(lambda: registry.execute("hang")) for _ in range(5)]
    hangs += [Caller(lambda: asyncio.run(registry.aexecute("hang"))) for _ in range(2)]
    _until(lambda: 7 == _hanging(connection))
    died = registry.execute("die")
    assert [ErrorCode.NETWORK_ERROR] * 8 == [died.code] + [caller.value().code for caller in hangs]
    assert ToolStatus.SUCCESS is registry.execute("noop").status  # the call after reconnects


@pytest.mark.usefixtures("ctrl_c_raises")
def test_an_interrupt_during_a_synchronous_call_cancels_the_remote_call(
    server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, connection = server

    def interrupt_once_in_flight() -> None:
        _until(lambda: 1 == _hanging(connection))
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)  # as Ctrl-C does

    assert threading.current_thread() is threading.main_thread()
    interrupter = Caller(interrupt_once_in_flight)
    with pytest.raises(KeyboardInterrupt):
        registry.execute("hang")
    interrupter.value()
    _until(lambda: 0 == _hanging(connection))
    assert ToolStatus.SUCCESS is registry.execute("noop").status


@pytest.mark.parametrize("attempt", range(3))  # the race it once lost is won by chance at times
def test_closing_while_threads_and_loops_keep_calling_answers_each_call(
    server: tuple[ToolRegistry, McpConnection], attempt: int
) -> None:
    """Callers retry the retryable NETWORK_ERROR until the connection is closed: calls are made
    all through the close, the shutdown of the loop too."""
    registry, connection = server

    def call_until_closed() -> set[tuple[ToolStatus, bool]]:
        seen = set()
        while True:
            response = registry.execute("noop")
            seen.add((response.status, response.is_error and "is closed" in response.text))
            if response.is_error and connection.closed:
                return seen

    async def acall_until_closed() -> set[tuple[ToolStatus, bool]]:
        seen = set()
        while True:
            response = await registry.aexecute("noop")
            seen.add((response.status, response.is_error and "is closed" in response.text))
            if response.is_error and connection.closed:
                return seen

    callers = [Caller(call_until_closed) for _ in range(8)]
    callers += [Caller(functools.partial(asyncio.run, acall_until_closed())) for _ in range(2)]
    assert ToolStatus.SUCCESS is registry.execute("noop").status
    connection.close()
    answers = set().union(*(caller.value() for caller in callers))
    assert answers <= {(ToolStatus.SUCCESS, False), (ToolStatus.ERROR, True)}
    assert connection._shared.loop.is_closed()  # its end ran to the end


_FIRST_START_ONLY = """
import pathlib, runpy, sys, time

starts = pathlib.Path(sys.argv[1])
first = not starts.exists()
with starts.open("a") as log:
    log.write("start\\n")
if not first:
    time.sleep(1)  # the server restarts slowly, then fails: calls meet a connection reconnecting
    sys.exit(1)
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_a_call_waiting_to_reconnect_when_the_connection_closes_does_not_reconnect(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    registry = ToolRegistry()
    command = [sys.executable, "-c", _FIRST_START_ONLY, str(starts), str(SDK_SERVER)]
    connection = attach(registry, command, timeout_s=60.0)
    assert ErrorCode.NETWORK_ERROR is registry.execute("die").code
    reconnecting = Caller(lambda: registry.execute("noop"))
    _until(lambda: ["start", "start"] == starts.read_text().split())  # the restart is under way
    restart = connection._session_task
    waiting = Caller(lambda: registry.execute("noop"))  # waits for that reconnection to end
    _until(lambda: connection._lock is not None and len(connection._lock._waiters or ()) == 1)
    connection.close()
    assert ErrorCode.NETWORK_ERROR is reconnecting.value().code  # the restart failed
    assert "is closed" in waiting.value().text
    assert restart is connection._session_task  # no session was begun after the close
    assert connection._shared.loop.is_closed()


def test_closing_from_two_threads_at_once_and_again_returns(
    server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, connection = server
    closers = [Caller(connection.close) for _ in range(2)]
    for closer in closers:
        closer.value()
    connection.close()
    assert "is closed" in registry.execute("noop").text


@pytest.mark.parametrize("asynchronous", [False, True], ids=["execute", "aexecute"])
def test_closing_from_a_listener_returns(
    server: tuple[ToolRegistry, McpConnection], asynchronous: bool
) -> None:
    registry, connection = server
    registry.add_listener(lambda _event: connection.close())

    def call() -> ToolResponse:
        return asyncio.run(registry.aexecute("noop")) if asynchronous else registry.execute("noop")

    assert ToolStatus.SUCCESS is Caller(call).value().status
    assert connection.closed
    assert "is closed" in Caller(call).value().text


def test_closing_from_a_coroutine_on_the_connections_loop_returns(
    server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, connection = server

    async def close() -> str:
        connection.close()
        return "closed"

    returned, value = Caller(lambda: connection.run(close())).ended()
    assert ("closed" == value) if returned else isinstance(value, LoopShutDown)
    assert connection.closed
    assert "is closed" in registry.execute("noop").text


def test_a_synchronous_call_from_a_coroutine_on_the_connections_loop_answers_an_error(
    server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, connection = server

    async def call_back() -> tuple[ToolResponse, ToolResponse]:
        return connection.call("noop"), registry.execute("noop")

    direct, registered = Caller(lambda: connection.run(call_back())).value()
    assert [ErrorCode.EXECUTION_ERROR] * 2 == [direct.code, registered.code]
    assert "own connection's loop" in direct.text
    assert ToolStatus.SUCCESS is registry.execute("noop").status


_EXIT_WITH_CALLS_IN_FLIGHT = """
import asyncio, sys, threading
from toolresponse import ToolRegistry
from toolresponse.mcp import attach

registry = ToolRegistry()
connection = attach(registry, [sys.executable, sys.argv[1]], timeout_s=60.0)
assert registry.execute("noop").status.value == "success"
threading.Thread(target=registry.execute, args=("hang",), daemon=True).start()
threading.Thread(target=asyncio.run, args=(registry.aexecute("hang"),), daemon=True).start()
while registry.execute("hanging").data["result"] < 2:
    pass
"""


def test_the_interpreter_exits_with_calls_in_flight_on_an_open_connection() -> None:
    """No hang at exit, and the session is ended there: the server (whose stderr is the
    child's) exits cleanly rather than into a broken pipe."""
    ran = subprocess.run(
        [sys.executable, "-c", _EXIT_WITH_CALLS_IN_FLIGHT, str(SDK_SERVER)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (0, "") == (ran.returncode, ran.stderr)
