"""The event loop of an MCP connection, run by whichever thread waits on it.

The SDK's client lives on one event loop for the connection's life. A thread
that calls a remote tool synchronously would hop to a loop thread and back
(two thread wake-ups per call, each a scheduler round trip that a busy machine
makes slow), so ``SharedLoop`` lets that thread run the loop itself while it
waits: when no thread runs the loop, the waiting thread does, for as long as
its call takes, and leaves it parked. Work handed to the loop otherwise (a call
from another event loop, a thread that finds the loop run by another thread)
is run by the loop's own daemon thread, which keeps running it until a waiting
thread asks for it or the loop shuts down.

Between calls the loop is parked for at most ``QUIET_S``: a thread that calls
again sooner finds it free, and after a quiet spell the loop's own thread runs
it again, so that what the server sends between calls (a notification, a ping,
its end) is handled as it comes.

Work whose waiter goes away (an interrupt, its timeout) is cancelled. At
``shutdown`` the loop's own thread runs the loop a last time, to end what was
handed to it (cancelled; each waiter gets ``LoopShutDown``), and closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, Final, TypeVar

__all__ = ["LoopShutDown", "ReentrantWait", "SharedLoop"]

T = TypeVar("T")

_JOIN_TIMEOUT_S: Final = 10.0
QUIET_S: Final = 0.05
"""How long the loop may stay parked (nobody running it, nothing handed to it, no thread taking
a turn) before its own thread runs it again, to handle what the server sends between calls."""


INTERRUPT_POLL_S: Final = 0.25
"""The longest a thread waiting on the loop blocks at once. A signal (Ctrl-C) that arrives just
before a thread blocks on a lock runs its C handler but does not interrupt the lock's wait, which
without a limit would hold its KeyboardInterrupt back until the work ends, perhaps never; back
in Python after at most this long, the thread raises it."""


class LoopShutDown(RuntimeError):
    """Work handed to a ``SharedLoop`` that has shut down."""


class ReentrantWait(RuntimeError):
    """A synchronous wait made from a coroutine running on the loop it would wait on: the loop
    cannot run the work while it runs the waiter, so the wait would never end."""


class SharedLoop:
    """An event loop that the threads waiting on it take turns to run (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._turns = threading.Condition()
        self._driver: int | None = None
        """The thread running the loop now, if any."""
        self._handed = 0
        """Coroutines handed to the loop and not ended: someone must run the loop."""
        self._wanting = 0
        """Threads waiting for the loop's own thread to leave the loop to them."""
        self._turns_taken = 0
        """How many times a waiting thread has run the loop (tells a quiet spell from a busy one)."""
        self._yield_asked = False
        self._stopping = False
        self._finishing = False
        """Whether the loop's own thread is ending the loop after ``shutdown`` (``_finish``)."""
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        """Whether the loop can still run work (it has not shut down)."""
        return not self._stopping and self._thread.is_alive()

    # -- the loop's own thread --------------------------------------------------------------

    def _serve(self) -> None:
        """Run the loop whenever work was handed to it, or it has been parked for ``QUIET_S``, and
        no other thread runs it or waits to; until a waiting thread asks for it or the loop shuts
        down, and then end what was left on it (``_finish``)."""
        me = threading.get_ident()
        turns = self._turns
        while True:
            with turns:
                while not self._stopping:
                    free = self._driver is None and self._wanting == 0
                    if free and self._handed > 0:
                        break
                    # Timed even while another thread runs the loop or waits to: a thread that
                    # leaves it tells only when work is left, so this one looks again after a
                    # quiet spell (else a loop taken from this thread stays parked for good).
                    taken = self._turns_taken
                    quiet = not turns.wait(QUIET_S) and taken == self._turns_taken
                    if quiet and self._driver is None and self._wanting == 0:
                        break  # parked through a quiet spell: run it, for what the server sends
                if self._stopping:
                    break
                self._driver = me
                self._yield_asked = False
            try:
                self.loop.run_forever()
            finally:
                with turns:
                    self._driver = None
                    turns.notify_all()
        self._finish()

    def _finish(self) -> None:
        """After ``shutdown``: once the thread running the loop has left it (its run was stopped),
        run the loop until every task on it has ended, cancelled, and every coroutine handed to
        it too (a waiter that handed one just before the shutdown gets its end, never a silence),
        then close the loop. Bounded: a task that will not end leaves the loop open.

        A request to stop a run that comes late (a shutdown's, or the end of a waiting thread's
        run whose work ended as the run was stopped) must not cut these runs short: the first run
        takes what is queued, and ``_leave`` does nothing from then on."""
        with self._turns:
            if not self._turns.wait_for(lambda: self._driver is None, _JOIN_TIMEOUT_S):
                return
            self._driver = threading.get_ident()
            self._finishing = True
        self.loop.call_soon(self.loop.stop)
        self.loop.run_forever()
        cancelled: set[asyncio.Task[Any]] = set()
        deadline = time.monotonic() + _JOIN_TIMEOUT_S
        while True:
            tasks = asyncio.all_tasks(self.loop)
            with self._turns:
                handed = self._handed
            if not tasks and not handed:
                break
            if time.monotonic() > deadline:
                return
            for task in tasks - cancelled:
                task.cancel()
            cancelled |= tasks
            self.loop.run_until_complete(
                asyncio.wait(tasks, timeout=QUIET_S) if tasks else asyncio.sleep(0.001)
            )
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()

    # -- waiting from a thread ----------------------------------------------------------------

    def wait(self, coroutine: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run ``coroutine`` on the loop and wait for its end (at most ``timeout_s``: then
        ``TimeoutError``), running the loop in this thread when no other thread runs it. The
        coroutine is cancelled when the wait ends without it (its timeout, an interrupt);
        ``LoopShutDown`` when the loop shuts down first."""
        running = _running_loop()
        if running is self.loop:
            coroutine.close()
            raise ReentrantWait("a synchronous MCP call made on its own connection's loop would never end")
        if running is None and self._take_turn():
            return self._drive(coroutine if timeout_s is None else asyncio.wait_for(coroutine, timeout_s))
        done = threading.Lock()
        done.acquire()
        started = self._hand(coroutine, lambda _task: done.release())
        try:
            ended = _acquired(done, timeout_s)
        except BaseException:  # an interrupt: nobody waits for the work any more
            self._cancel_soon(started)
            raise
        if not ended:
            self._cancel_soon(started)
            raise TimeoutError(f"the MCP connection's loop did not end the work within {timeout_s:g} s")
        if started[0].cancelled() and self._stopping:
            raise LoopShutDown("the MCP connection's loop shut down before the work ended")
        return started[0].result()

    def _drive(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run the loop in this thread (which has taken its turn) until ``coroutine`` ends; if this
        thread leaves before that (an interrupt, the loop stopped by ``shutdown``), the coroutine
        is cancelled, to be ended by whoever runs the loop next."""
        task = self.loop.create_task(coroutine)
        try:
            return self.loop.run_until_complete(task)
        except BaseException as error:
            if task.done() and not task.cancelled():
                raise  # the coroutine's own exception
            task.cancel()
            if self._stopping and not isinstance(error, KeyboardInterrupt | SystemExit):
                raise LoopShutDown("the MCP connection's loop shut down before the work ended") from None
            raise
        finally:
            with self._turns:
                self._driver = None
                if self._handed or self._wanting or self._stopping:  # else the loop's own thread sleeps on
                    self._turns.notify_all()

    def _take_turn(self) -> bool:
        """Make this thread the one running the loop, when nobody runs it or its own thread does
        (which is asked to leave it); False when another waiting thread runs it."""
        with self._turns:
            if self._stopping:
                return False
            own = self._thread.ident
            if self._driver is not None and self._driver == own:
                self._wanting += 1
                try:
                    if not self._yield_asked:
                        self._yield_asked = True
                        self.loop.call_soon_threadsafe(self._leave)
                    while self._driver == own and not self._stopping:
                        self._turns.wait(INTERRUPT_POLL_S)
                finally:
                    self._wanting -= 1
            if self._driver is not None or self._stopping:
                return False
            self._driver = threading.get_ident()
            self._turns_taken += 1
            return True

    # -- awaiting from another event loop ------------------------------------------------------

    async def wait_async(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and await its end from the running loop; cancelling the
        await cancels the coroutine."""
        caller = asyncio.get_running_loop()
        if caller is self.loop:
            return await coroutine
        answer: asyncio.Future[T] = caller.create_future()
        started = self._hand(coroutine, lambda ended: _hand_back(caller, ended, answer, self._stopping))
        try:
            return await answer
        except asyncio.CancelledError:
            self._cancel_soon(started)
            raise

    # -- handing work to the loop --------------------------------------------------------------

    def _hand(
        self, coroutine: Coroutine[Any, Any, T], on_end: Callable[[asyncio.Task[T]], None]
    ) -> list[asyncio.Task[T]]:
        """Start ``coroutine`` as a task of the loop, run by whoever runs it (the loop's own thread
        when nobody does); ``on_end`` is called on the loop when it ends. Returns the list that
        holds the task once it has started. Raises ``LoopShutDown`` after ``shutdown``."""
        started: list[asyncio.Task[T]] = []

        def start() -> None:
            task = self.loop.create_task(coroutine)
            started.append(task)
            task.add_done_callback(self._ended)
            task.add_done_callback(on_end)

        with self._turns:
            if self._stopping:
                coroutine.close()
                raise LoopShutDown("the MCP connection's loop has shut down")
            self._handed += 1
            if self._driver is None:
                self._turns.notify_all()
        self.loop.call_soon_threadsafe(start)
        return started

    def _leave(self) -> None:
        """End the current run of the loop (called on the loop, as a thread that wants the loop or
        a shutdown asks); not once the loop is being ended, which a request that comes late (the
        run it was meant for over) must not cut short."""
        if not self._finishing:
            self.loop.stop()

    def _ended(self, _task: asyncio.Task[Any]) -> None:
        with self._turns:
            self._handed -= 1

    def _cancel_soon(self, started: list[asyncio.Task[Any]]) -> None:
        """Cancel the task that ``_hand`` starts, from any thread: queued after its start."""
        with contextlib.suppress(RuntimeError):  # the loop has closed: the task has ended
            self.loop.call_soon_threadsafe(lambda: started[0].cancel())

    # -- the end ------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Cancel what still runs on the loop, end it and stop its thread, and wait for that
        (unless called from the thread that runs the loop); idempotent."""
        with self._turns:
            first = not self._stopping
            self._stopping = True
            driver = self._driver
            self._turns.notify_all()
        if first and driver is not None:  # whoever runs the loop leaves it to the loop's own thread
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self._leave)
        if threading.get_ident() not in (self._thread.ident, driver):
            self._thread.join(_JOIN_TIMEOUT_S)


def _acquired(lock: threading.Lock, timeout_s: float | None) -> bool:
    """``lock.acquire(timeout=timeout_s)`` (None: no limit), blocking ``INTERRUPT_POLL_S`` at most
    at a time, so that a signal whose handler is pending is acted on (see ``INTERRUPT_POLL_S``)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        wait = INTERRUPT_POLL_S if deadline is None else min(INTERRUPT_POLL_S, deadline - time.monotonic())
        if wait <= 0:
            return lock.acquire(blocking=False)
        if lock.acquire(timeout=wait):
            return True


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _hand_back(
    caller: asyncio.AbstractEventLoop, ended: asyncio.Task[T], answer: asyncio.Future[T], shut_down: bool
) -> None:
    """Settle ``answer`` (a future of the ``caller`` loop) as the task ``ended`` ended, on that loop
    (``LoopShutDown`` when it was cancelled by the loop's ``shutdown``)."""

    def settle() -> None:
        if answer.done():  # the await was cancelled
            return
        if ended.cancelled() and shut_down:
            answer.set_exception(LoopShutDown("the MCP connection's loop shut down before the work ended"))
            return
        if ended.cancelled():
            answer.cancel()
            return
        error = ended.exception()
        if error is not None:
            answer.set_exception(error)
        else:
            answer.set_result(ended.result())

    with contextlib.suppress(RuntimeError):  # the caller's loop has closed: nobody awaits
        caller.call_soon_threadsafe(settle)
