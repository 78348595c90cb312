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
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Final, TypeVar

__all__ = ["LoopShutDown", "SharedLoop"]

T = TypeVar("T")

_JOIN_TIMEOUT_S: Final = 10.0
QUIET_S: Final = 0.05
"""How long the loop may stay parked (nobody running it, nothing handed to it, no thread taking
a turn) before its own thread runs it again, to handle what the server sends between calls."""


class LoopShutDown(RuntimeError):
    """Work handed to a ``SharedLoop`` that has shut down."""


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
        down."""
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
                    return
                self._driver = me
                self._yield_asked = False
            try:
                self.loop.run_forever()
            finally:
                with turns:
                    self._driver = None
                    turns.notify_all()

    # -- waiting from a thread ----------------------------------------------------------------

    def wait(self, coroutine: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run ``coroutine`` on the loop and wait for its end (at most ``timeout_s``: then
        ``TimeoutError``), running the loop in this thread when no other thread runs it."""
        running = _running_loop()
        if running is self.loop:
            coroutine.close()
            raise RuntimeError("a synchronous MCP call made on its own connection's loop would never end")
        if running is None and self._take_turn():
            try:
                if timeout_s is None:
                    return self.loop.run_until_complete(coroutine)
                return self.loop.run_until_complete(asyncio.wait_for(coroutine, timeout_s))
            finally:
                with self._turns:
                    self._driver = None
                    if self._handed or self._wanting:  # else the loop's own thread sleeps on
                        self._turns.notify_all()
        done = threading.Lock()
        done.acquire()
        started = self._hand(coroutine, lambda _task: done.release())
        if not done.acquire(timeout=-1 if timeout_s is None else timeout_s):
            raise TimeoutError(f"the MCP connection's loop did not end the work within {timeout_s:g} s")
        return started[0].result()

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
                        self.loop.call_soon_threadsafe(self.loop.stop)
                    while self._driver == own and not self._stopping:
                        self._turns.wait()
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
        started = self._hand(coroutine, lambda ended: _hand_back(caller, ended, answer))
        try:
            return await answer
        except asyncio.CancelledError:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                self.loop.call_soon_threadsafe(lambda: started[0].cancel())  # queued after the start
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

    def _ended(self, _task: asyncio.Task[Any]) -> None:
        with self._turns:
            self._handed -= 1

    # -- the end ------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Cancel what still runs on the loop and stop its thread; idempotent."""
        with self._turns:
            self._stopping = True
            running = self._driver is not None
            self._turns.notify_all()
        if running:
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self._cancel_all_and_stop)
        else:
            for task in asyncio.all_tasks(self.loop):
                task.cancel()
        if self._thread is not threading.current_thread():
            self._thread.join(_JOIN_TIMEOUT_S)

    def _cancel_all_and_stop(self) -> None:
        for task in asyncio.all_tasks(self.loop):
            task.cancel()
        self.loop.stop()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _hand_back(caller: asyncio.AbstractEventLoop, ended: asyncio.Task[T], answer: asyncio.Future[T]) -> None:
    """Settle ``answer`` (a future of the ``caller`` loop) as the task ``ended`` ended, on that loop."""

    def settle() -> None:
        if answer.done():  # the await was cancelled
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
