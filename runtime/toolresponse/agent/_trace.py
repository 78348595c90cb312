"""The agent's JSONL trace: one event per line, secrets masked, and the reader for reports.

Every line is a JSON object with ``event``, ``run_id`` and ``t_ms`` (ms since
the run started, on the agent's clock) and the members of its event:

==============  =====================================================================================
event           members
==============  =====================================================================================
run_start       task, model, tools, max_steps, started_at (wall-clock seconds), trace_version
model_output    step, attempt, content, tool_calls [{id, name, arguments}], finish_reason,
                usage {prompt_tokens, completion_tokens, total_tokens}, time_ms,
                notes (only when the reply had to be repaired: a usage count that was not a count ...)
model_error     step, attempt, code, status_code, message, retryable, retry_in_ms (null: gave up)
tool_request    step, call_id, tool, arguments (the call as the model wrote it)
tool_result     step, call_id, tool, attempt, status, code, retryable, time_ms, text,
                denied_by (only when an access policy refused the call: its ``details.policy``)
tool_retry      step, call_id, tool, attempt, code, wait_ms
tool_blocked    step, call_id, tool, failures, code (the repeated-failure guard refused the call)
breaker         tool, from, to, reason, consecutive_failures
run_end         outcome, reason, answer, steps, tool_calls, usage, duration_ms
==============  =====================================================================================

Secrets are masked in every event (``mask_secrets``), the model's argument
text in ``model_output`` included: JSON text member by member (written back
compactly), other text as text.

``toolresponse report`` also reads the registry's own trace (``JsonlTraceWriter``
added as a ``ToolRegistry`` listener: ``tool_call`` events with status, code,
time_ms and breaker_state); in a file that has agent ``tool_result`` events
those are ignored, so that a call is never counted twice.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, BinaryIO, Protocol, runtime_checkable

from .._errors import TraceFormatError
from ..tools import JsonlTraceWriter, StateChange, StateListener, mask_secrets

_log = logging.getLogger("toolresponse.agent")

TRACE_VERSION = 1
"""The version of the event format above, written in every ``run_start``."""


@runtime_checkable
class TraceWriter(Protocol):
    """Anything that takes one trace record at a time (a JSONL file writer, a list in a test)."""

    def write(self, record: Mapping[str, Any]) -> None: ...


TraceTarget = str | os.PathLike[str] | TraceWriter
"""Where a run's trace goes: a file path (appended to) or a writer (a ``JsonlTraceWriter`` ...)."""


@runtime_checkable
class ObservableBreaker(Protocol):
    """A breaker that reports its state changes (``CircuitBreaker`` does)."""

    def add_listener(self, listener: StateListener) -> None: ...

    def remove_listener(self, listener: StateListener) -> None: ...


class RunTrace:
    """The events of one run, stamped with the run id and the time since it started."""

    def __init__(
        self,
        writer: Any,
        *,
        run_id: str,
        clock: Callable[[], float],
        started: float,
        owned: bool,
    ) -> None:
        self._writer = writer
        self._run_id = run_id
        self._clock = clock
        self._started = started
        self._owned = owned
        self._lock = threading.Lock()
        self._breaker: ObservableBreaker | None = None

    @property
    def enabled(self) -> bool:
        return self._writer is not None

    def emit(self, event: str, **members: Any) -> None:
        if self._writer is None:
            return
        record = {
            "event": event,
            "run_id": self._run_id,
            "t_ms": round((self._clock() - self._started) * 1000, 3),
            **members,
        }
        if event == "run_start":
            record["trace_version"] = TRACE_VERSION
        with self._lock:
            writer = self._writer
            if writer is None:
                return
            try:
                writer.write(mask_secrets(record))
            except (OSError, ValueError) as exc:
                # A trace never fails a run: say so once, then stop tracing this run.
                _log.warning("the agent trace stopped after an error writing a %s event: %s", event, exc)
                self._writer = None

    def watch_breaker(self, breaker: object) -> None:
        """Record the breaker's state changes while the run lasts, if it reports them."""
        if self._writer is None or self._breaker is not None or not isinstance(breaker, ObservableBreaker):
            return
        self._breaker = breaker
        breaker.add_listener(self._on_change)

    def _on_change(self, change: StateChange) -> None:
        self.emit(
            "breaker",
            tool=change.tool_name,
            **{"from": change.old_state.value, "to": change.new_state.value},
            reason=change.reason,
            consecutive_failures=change.consecutive_failures,
        )

    def close(self) -> None:
        if self._breaker is not None:
            self._breaker.remove_listener(self._on_change)
            self._breaker = None
        with self._lock:
            writer, self._writer = self._writer, None
        if self._owned and writer is not None:
            try:
                writer.close()
            except OSError as exc:
                _log.warning("the agent trace could not be closed: %s", exc)


def open_trace(
    target: TraceTarget | None, *, run_id: str, clock: Callable[[], float], started: float
) -> RunTrace:
    """The trace of one run into ``target`` (a path is opened for appending, a writer used as is)."""
    if target is None:
        return RunTrace(None, run_id=run_id, clock=clock, started=started, owned=False)
    if isinstance(target, str | os.PathLike):
        # Records are masked by RunTrace.emit already.
        writer = JsonlTraceWriter(target, mask=False)
        return RunTrace(writer, run_id=run_id, clock=clock, started=started, owned=True)
    if not isinstance(target, TraceWriter):
        raise TypeError(f"trace must be a path or a writer with write(record), not {type(target).__name__}")
    return RunTrace(target, run_id=run_id, clock=clock, started=started, owned=False)


def read_trace(
    path: str | os.PathLike[str], *, on_error: Callable[[TraceFormatError], None] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each record of a JSONL trace file with its line number; blank lines are skipped.

    A line that is not a JSON object with a string ``event`` (not UTF-8, not
    JSON, nested too deeply to read) is a :class:`TraceFormatError` naming
    the file and line: given to ``on_error`` and skipped when it is given,
    raised otherwise. A file that cannot be read is always raised. An integer
    of more digits than Python converts (4300) is read as infinity, so that
    the line is still read.
    """
    name = os.fspath(path)
    try:
        handle: BinaryIO = open(name, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise TraceFormatError(name, 0, f"cannot read the trace: {exc.strerror or exc}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                record = _record(name, number, raw)
            except TraceFormatError as exc:
                if on_error is None:
                    raise
                on_error(exc)
                continue
            if record is not None:
                yield number, record


def _record(name: str, number: int, raw: bytes) -> dict[str, Any] | None:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(name, number, f"not UTF-8 text ({exc.reason})") from None
    if not line.strip():
        return None
    try:
        record = json.loads(line, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise TraceFormatError(name, number, f"not JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise TraceFormatError(name, number, "nested too deeply to read") from None
    if not isinstance(record, dict):
        raise TraceFormatError(name, number, f"a trace line must be a JSON object, not {_kind(record)}")
    if not isinstance(record.get("event"), str):
        raise TraceFormatError(name, number, "a trace line needs a string member 'event'")
    return record


def _integer(text: str) -> int | float:
    if len(text) <= 4000:
        return int(text)
    return float("-inf") if text.startswith("-") else float("inf")


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


__all__ = ["TRACE_VERSION", "RunTrace", "TraceTarget", "TraceWriter", "open_trace", "read_trace"]
