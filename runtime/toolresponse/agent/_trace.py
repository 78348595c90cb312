"""The agent's JSONL trace, one event per line with secrets masked, and the reader for reports.

The events and their members are listed in docs/observability.md ("The agent's events").
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

from .._errors import TraceFormatError
from .._response import ToolResponse
from .._suggest import shortened
from ..tools._breaker import StateChange
from ..tools._policy import DENIAL_CODES
from ..tools._trace import JsonlTraceWriter, mask_secrets, masked_json_text
from ..validation._open import NO_WRITER_OF_FILE, open_local
from ._models import ModelReply, ToolCall, kind_of

_log = logging.getLogger("toolresponse.agent")

TRACE_VERSION = 1
"""The version of the event format, written in every ``run_start``."""


@runtime_checkable
class TraceWriter(Protocol):
    """Anything that takes one trace record at a time (a JSONL file writer, a list in a test)."""

    def write(self, record: Mapping[str, Any]) -> None: ...


TraceTarget = str | os.PathLike[str] | TraceWriter
"""Where a run's trace goes: a file path (appended to) or a writer (a ``JsonlTraceWriter`` ...)."""


class RunTrace:
    """The events of one run into ``target`` (a path is opened for appending, a writer used as
    is; None traces nothing), stamped with the run id and the time since it started."""

    def __init__(
        self, target: TraceTarget | None, *, run_id: str, clock: Callable[[], float], started: float
    ) -> None:
        if target is not None and not isinstance(target, str | os.PathLike | TraceWriter):
            raise TypeError(
                f"trace must be a path or a writer with write(record), not {type(target).__name__}"
            )
        self._owned = isinstance(target, str | os.PathLike)
        # Records are masked by emit already.
        self._writer: Any = JsonlTraceWriter(target, mask=False) if self._owned else target  # type: ignore[arg-type]
        self._run_id = run_id
        self._clock = clock
        self._started = started
        self._lock = threading.Lock()
        self._breaker: Any = None

    def emit(self, event: str, **members: Any) -> None:
        if self._writer is None:
            return
        t_ms = round((self._clock() - self._started) * 1000, 3)
        record = {"event": event, "run_id": self._run_id, "t_ms": t_ms, **members}
        with self._lock:
            if self._writer is None:
                return
            try:
                self._writer.write(mask_secrets(record))
            except (OSError, ValueError) as exc:
                # A trace never fails a run: say so once, then stop tracing this run.
                _log.warning("the agent trace stopped after an error writing a %s event: %s", event, exc)
                self._writer = None

    def tool_event(self, event: str, index: int, call: ToolCall, **members: Any) -> None:
        """Trace ``event`` of one tool call: its step, its id and its tool, then ``members``."""
        self.emit(event, step=index, call_id=call.id, tool=call.name, **members)

    def tool_request(self, index: int, call: ToolCall) -> None:
        """The call as asked: its arguments as the JSON object they are (masked member by member),
        else as the model wrote them (masked as text)."""
        value = call.parsed_arguments
        arguments = value if isinstance(value, Mapping) else call.arguments
        self.tool_event("tool_request", index, call, arguments=arguments)

    def model_output(self, index: int, attempt: int, reply: ModelReply, time_ms: float) -> None:
        self.emit(
            "model_output",
            step=index,
            attempt=attempt,
            content=reply.content,
            tool_calls=[{"id": c.id, "name": c.name, "arguments": _masked(c)} for c in reply.tool_calls],
            finish_reason=reply.finish_reason,
            usage=reply.usage.to_dict(),
            time_ms=round(time_ms, 3),
            **({"notes": list(reply.notes)} if reply.notes else {}),
        )

    def tool_result(
        self, index: int, call: ToolCall, attempt: int, response: ToolResponse, time_ms: float
    ) -> None:
        """One attempt's answer; ``time_ms`` is the registry's ``stats.time_ms`` when it gives one."""
        stats_time = (response.stats or {}).get("time_ms")
        rule = (response.error_info.details or {}).get("policy") if response.error_info else None
        denied = {"denied_by": rule} if response.code in DENIAL_CODES and isinstance(rule, str) else {}
        self.tool_event(
            "tool_result",
            index,
            call,
            attempt=attempt,
            status=response.status.value,
            code=response.code.value if response.code else None,
            retryable=response.is_retryable if response.is_error else None,
            time_ms=round(float(stats_time) if stats_time is not None else time_ms, 3),
            text=shortened(response.text, 300),
            **denied,
        )

    def watch_breaker(self, breaker: Any) -> None:
        """Record the breaker's state changes while the run lasts, if it reports them."""
        if self._writer is not None and callable(getattr(breaker, "add_listener", None)):
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


def _masked(call: ToolCall) -> str:
    """The model's argument text, secrets masked: JSON text member by member (so that a
    secret-named member is masked whatever its value), written back compactly; other text as text."""
    value = call.parsed_arguments if call.arguments.strip() else None
    return masked_json_text(value) if isinstance(value, Mapping | list) else str(mask_secrets(call.arguments))


def read_trace(
    path: str | os.PathLike[str], on_error: Callable[[TraceFormatError], None]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each record of a JSONL trace file with its line number, blank lines skipped.

    A line that is not a JSON object with a string ``event`` is a ``TraceFormatError`` (file and
    line) given to ``on_error`` and skipped; a file that cannot be read raises it. An integer of
    more than 300 digits is read as a float (infinity beyond the float range)."""
    name = os.fspath(path)
    try:
        handle = open_local(name, no_writer=NO_WRITER_OF_FILE)  # refused at once, as validate does
    except OSError as exc:
        raise TraceFormatError(name, 0, f"cannot read the trace: {exc.strerror or exc}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                record = _record(name, number, raw)
            except TraceFormatError as exc:
                on_error(exc)
                continue
            if record is not None:
                yield number, record


def _record(name: str, number: int, raw: bytes) -> dict[str, Any] | None:
    try:
        line = raw.decode("utf-8")
        if not line.strip():
            return None
        record = json.loads(line, parse_int=_integer)
    except UnicodeDecodeError as exc:
        raise TraceFormatError(name, number, f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise TraceFormatError(name, number, f"not JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise TraceFormatError(name, number, "nested too deeply to read") from None
    if not isinstance(record, dict):
        raise TraceFormatError(name, number, f"a trace line must be a JSON object, not {kind_of(record)}")
    if not isinstance(record.get("event"), str):
        raise TraceFormatError(name, number, "a trace line needs a string member 'event'")
    return record


def _integer(text: str) -> int | float:
    return int(text) if len(text) <= 300 else float(text)
