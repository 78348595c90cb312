"""Public helpers for testing code built on ``toolresponse``: a fake monotonic clock.

What waits or measures time in the runtime takes a ``clock`` and a ``sleep`` or ``wait``;
:class:`FakeClock` is all of them, so that breakers, timeouts and retry delays are tested
without a real sleep (docs/architecture.md, "Tests", shows how).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable
from typing import TypeVar

from ._suggest import checked_seconds

T = TypeVar("T")

_NS_PER_S = 1_000_000_000


class FakeClock:
    """A monotonic clock that moves only when told to; thread-safe.

    Calling it returns the time in seconds, kept as whole nanoseconds (ten advances of ``0.1``
    read exactly ``1.0``). :meth:`wait` and :meth:`async_wait` wait in real time, but their
    timeout passes only on this clock, and a result that came after the deadline on this clock
    is a timeout too.
    """

    __slots__ = ("_changed", "_deadlines", "_now_ns", "_sleeps", "_waiting")

    def __init__(self, start: float = 0.0) -> None:
        self._changed = threading.Condition(threading.Lock())  # its lock guards every member
        self._now_ns = _to_ns(start, "start", allow_negative=True)
        self._sleeps: list[float] = []
        self._waiting = 0
        self._deadlines: set[tuple[int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = set()
        """The async waits on this clock: each one's deadline, and the future set once it passes."""

    def __call__(self) -> float:
        """The current fake time in seconds."""
        return self._now_ns / _NS_PER_S

    def __repr__(self) -> str:
        return f"FakeClock(now={self()!r})"

    @property
    def now(self) -> float:
        """The current fake time in seconds (same as calling the clock)."""
        return self()

    @property
    def sleeps(self) -> tuple[float, ...]:
        """The durations passed to :meth:`sleep` and :meth:`asleep`, in order."""
        with self._changed:
            return tuple(self._sleeps)

    @property
    def waiting(self) -> int:
        """How many :meth:`wait` and :meth:`async_wait` calls are waiting on this clock now."""
        with self._changed:
            return self._waiting

    def advance(self, seconds: float) -> float:
        """Move the clock forward by ``seconds`` (finite, >= 0) and return the new time."""
        step = _to_ns(seconds, "seconds")
        with self._changed:
            return self._moved(step)

    def sleep(self, seconds: float) -> None:
        """A fake ``time.sleep``: advance the clock by ``seconds`` and return at once."""
        step = _to_ns(seconds, "seconds")
        with self._changed:
            self._sleeps.append(seconds)
            self._moved(step)

    def advance_when_waiting(self, seconds: float, count: int = 1, timeout_s: float = 10.0) -> float:
        """Once ``count`` waits are in progress on this clock, advance it by ``seconds``; return
        the new time. Blocks in real time (run it in another thread than the waiting call);
        ``TimeoutError`` when fewer than ``count`` waits begin within ``timeout_s`` real seconds."""
        step = _to_ns(seconds, "seconds")
        with self._changed:
            if not self._changed.wait_for(lambda: self._waiting >= count, timeout_s):
                raise TimeoutError(f"{self._waiting} of {count} waits began on the fake clock")
            return self._moved(step)

    def wait(self, future: concurrent.futures.Future[T], timeout_s: float, /) -> T:
        """A fake ``future.result(timeout_s)``: ``TimeoutError`` (the future not cancelled) once
        this clock passes now + ``timeout_s`` first. Waiting never moves the clock."""
        finished: list[int] = []

        def done(_: object) -> None:
            with self._changed:
                finished.append(self._now_ns)
                self._changed.notify_all()

        deadline = self._now_ns + _to_ns(timeout_s, "timeout_s")
        future.add_done_callback(done)  # at once, in this thread, when the future is done already
        with self._changed:
            self._waiting += 1
            self._changed.notify_all()
            try:
                while not finished and self._now_ns < deadline:
                    self._changed.wait()
            finally:
                self._waiting -= 1
        if finished and finished[0] <= deadline:
            return future.result()
        raise TimeoutError(f"no result within {timeout_s:g} s on the fake clock")

    async def async_wait(self, awaitable: Awaitable[T], timeout_s: float, /) -> T:
        """A fake ``asyncio.wait_for(awaitable, timeout_s)``: once this clock passes now +
        ``timeout_s`` first, the awaitable is cancelled, awaited to its end, and ``TimeoutError``
        raised."""
        deadline = self._now_ns + _to_ns(timeout_s, "timeout_s")
        finished: list[int] = []

        async def timed() -> T:
            try:
                return await awaitable
            finally:
                with self._changed:
                    finished.append(self._now_ns)

        passed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(timed())
        timer = (deadline, passed.get_loop(), passed)
        with self._changed:
            self._deadlines.add(timer)
            self._waiting += 1
            self._moved(0)  # tells advance_when_waiting, and passes a deadline come already
            due = self._now_ns >= deadline  # a timeout of 0: no result, as with asyncio.wait_for
        try:
            if not due:
                await asyncio.wait((task, passed), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # this wait was cancelled: so is what it waited for
            task.cancel()
            raise
        finally:
            with self._changed:
                self._deadlines.discard(timer)
                self._waiting -= 1
        if task.done() and finished and finished[0] <= deadline:
            return task.result()
        task.cancel()
        await asyncio.wait((task,))
        if not task.cancelled():
            task.exception()  # retrieved, so that asyncio does not log it as never retrieved
        raise TimeoutError(f"no result within {timeout_s:g} s on the fake clock")

    def _moved(self, step: int) -> float:
        """Advance by ``step`` ns and wake every wait on this clock (called with the lock held)."""
        self._now_ns += step
        self._changed.notify_all()
        for deadline, loop, passed in self._deadlines:
            if deadline <= self._now_ns:
                with contextlib.suppress(RuntimeError):  # a closed loop: nothing waits there any more
                    loop.call_soon_threadsafe(_pass, passed)
        return self._now_ns / _NS_PER_S

    async def asleep(self, seconds: float) -> None:
        """A fake ``asyncio.sleep``: advance the clock, then yield to the event loop once."""
        self.sleep(seconds)
        await asyncio.sleep(0)


def _pass(passed: asyncio.Future[None]) -> None:
    if not passed.done():
        passed.set_result(None)


def _to_ns(seconds: float, name: str, *, allow_negative: bool = False) -> int:
    return round(checked_seconds(seconds, name, negative=allow_negative) * _NS_PER_S)
