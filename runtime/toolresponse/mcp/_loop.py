"""The MCP connection's event loop: an anyio ``BlockingPortal``'s, in a daemon thread, and the
bounded wait of a thread on work handed to it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Awaitable, Coroutine
from typing import Final, TypeVar

__all__ = ["Loop", "result", "running_loop"]

_POLL_S: Final = 0.25
"""The longest a thread blocks at once on a call: a Ctrl-C landing just before it blocks is acted
on when the wait returns."""

T = TypeVar("T")


def running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


class Loop:
    """The connection's event loop: a ``BlockingPortal``'s, taking work until ``stop``."""

    def __init__(self) -> None:
        from anyio.from_thread import start_blocking_portal

        self._portal_cm = start_blocking_portal(name="toolresponse-mcp-client")
        self._portal = self._portal_cm.__enter__()
        self.loop: asyncio.AbstractEventLoop = self._portal.call(asyncio.get_running_loop)
        self._lock = threading.Lock()
        self.stopped = False

    def submit(self, awaitable: Awaitable[T]) -> concurrent.futures.Future[T]:
        """Run ``awaitable`` on the loop; ``RuntimeError`` once stopped (under ``stop``'s lock: what
        was handed over before is cancelled there, nothing is handed over after)."""
        coroutine = awaitable if isinstance(awaitable, Coroutine) else _awaited(awaitable)
        with self._lock:
            if not self.stopped:
                return asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        coroutine.close()
        raise RuntimeError("the MCP connection's loop has stopped")

    def stop(self) -> None:
        """Cancel what runs on the loop and end it, waiting for that unless called on the loop."""
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
        if running_loop() is self.loop:  # the loop ends once the coroutine calling this returns
            self.loop.create_task(self._portal.stop(cancel_remaining=True))
            return
        self._portal.call(self._portal.stop, True)
        self._portal_cm.__exit__(None, None, None)


def result(future: concurrent.futures.Future[T], timeout_s: float | None) -> T:
    """``future.result(timeout_s)``, blocking ``_POLL_S`` at most at a time; the future is cancelled
    when the wait ends without its result (a timeout, an interrupt)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    try:
        while True:
            left = _POLL_S if deadline is None else min(_POLL_S, deadline - time.monotonic())
            try:
                return future.result(max(left, 0.0))
            except TimeoutError:
                if future.done() or (deadline is not None and time.monotonic() >= deadline):
                    raise  # the work's own TimeoutError, or this wait's
    except BaseException:
        future.cancel()
        raise
