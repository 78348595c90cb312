"""The agent loop: a chat model calls tools through a ToolRegistry, and each response's status
decides what happens next.

One run (``Agent.run(task)`` or ``await Agent.arun(task)``)::

    messages = [system, user task]
    repeat up to max_steps times:
        reply = model(messages, tools)          # model errors: retried with backoff, else "model_error"
        no tool calls in the reply  ->  "answered" with its text ("incomplete" if it was cut off)
        run the reply's tool calls concurrently (at most max_parallel_tools at once),
            each through the registry (and so its breaker):
            - a retryable error is retried by the loop first (bounded backoff, honouring retry_after_ms);
            - a call that already failed twice with the same arguments (after those retries) is not run again;
            - a refused call (ACCESS_DENIED, PERMISSION_DENIED: a policy, a person) is never retried,
              and the same call is not run again;
            - calls past max_tool_calls_per_step (32) in one reply are not run: RATE_LIMIT, "ask again";
        append one tool message per call, in the model's order, written from the status
    "max_steps"

The result keeps every step, every ToolResponse (each attempt, with its
``data``) and the conversation; the model reads only the tool messages.

A retryable error whose ``retry_after_ms`` is longer than the loop may wait
(``RetryPolicy.max_total_wait_s``) is given to the model at once; so is
CIRCUIT_OPEN from an open circuit, with the time it must wait.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from toolresponse_generated import ErrorCode

from .._errors import ModelError
from .._response import ToolResponse
from ..interop import to_openai_chat
from ..tools import LOCAL_CALLER, mask_secrets
from ._feedback import feedback_text, guard_text, is_denial
from ._models import ChatModel, ModelReply, TokenUsage, ToolCall, checked_reply
from ._retry import RetryPolicy
from ._trace import RunTrace, TraceTarget, open_trace

if TYPE_CHECKING:
    from ..tools import ToolRegistry

DEFAULT_SYSTEM_PROMPT = (
    "You are a careful assistant that solves the user's task with the tools provided. "
    "A tool result marked PARTIAL RESULT is incomplete; one that starts with ERROR says what went wrong "
    "and what to do next. "
    "When you have the answer, reply with it in plain text and call no more tools."
)

DEFAULT_TOOL_RETRY = RetryPolicy(max_retries=2, initial_delay_s=0.2, max_delay_s=5.0, max_total_wait_s=10.0)
"""Retries of a retryable tool error before the model is told: two, at most 10 s of waiting in all."""

DEFAULT_MODEL_RETRY = RetryPolicy(max_retries=3, initial_delay_s=1.0, max_delay_s=20.0, max_total_wait_s=60.0)
"""Retries of a failed model call (429, 5xx, connection, timeout): three, at most 60 s of waiting."""


_CUT_OFF: Final = {
    "length": "the model's reply was cut off at its output limit (finish_reason 'length')",
    "content_filter": "the provider's filter stopped the model's reply (finish_reason 'content_filter')",
}
"""The finish reasons of a reply that did not end by itself, and what the run's reason says."""


class RunOutcome(StrEnum):
    """How a run ended."""

    ANSWERED = "answered"
    """The model replied without tool calls: its text is the answer."""
    MAX_STEPS = "max_steps"
    """The model still called tools when the step budget ran out."""
    MODEL_ERROR = "model_error"
    """The model could not be reached or answered with an error, after the retries allowed."""
    INCOMPLETE = "incomplete"
    """The model's final reply was cut off before it ended (``finish_reason`` ``length``: its
    output limit; ``content_filter``: the provider's filter): ``answer`` is its text so far."""


@dataclass(frozen=True, kw_only=True)
class ToolCallRecord:
    """One tool call of the model and what came of it.

    ``attempts`` holds the response of every execution (more than one when the
    loop retried a retryable error) and ``response`` the one the model's
    message was written from. A call refused by the repeated-failure guard
    has ``executed`` False, no attempts, and as ``response`` the earlier
    failure it repeats.
    """

    call: ToolCall
    response: ToolResponse
    attempts: tuple[ToolResponse, ...]
    executed: bool
    feedback: str
    """The tool message the model read."""
    waited_s: float = 0.0
    """Time the loop slept between retries of this call."""

    @property
    def tool(self) -> str:
        return self.call.name


