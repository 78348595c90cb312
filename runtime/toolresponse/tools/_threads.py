"""The threads a tool runs on (``ToolThreads``: at most ``limit`` daemon threads, started on demand,
ended when idle), and how a call waits for them under a timeout. A call runs in a copy of its
caller's ``contextvars`` context, an async tool on its thread's own event loop.

Not ``ThreadPoolExecutor``: its workers are joined at exit (one hung tool would hold the process),
it cannot tell a queued call from a started one (the TIMEOUT answer says which), and its threads
never retire. anyio's worker threads need an event loop in the caller, which a sync call has not.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import inspect
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

T = TypeVar("T")

DEFAULT_MAX_THREADS: Final = 8

INTERRUPTS: Final = (KeyboardInterrupt, SystemExit)
"""The exceptions a tool may raise that end the call by propagating, not as a response."""

_THREAD = threading.local()
"""A worker thread's own event loop, made the first time it runs a coroutine."""


def is_async(function: Any) -> bool:
    """Whether ``function`` (or its ``__call__``) is a coroutine function."""
    call = getattr(function, "__call__", None)  # noqa: B004 - the method itself is looked at
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(call)


async def called(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``function``'s value, awaited when it is awaitable (a plain function may return one)."""
    value = function(*args, **kwargs)
    return await value if inspect.isawaitable(value) else value


class Wait(Protocol):
    """``wait(future, timeout_s)``: its result, or ``TimeoutError`` (the future not cancelled)."""

    def __call__(self, future: Future[T], timeout_s: float, /) -> T: ...


class AsyncWait(Protocol):
    """``await async_wait(awaitable, timeout_s)``: its result, or ``TimeoutError`` (cancelled)."""

    def __call__(self, awaitable: Awaitable[T], timeout_s: float, /) -> Awaitable[T]: ...


def real_wait(future: Future[T], timeout_s: float, /) -> T:
    return future.result(timeout_s)


async def real_async_wait(awaitable: Awaitable[T], timeout_s: float, /) -> T:
    async with asyncio.timeout(timeout_s):
        return await awaitable


@dataclass(frozen=True, slots=True)
class Raised:
    """An exception a tool raised, carried out of its thread or task as a value (``GeneratorExit``
    cannot cross an ``await`` intact)."""

    error: BaseException


async def captured(make: Callable[[], Awaitable[T]]) -> T | Raised:
    """``make()``'s coroutine awaited, what it raises as a ``Raised``; made only once the task runs,
    so that a task cancelled before its first step leaves no coroutine never awaited."""
    try:
        return await make()
    except asyncio.CancelledError:
        raise
    except BaseException as error:
        return Raised(error)


class Job(Future[Any]):
    """``work()`` run on a worker thread (a coroutine awaited on its loop): the value or a ``Raised``."""

    queued = False
    """Whether every thread was busy (and the cap reached) when it was submitted."""

    def __init__(self, work: Callable[[], Any], coroutine: bool) -> None:
        super().__init__()
        self._work = work
        self._coroutine = coroutine
        self._context = contextvars.copy_context()
        self._lock = threading.Lock()
        self._stopped = False
        self._task: tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]] | None = None

    def perform(self) -> None:
        if not self.set_running_or_notify_cancel():
            return
        try:
            result = self._context.run(self._run_coroutine if self._coroutine else self._work)
        except BaseException as error:
            result = Raised(error)
        self.set_result(result)

    def _run_coroutine(self) -> Any:
        loop: asyncio.AbstractEventLoop | None = getattr(_THREAD, "loop", None)
        if loop is None:
            loop = _THREAD.loop = asyncio.new_event_loop()
        task = loop.create_task(captured(self._work))
        with self._lock:
            self._task = (loop, task)
            if self._stopped:
                task.cancel()
        try:
            return loop.run_until_complete(task)
        except asyncio.CancelledError as error:  # stopped, or cancelled by the tool itself
            return Raised(error)
        finally:
            self._task = None

    def stop(self) -> None:
        """Cancel a coroutine's run at its next ``await``; a synchronous call runs on."""
        with self._lock:
            self._stopped = True
            if self._task is not None:
                loop, task = self._task
                with contextlib.suppress(RuntimeError):  # the loop has closed: the run is over
                    loop.call_soon_threadsafe(task.cancel)


class ToolThreads:
    """The daemon threads one tool runs on."""

    def __init__(self, name: str, limit: int = DEFAULT_MAX_THREADS, idle_s: float = 30.0) -> None:
        self.name = name
        self.limit = limit
        self._idle_s = idle_s
        self._ready = threading.Condition(threading.Lock())
        self._jobs: collections.deque[Job] = collections.deque()
        self._threads = 0
        self._idle = 0
        self._started = 0

    def submit(self, work: Callable[[], Any], *, coroutine: bool = False) -> Job:
        job = Job(work, coroutine)
        with self._ready:
            self._jobs.append(job)
            if self._idle >= len(self._jobs):
                self._ready.notify()
            elif self._threads < self.limit:
                self._threads += 1
                self._started += 1
                name = f"toolresponse-{self.name}-{self._started}"
                try:
                    threading.Thread(target=self._serve, name=name, daemon=True).start()
                except BaseException:
                    self._threads -= 1
                    self._jobs.pop()
                    raise
            else:
                job.queued = True
        return job

    def _next(self) -> Job | None:
        with self._ready:
            while not self._jobs:
                self._idle += 1
                woken = self._ready.wait(self._idle_s)
                self._idle -= 1
                if not woken and not self._jobs:
                    self._threads -= 1
                    return None
            return self._jobs.popleft()

    def _serve(self) -> None:
        try:
            while (job := self._next()) is not None:
                job.perform()
                del job  # not held while this thread waits for the next
        finally:
            loop: asyncio.AbstractEventLoop | None = getattr(_THREAD, "loop", None)
            if loop is not None:
                loop.close()
