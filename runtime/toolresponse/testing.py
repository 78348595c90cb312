"""Public helpers for testing code built on ``toolresponse``: a fake monotonic clock.

Everything in the runtime that waits or measures time takes a ``clock`` (a
function returning monotonic seconds) and, where it waits, a ``sleep``
function. :class:`FakeClock` is both, so that circuit breakers, timeouts and
retry delays can be tested without a single real sleep::

    clock = FakeClock()
    breaker = CircuitBreaker(recovery_timeout_s=30, clock=clock)
    ...
    clock.advance(30)          # the circuit is now due for a half-open probe
"""

from __future__ import annotations

import asyncio
import math
import threading

__all__ = ["FakeClock"]

_NS_PER_S = 1_000_000_000


class FakeClock:
    """A monotonic clock that moves only when told to; thread-safe.

    Calling the clock returns the current time in seconds (a ``float``, like
    ``time.monotonic``). Time is kept as whole nanoseconds, so that advancing
    by ``0.1`` ten times reads exactly ``1.0`` later: tests can compare
    readings with ``==``.

    :meth:`sleep` and :meth:`asleep` are the matching fake sleep functions:
    they return at once, having advanced the clock by the requested time, and
    record each request in :attr:`sleeps`.
    """

    __slots__ = ("_lock", "_now_ns", "_sleeps")

    def __init__(self, start: float = 0.0) -> None:
        self._lock = threading.Lock()
        self._now_ns = _to_ns(start, "start", allow_negative=True)
        self._sleeps: list[float] = []

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
        with self._lock:
            return tuple(self._sleeps)

    def advance(self, seconds: float) -> float:
        """Move the clock forward by ``seconds`` (finite, >= 0) and return the new time."""
        step = _to_ns(seconds, "seconds")
        with self._lock:
            self._now_ns += step
            return self._now_ns / _NS_PER_S

    def sleep(self, seconds: float) -> None:
        """A fake ``time.sleep``: advance the clock by ``seconds`` and return at once."""
        step = _to_ns(seconds, "seconds")
        with self._lock:
            self._now_ns += step
            self._sleeps.append(seconds)

    async def asleep(self, seconds: float) -> None:
        """A fake ``asyncio.sleep``: advance the clock, then yield to the event loop once."""
        self.sleep(seconds)
        await asyncio.sleep(0)


def _to_ns(seconds: float, name: str, *, allow_negative: bool = False) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise TypeError(f"{name} must be a number of seconds, not {type(seconds).__name__}")
    if not math.isfinite(seconds):
        raise ValueError(f"{name} must be finite, not {seconds!r}")
    if seconds < 0 and not allow_negative:
        raise ValueError(f"{name} must be >= 0 (a monotonic clock never goes back), not {seconds!r}")
    return round(seconds * _NS_PER_S)