@dataclass(frozen=True, kw_only=True)
class AgentStep:
    """One model turn: the reply and the tool calls it asked for, in the model's order."""

    index: int
    reply: ModelReply
    tool_calls: tuple[ToolCallRecord, ...] = ()


@dataclass(frozen=True, kw_only=True)
class AgentResult:
    """What a run produced: the answer (if any), how it ended and why, and everything on the way."""

    task: str
    outcome: RunOutcome
    answer: str | None
    reason: str
    """Why the run ended, in one sentence (the model error for ``model_error``), secrets masked as
    in the trace (a provider's error may quote the credential it refused)."""
    steps: tuple[AgentStep, ...]
    usage: TokenUsage
    duration_s: float
    run_id: str
    messages: tuple[dict[str, Any], ...] = field(repr=False)
    """The whole conversation as sent to the model, final reply included."""

    @property
    def answered(self) -> bool:
        return self.outcome is RunOutcome.ANSWERED

    @property
    def tool_calls(self) -> tuple[ToolCallRecord, ...]:
        """Every tool call of the run, step by step, in the model's order."""
        return tuple(record for step in self.steps for record in step.tool_calls)

    @property
    def responses(self) -> tuple[ToolResponse, ...]:
        """Every ToolResponse the registry returned during the run (each retry too), with its data."""
        return tuple(response for record in self.tool_calls for response in record.attempts)


def canonical_arguments(arguments: str) -> str:
    """The arguments as canonical JSON (sorted keys, no spaces) when they parse, else as written."""
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):
        return arguments.strip()
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass
class _RunState:
    """What one run accumulates; the guard's counts are only touched between turns."""

    run_id: str
    trace: RunTrace
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_names: tuple[str, ...]
    started: float
    steps: list[AgentStep] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    failures: dict[tuple[str, str], int] = field(default_factory=dict)
    last_failure: dict[tuple[str, str], ToolResponse] = field(default_factory=dict)


@dataclass(slots=True)
class _ModelAttempts:
    """Where one turn's calls of the model stand: attempts made, seconds waited, when this one started."""

    attempt: int = 0
    waited: float = 0.0
    started: float = 0.0


@dataclass(frozen=True)
class _Attempted:
    attempts: tuple[ToolResponse, ...]
    waited_s: float


@dataclass(frozen=True)
class _Blocked:
    """A call the loop does not run this turn: the response that stands for it, the tool message
    the model reads, and what the trace says of it."""

    response: ToolResponse
    text: str
    traced: Mapping[str, Any]


@dataclass(slots=True)
class _ToolAttempts:
    """Where one tool call's attempts stand: its arguments, the answers so far, seconds waited."""

    arguments: str
    responses: list[ToolResponse] = field(default_factory=list)
    waited: float = 0.0

    def done(self) -> _Attempted:
        return _Attempted(tuple(self.responses), self.waited)


class Agent:
    """A status-driven agent over a :class:`ToolRegistry` and a :class:`ChatModel`; see the module doc.

    ``clock`` (monotonic seconds), ``sleep`` and ``asleep`` are injected so that
    backoff is tested without waiting (``toolresponse.testing.FakeClock``
    provides all three). ``trace`` is a path or an open writer; each run
    appends its events to it, secrets masked, including the state changes of
    the registry's breaker while the run lasts (a breaker shared with other
    runs reports theirs too).
    """

    def __init__(
        self,
        registry: ToolRegistry,
        model: ChatModel,
        *,
        system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
        max_steps: int = 10,
        max_parallel_tools: int = 4,
        max_failures_per_call: int = 2,
        max_tool_calls_per_step: int = 32,
        tool_retry: RetryPolicy = DEFAULT_TOOL_RETRY,
        model_retry: RetryPolicy = DEFAULT_MODEL_RETRY,
        trace: TraceTarget | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        asleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        for name, value in (
            ("max_steps", max_steps),
            ("max_parallel_tools", max_parallel_tools),
            ("max_failures_per_call", max_failures_per_call),
            ("max_tool_calls_per_step", max_tool_calls_per_step),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, not {value!r}")
        if not isinstance(model, ChatModel):
            raise TypeError(f"model must be a ChatModel (complete and acomplete), not {type(model).__name__}")
        self.registry = registry
        self.model = model
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.max_parallel_tools = max_parallel_tools
        self.max_failures_per_call = max_failures_per_call
        self.max_tool_calls_per_step = max_tool_calls_per_step
        self.tool_retry = tool_retry
        self.model_retry = model_retry
        self._trace_target = trace
        self._clock = clock
        self._sleep = sleep
        self._asleep = asleep
        self._wall_clock = wall_clock

    # -- the two entry points --------------------------------------------------------------

    def run(self, task: str, *, run_id: str | None = None) -> AgentResult:
        """Run the task to an answer, the step budget or a model error; never raises for those."""
        state = self._start(task, run_id)
        executor: ThreadPoolExecutor | None = None
        try:
            for index in range(self.max_steps):
                reply = self._complete(state, index)
                if isinstance(reply, ModelError):
                    return self._finish(state, task, RunOutcome.MODEL_ERROR, None, self._model_reason(reply))
                if not reply.tool_calls:
                    return self._answered(state, task, index, reply)
                if executor is None and len(reply.tool_calls) > 1 and self.max_parallel_tools > 1:
                    executor = ThreadPoolExecutor(self.max_parallel_tools, thread_name_prefix="agent-tool")
                self._before_calls(state, index, reply)
                plans = self._plans(state, reply)
                runnable = [call for call, blocked in plans if blocked is None]
                if executor is not None and len(runnable) > 1:
                    # Each call in a copy of this thread's context, so its spans keep their parent.
                    futures = [
                        executor.submit(contextvars.copy_context().run, self._attempt, state, index, call)
                        for call in runnable
                    ]
                    outcomes = [future.result() for future in futures]
                else:
                    outcomes = [self._attempt(state, index, call) for call in runnable]
                self._after_calls(state, index, reply, plans, outcomes)
            return self._finish(state, task, RunOutcome.MAX_STEPS, None, self._max_steps_reason())
        finally:
            if executor is not None:
                executor.shutdown(wait=True)
            state.trace.close()

    async def arun(self, task: str, *, run_id: str | None = None) -> AgentResult:
        """The asynchronous ``run``: tool calls of a turn run as concurrent tasks, model calls are awaited."""
        state = self._start(task, run_id)
        limit = asyncio.Semaphore(self.max_parallel_tools)
        try:
            for index in range(self.max_steps):
                reply = await self._acomplete(state, index)
                if isinstance(reply, ModelError):
                    return self._finish(state, task, RunOutcome.MODEL_ERROR, None, self._model_reason(reply))
                if not reply.tool_calls:
                    return self._answered(state, task, index, reply)
                self._before_calls(state, index, reply)
                plans = self._plans(state, reply)
                runnable = [call for call, blocked in plans if blocked is None]
                outcomes = list(
                    await asyncio.gather(*(self._aattempt(state, index, call, limit) for call in runnable))
                )
                self._after_calls(state, index, reply, plans, outcomes)
            return self._finish(state, task, RunOutcome.MAX_STEPS, None, self._max_steps_reason())
        finally:
            state.trace.close()

    # -- the run's bookkeeping, shared by both paths ---------------------------------------

    def _start(self, task: str, run_id: str | None) -> _RunState:
        if not isinstance(task, str) or not task.strip():
            raise ValueError("the task must be a non-empty string")
        run_id = run_id or uuid.uuid4().hex[:12]
        started = self._clock()
        trace = open_trace(self._trace_target, run_id=run_id, clock=self._clock, started=started)
        trace.watch_breaker(self.registry.breaker)
        messages: list[dict[str, Any]] = []
        if self.system_prompt:
            messages.append({"role": "system", "content": self.system_prompt})
        messages.append({"role": "user", "content": task})
        # The tools the loop's own calls may see (it calls as LOCAL_CALLER): a tool the policies
        # hide from it would only be answered as unknown.
        tools = [dict(schema) for schema in self.registry.tool_schemas("openai", caller=LOCAL_CALLER)]
        names = tuple(self.registry.names(caller=LOCAL_CALLER))
        trace.emit(
            "run_start",
            task=task,
            model=str(getattr(self.model, "name", type(self.model).__name__)),
            tools=list(names),
            max_steps=self.max_steps,
            started_at=self._wall_clock(),
        )
        return _RunState(
            run_id=run_id, trace=trace, messages=messages, tools=tools, tool_names=names, started=started
        )

    def _max_steps_reason(self) -> str:
        return f"the model was still calling tools after {self.max_steps} steps (max_steps={self.max_steps})"

    def _model_reason(self, error: ModelError) -> str:
        return f"the model failed: {error}"

    def _answered(self, state: _RunState, task: str, index: int, reply: ModelReply) -> AgentResult:
        state.messages.append(reply.to_message())
        state.steps.append(AgentStep(index=index, reply=reply))
        cut_off = _CUT_OFF.get(reply.finish_reason or "")
        if cut_off is not None:
            return self._finish(state, task, RunOutcome.INCOMPLETE, reply.content or "", cut_off)
        return self._finish(state, task, RunOutcome.ANSWERED, reply.content or "", "the model answered")

    def _finish(
        self, state: _RunState, task: str, outcome: RunOutcome, answer: str | None, reason: str
    ) -> AgentResult:
        duration_s = self._clock() - state.started
        reason = mask_secrets(reason)
        result = AgentResult(
            task=task,
            outcome=outcome,
            answer=answer,
            reason=reason,
            steps=tuple(state.steps),
            usage=state.usage,
            duration_s=duration_s,
            run_id=state.run_id,
            messages=tuple(state.messages),
        )
        state.trace.emit(
            "run_end",
            outcome=outcome.value,
            reason=reason,
            answer=answer,
            steps=len(state.steps),
            tool_calls=len(result.tool_calls),
            usage=state.usage.to_dict(),
            duration_ms=round(duration_s * 1000, 3),
        )
        return result

    def _model_output(
        self, state: _RunState, index: int, attempt: int, reply: ModelReply, time_ms: float
    ) -> None:
        state.usage = state.usage + reply.usage
        notes = {"notes": list(reply.notes)} if reply.notes else {}
        state.trace.emit(
            "model_output",
            step=index,
            attempt=attempt,
            content=reply.content,
            tool_calls=[
                {"id": c.id, "name": c.name, "arguments": _masked_arguments_text(c.arguments)}
                for c in reply.tool_calls
            ],
            finish_reason=reply.finish_reason,
            usage=reply.usage.to_dict(),
            time_ms=round(time_ms, 3),
            **notes,
        )

    def _model_retry_wait(
        self, state: _RunState, index: int, attempt: int, error: ModelError, waited_s: float
    ) -> float | None:
        wait = (
            self.model_retry.next_wait_s(attempt, waited_s, error.retry_after_s) if error.retryable else None
        )
        state.trace.emit(
            "model_error",
            step=index,
            attempt=attempt,
            code=error.code.value,
            status_code=error.status_code,
            message=error.message,
            retryable=error.retryable,
            retry_in_ms=None if wait is None else round(wait * 1000, 3),
        )
        return wait

    def _attempt_answered(
        self, state: _RunState, index: int, attempts: _ModelAttempts, reply: ModelReply
    ) -> ModelReply:
        """The model answered: record its output and hand the reply back."""
        elapsed_ms = (self._clock() - attempts.started) * 1000
        self._model_output(state, index, attempts.attempt, reply, elapsed_ms)
        return reply

    def _attempt_failed(
        self, state: _RunState, index: int, attempts: _ModelAttempts, exc: Exception
    ) -> float | ModelError:
        """The model failed: how long to wait before the next attempt, or the error to give up with."""
        error = _model_failure(exc)
        wait = self._model_retry_wait(state, index, attempts.attempt, error, attempts.waited)
        if wait is None:
            return self._gave_up(error, attempts.attempt + 1, attempts.waited)
        attempts.waited += wait
        attempts.attempt += 1
        return wait

    def _gave_up(self, error: ModelError, attempts: int, waited_s: float) -> ModelError:
        if attempts <= 1:
            return error
        return ModelError(
            f"{error.message} (after {attempts} attempts and {waited_s:g} s of backoff)",
            code=error.code,
            status_code=error.status_code,
            retry_after_s=error.retry_after_s,
            retryable=error.retryable,
        )

    def _complete(self, state: _RunState, index: int) -> ModelReply | ModelError:
        attempts = _ModelAttempts()
        while True:
            attempts.started = self._clock()
            try:
                reply = _checked(self.model.complete(state.messages, state.tools))
            except Exception as exc:
                wait = self._attempt_failed(state, index, attempts, exc)
                if isinstance(wait, ModelError):
                    return wait
                self._sleep(wait)
            else:
                return self._attempt_answered(state, index, attempts, reply)

    async def _acomplete(self, state: _RunState, index: int) -> ModelReply | ModelError:
        attempts = _ModelAttempts()
        while True:
            attempts.started = self._clock()
            try:
                reply = _checked(await self.model.acomplete(state.messages, state.tools))
            except Exception as exc:
                wait = self._attempt_failed(state, index, attempts, exc)
                if isinstance(wait, ModelError):
                    return wait
                await self._asleep(wait)
            else:
                return self._attempt_answered(state, index, attempts, reply)

    # -- tool calls ------------------------------------------------------------------------

    def _before_calls(self, state: _RunState, index: int, reply: ModelReply) -> None:
        state.messages.append(reply.to_message())
        for call in reply.tool_calls:
            _trace_call(state, "tool_request", index, call, arguments=_arguments_for_trace(call))

    def _plans(self, state: _RunState, reply: ModelReply) -> list[tuple[ToolCall, _Blocked | None]]:
        """Each call with, when it is not to run, why: the guard refuses a call that would repeat an
        earlier failure, and calls past ``max_tool_calls_per_step`` wait for the next turn."""
        plans: list[tuple[ToolCall, _Blocked | None]] = []
        asked = len(reply.tool_calls)
        for position, call in enumerate(reply.tool_calls):
            key = (call.name, canonical_arguments(_arguments(call)))
            blocked = None
            if state.failures.get(key, 0) >= self.max_failures_per_call:
                failures = state.failures[key]
                last = state.last_failure[key]
                blocked = _Blocked(
                    last,
                    guard_text(call.name, failures, last),
                    {"failures": failures, "code": last.code.value if last.code else None},
                )
            elif position >= self.max_tool_calls_per_step:
                blocked = self._over_the_limit(call, asked)
            plans.append((call, blocked))
        return plans

    def _over_the_limit(self, call: ToolCall, asked: int) -> _Blocked:
        limit = self.max_tool_calls_per_step
        message = (
            f"this reply asked for {asked} tool calls and at most {limit} run per turn: "
            f"{call.name!r} did not run"
        )
        response = ToolResponse.error(
            ErrorCode.RATE_LIMIT,
            message,
            details={"asked": asked, "limit": limit},
            context={"tool_name": call.name, "call_id": call.id},
        )
        text = (
            f"NOT EXECUTED: {message}. Ask for it again in your next reply if you still need it, "
            f"at most {limit} calls in one reply."
        )
        return _Blocked(response, text, {"code": ErrorCode.RATE_LIMIT.value, "limit": limit})

    def _retry_wait(
        self, state: _RunState, index: int, call: ToolCall, attempted: list[ToolResponse], waited: float
    ) -> float | None:
        response = attempted[-1]
        if not (response.is_error and response.is_retryable) or call.name not in state.tool_names:
            return None
        if is_denial(response):  # a refusal stands, whatever its retryable says
            return None
        after = response.retry_after_ms
        wait = self.tool_retry.next_wait_s(
            len(attempted) - 1, waited, None if after is None else after / 1000
        )
        if wait is not None:
            _trace_call(
                state,
                "tool_retry",
                index,
                call,
                attempt=len(attempted),
                code=response.code.value if response.code else None,
                wait_ms=round(wait * 1000, 3),
            )
        return wait

    def _tool_result(
        self,
        state: _RunState,
        index: int,
        call: ToolCall,
        attempt: int,
        response: ToolResponse,
        time_ms: float,
    ) -> None:
        stats_time = (response.stats or {}).get("time_ms")
        denied = _denied_by(response)
        _trace_call(
            state,
            "tool_result",
            index,
            call,
            attempt=attempt,
            status=response.status.value,
            code=response.code.value if response.code else None,
            retryable=response.is_retryable if response.is_error else None,
            time_ms=round(float(stats_time) if stats_time is not None else time_ms, 3),
            text=_clip(response.text),
            **({} if denied is None else {"denied_by": denied}),
        )

    def _attempt(self, state: _RunState, index: int, call: ToolCall) -> _Attempted:
        if call.problem is not None:
            return self._unreadable(state, index, call)
        attempts = _ToolAttempts(_arguments(call))
        while True:
            started = self._clock()
            response = self.registry.execute(call.name, attempts.arguments, call_id=call.id)
            elapsed_ms = (self._clock() - started) * 1000
            wait = self._tool_attempted(state, index, call, attempts, response, elapsed_ms)
            if wait is None:
                return attempts.done()
            self._sleep(wait)

    async def _aattempt(
        self, state: _RunState, index: int, call: ToolCall, limit: asyncio.Semaphore
    ) -> _Attempted:
        if call.problem is not None:
            return self._unreadable(state, index, call)
        attempts = _ToolAttempts(_arguments(call))
        while True:
            async with limit:
                started = self._clock()
                response = await self.registry.aexecute(call.name, attempts.arguments, call_id=call.id)
                elapsed_ms = (self._clock() - started) * 1000
            wait = self._tool_attempted(state, index, call, attempts, response, elapsed_ms)
            if wait is None:
                return attempts.done()
            await self._asleep(wait)

    def _tool_attempted(
        self,
        state: _RunState,
        index: int,
        call: ToolCall,
        attempts: _ToolAttempts,
        response: ToolResponse,
        elapsed_ms: float,
    ) -> float | None:
        """One attempt's answer, traced and kept; the seconds to wait before the next (counted as
        waited), or None when the call is done."""
        self._tool_result(state, index, call, len(attempts.responses), response, elapsed_ms)
        attempts.responses.append(response)
        wait = self._retry_wait(state, index, call, attempts.responses, attempts.waited)
        if wait is not None:
            attempts.waited += wait
        return wait

    def _unreadable(self, state: _RunState, index: int, call: ToolCall) -> _Attempted:
        """A call the model sent in a form no tool can take: answered INVALID_FORMAT, nothing run."""
        response = ToolResponse.error(
            ErrorCode.INVALID_FORMAT,
            f"The tool call{f' to {call.name!r}' if call.name else ''} could not be read: {call.problem}. "
            "Send the function's name and its arguments as one JSON object written as a string, "
            "for example '{\"a\": 1}' ('{}' for none).",
        )
        self._tool_result(state, index, call, 0, response, 0.0)
        return _Attempted((response,), 0.0)

    def _after_calls(
        self,
        state: _RunState,
        index: int,
        reply: ModelReply,
        plans: Sequence[tuple[ToolCall, _Blocked | None]],
        outcomes: Sequence[_Attempted],
    ) -> None:
        """Write the tool messages in the model's order and update the repeated-failure guard."""
        done = iter(outcomes)
        records: list[ToolCallRecord] = []
        for call, blocked in plans:
            key = (call.name, canonical_arguments(_arguments(call)))
            if blocked is not None:
                text = blocked.text
                record = ToolCallRecord(
                    call=call, response=blocked.response, attempts=(), executed=False, feedback=text
                )
                _trace_call(state, "tool_blocked", index, call, **blocked.traced)
            else:
                attempted = next(done)
                response = attempted.attempts[-1]
                text = feedback_text(
                    response,
                    tool=call.name,
                    available_tools=state.tool_names,
                    retries=len(attempted.attempts) - 1,
                    waited_s=attempted.waited_s,
                )
                record = ToolCallRecord(
                    call=call,
                    response=response,
                    attempts=attempted.attempts,
                    executed=True,
                    feedback=text,
                    waited_s=attempted.waited_s,
                )
                if response.is_error:
                    failures = state.failures.get(key, 0) + 1
                    if is_denial(response):  # refused: asking again would be refused again
                        failures = max(failures, self.max_failures_per_call)
                    state.failures[key] = failures
                    state.last_failure[key] = response
            records.append(record)
            # The provider message is the interop's OpenAI tool message: the feedback is what the model
            # reads; no trailer, as the whole response is kept in the record and the trace.
            state.messages.append(
                to_openai_chat(record.response, tool_call_id=call.id, text=text, carry=False)
            )
        state.steps.append(AgentStep(index=index, reply=reply, tool_calls=tuple(records)))


def _trace_call(state: _RunState, event: str, index: int, call: ToolCall, **members: Any) -> None:
    """Trace ``event`` of one tool call: its step, its id and its tool, then ``members``."""
    state.trace.emit(event, step=index, call_id=call.id, tool=call.name, **members)


def _model_failure(error: Exception) -> ModelError:
    """A model's exception as a ModelError: another provider's surprise is a non-retryable bad response."""
    if isinstance(error, ModelError):
        return error
    return ModelError(f"{type(error).__name__}: {error}", code=ErrorCode.API_ERROR)


def _checked(reply: Any) -> ModelReply:
    """A model's reply with every member of its declared type (see ``checked_reply``)."""
    if not isinstance(reply, ModelReply):
        raise ModelError(
            f"the model returned {type(reply).__name__}, not a ModelReply", code=ErrorCode.API_ERROR
        )
    return checked_reply(reply)


def _arguments(call: ToolCall) -> str:
    # Some servers send "" for a call without arguments; that is the empty object, not malformed JSON.
    return call.arguments if call.arguments.strip() else "{}"


def _arguments_for_trace(call: ToolCall) -> Any:
    """The arguments as the trace's ``tool_request`` holds them: the JSON object when they are one
    (masked member by member when written), else the text as the model wrote it (masked as text)."""
    try:
        value = json.loads(_arguments(call))
    except (ValueError, RecursionError):
        return call.arguments
    return value if isinstance(value, Mapping) else call.arguments


def _masked_arguments_text(arguments: str) -> str:
    """The model's argument text for the trace's ``model_output``, secrets masked: JSON text is
    masked member by member (so a secret-named member is masked whatever its value) and written
    back compactly; other text is masked as text."""
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):
        return str(mask_secrets(arguments))
    if not isinstance(value, Mapping | list):
        return str(mask_secrets(arguments))
    try:
        return json.dumps(mask_secrets(value), ensure_ascii=False, separators=(",", ":"))
    except (ValueError, RecursionError):
        return str(mask_secrets(arguments))


def _denied_by(response: ToolResponse) -> str | None:
    """The access rule that refused the call (the denial's ``details.policy``), or None."""
    if not is_denial(response) or response.error_info is None:
        return None
    rule = (response.error_info.details or {}).get("policy")
    return rule if isinstance(rule, str) else None


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
