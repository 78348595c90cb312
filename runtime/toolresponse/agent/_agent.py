"""The agent loop: a chat model calls tools through a ToolRegistry, and each response's status
decides what happens next (docs/observability.md, "The agent's run").

The loop is written once, as coroutines that await what they need done (a model call, a tool
call, a wait, several tool calls at once) of a driver: ``run``'s does it at once in its thread and
the tool calls of a turn in worker threads, so that its coroutines never suspend and need no event
loop; ``arun``'s awaits the model and the registry, the tool calls of a turn as tasks.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from functools import partial
from typing import TYPE_CHECKING, Any, Final, TypeVar

from toolresponse_generated import ErrorCode

from .._errors import ModelError
from .._response import ToolResponse
from ..interop import to_openai_chat
from ..tools._policy import LOCAL_CALLER
from ..tools._trace import mask_secrets
from ._feedback import feedback_text, guard_text, is_denial
from ._models import ChatModel, ModelReply, TokenUsage, ToolCall, checked_reply
from ._retry import RetryPolicy
from ._trace import TRACE_VERSION, RunTrace, TraceTarget

if TYPE_CHECKING:
    from ..tools._registry import ToolRegistry

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

API: Final = ErrorCode.API_ERROR

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
    """The model's final reply was cut off (``finish_reason`` ``length`` or ``content_filter``):
    ``answer`` is its text so far."""


@dataclass(frozen=True, kw_only=True)
class ToolCallRecord:
    """One tool call of the model and what came of it: the response of every execution
    (``attempts``) and the one the model's message was written from; a call the loop did not run
    has ``executed`` False, no attempts, and as ``response`` the failure that stands for it."""

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
    """Why the run ended, in one sentence, secrets masked (a provider's error may quote the
    credential it refused)."""
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


T = TypeVar("T")
_Step = Callable[[ToolCall], Coroutine[Any, Any, T]]
"""What the loop does of each tool call of a turn, at once (``together``)."""


@dataclass
class _Run:
    """What one run accumulates; the guard's counts are only touched between turns."""

    task: str
    run_id: str
    trace: RunTrace
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_names: tuple[str, ...]
    started: float
    steps: list[AgentStep] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    failures: dict[tuple[str, str], tuple[int, ToolResponse]] = field(default_factory=dict)
    """The failures of each (tool, canonical arguments) so far: how many, and the last."""


@dataclass(eq=False)
class Agent:
    """A status-driven agent over a :class:`ToolRegistry` and a :class:`ChatModel`.

    ``clock`` (monotonic seconds), ``sleep`` and ``asleep`` are injected (``testing.FakeClock`` has
    all three). ``trace`` is a path or a writer; each run appends its events to it, secrets masked,
    the breaker's state changes included (a breaker shared with other runs reports theirs too).
    """

    registry: ToolRegistry
    model: ChatModel
    _: KW_ONLY
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT
    max_steps: int = 10
    max_parallel_tools: int = 4
    max_failures_per_call: int = 2
    max_tool_calls_per_step: int = 32
    tool_retry: RetryPolicy = DEFAULT_TOOL_RETRY
    model_retry: RetryPolicy = DEFAULT_MODEL_RETRY
    trace: TraceTarget | None = None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    asleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    wall_clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_parallel_tools", "max_failures_per_call", "max_tool_calls_per_step"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, not {value!r}")
        if not isinstance(self.model, ChatModel):
            kind = type(self.model).__name__
            raise TypeError(f"model must be a ChatModel (complete and acomplete), not {kind}")

    # -- the two drivers ---------------------------------------------------------------------

    def run(self, task: str, *, run_id: str | None = None) -> AgentResult:
        """Run the task to an answer, the step budget or a model error; never raises for those."""
        state = self._start(task, run_id)
        # The pool starts no thread before a submit; it is shut down before the trace is closed.
        with closing(state.trace), ThreadPoolExecutor(self.max_parallel_tools, "agent-tool") as pool:
            return _at_once(self._turns(state, _InThreads(self, pool)))

    async def arun(self, task: str, *, run_id: str | None = None) -> AgentResult:
        """The asynchronous ``run``: tool calls of a turn run as concurrent tasks, model calls are awaited."""
        state = self._start(task, run_id)
        with closing(state.trace):
            return await self._turns(state, _InTasks(self, asyncio.Semaphore(self.max_parallel_tools)))

    # One model call each, its reply checked: what ``toolresponse.otel`` makes a chat span of.

    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        return _checked(self.model.complete(messages, tools))

    async def _acomplete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        return _checked(await self.model.acomplete(messages, tools))

    # -- the loop, written once ----------------------------------------------------------------

    async def _turns(self, state: _Run, driver: _Driver) -> AgentResult:
        for index in range(self.max_steps):
            reply = await self._model_call(state, driver, index)
            if isinstance(reply, ModelError):
                return self._finish(state, RunOutcome.MODEL_ERROR, None, f"the model failed: {reply}")
            state.messages.append(reply.to_message())
            if not reply.tool_calls:
                state.steps.append(AgentStep(index=index, reply=reply))
                cut_off = _CUT_OFF.get(reply.finish_reason or "")
                outcome = RunOutcome.ANSWERED if cut_off is None else RunOutcome.INCOMPLETE
                return self._finish(state, outcome, reply.content or "", cut_off or "the model answered")
            for call in reply.tool_calls:
                state.trace.tool_request(index, call)
            held = [self._held(state, index, reply, position) for position in range(len(reply.tool_calls))]
            runnable = [call for call, record in zip(reply.tool_calls, held, strict=True) if record is None]
            ran = iter(await driver.together(partial(self._tool_call, state, driver, index), runnable))
            self._record(state, index, reply, [record or next(ran) for record in held])
        reason = (
            f"the model was still calling tools after {self.max_steps} steps (max_steps={self.max_steps})"
        )
        return self._finish(state, RunOutcome.MAX_STEPS, None, reason)

    async def _model_call(self, state: _Run, driver: _Driver, index: int) -> ModelReply | ModelError:
        """One turn's call of the model, retried as ``model_retry`` allows."""
        attempt, waited = 0, 0.0
        while True:
            started = self.clock()
            try:
                reply = await driver.complete(state.messages, state.tools)
            except Exception as raised:
                # Another provider's surprise is a bad response that will not get better.
                error = (
                    raised
                    if isinstance(raised, ModelError)
                    else ModelError(f"{type(raised).__name__}: {raised}", code=API)
                )
            else:
                state.usage = state.usage + reply.usage
                state.trace.model_output(index, attempt, reply, (self.clock() - started) * 1000)
                return reply
            hint = error.retry_after_s
            wait = self.model_retry.next_wait_s(attempt, waited, hint) if error.retryable else None
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
            if wait is None:
                return error if attempt == 0 else _gave_up(error, attempt + 1, waited)
            waited, attempt = waited + wait, attempt + 1
            await driver.sleep(wait)

    async def _tool_call(self, state: _Run, driver: _Driver, index: int, call: ToolCall) -> ToolCallRecord:
        """One tool call, retried while its error is retryable and ``tool_retry`` allows; a call in a
        form no tool can take is answered INVALID_FORMAT, nothing run."""
        responses: list[ToolResponse] = []
        waited = 0.0
        while True:
            if call.problem is None:
                response, time_ms = await driver.execute(call)
            else:
                response, time_ms = _unreadable(call), 0.0
            state.trace.tool_result(index, call, len(responses), response, time_ms)
            responses.append(response)
            # Done: a success, a refusal (whatever its retryable says), an unknown tool, a permanent
            # error, or no retry left.
            after = response.retry_after_ms
            retry = response.is_retryable and call.name in state.tool_names and not is_denial(response)
            hint = None if after is None else after / 1000
            wait = self.tool_retry.next_wait_s(len(responses) - 1, waited, hint) if retry else None
            if wait is None:
                return _ran(call, tuple(responses), waited, state.tool_names)
            state.trace.tool_event(
                "tool_retry",
                index,
                call,
                attempt=len(responses),
                code=response.code.value if response.code else None,
                wait_ms=round(wait * 1000, 3),
            )
            waited += wait
            await driver.sleep(wait)

    def _held(self, state: _Run, index: int, reply: ModelReply, position: int) -> ToolCallRecord | None:
        """The record of a call that is not to run, else None: the guard refuses a call that would
        repeat an earlier failure; calls past ``max_tool_calls_per_step`` wait for the next turn."""
        call, asked, limit = reply.tool_calls[position], len(reply.tool_calls), self.max_tool_calls_per_step
        failures, last = state.failures.get(_key(call), (0, None))
        if last is not None and failures >= self.max_failures_per_call:
            code = last.code.value if last.code else None
            state.trace.tool_event("tool_blocked", index, call, failures=failures, code=code)
            return _not_run(call, last, guard_text(call.name, failures, last))
        if position < limit:
            return None
        message = f"this reply asked for {asked} tool calls and at most {limit} run per turn: "
        message += f"{call.name!r} did not run"
        response = ToolResponse.error(
            ErrorCode.RATE_LIMIT,
            message,
            details={"asked": asked, "limit": limit},
            # A tool name is never empty in a response; a model may still send one (its call refused).
            context={"tool_name": call.name, "call_id": call.id} if call.name else {"call_id": call.id},
        )
        state.trace.tool_event("tool_blocked", index, call, code=ErrorCode.RATE_LIMIT.value, limit=limit)
        text = (
            f"NOT EXECUTED: {message}. Ask for it again in your next reply if you still need it, "
            f"at most {limit} calls in one reply."
        )
        return _not_run(call, response, text)

    def _record(self, state: _Run, index: int, reply: ModelReply, records: list[ToolCallRecord]) -> None:
        """Write the tool messages in the model's order and update the repeated-failure guard."""
        for record in records:
            call, response = record.call, record.response
            if record.executed and response.is_error:
                failures = state.failures.get(_key(call), (0, response))[0] + 1
                if is_denial(response):  # refused: asking again would be refused again
                    failures = max(failures, self.max_failures_per_call)
                state.failures[_key(call)] = (failures, response)
            # The feedback is what the model reads; no trailer: the record and the trace keep the response.
            state.messages.append(
                to_openai_chat(response, tool_call_id=call.id, text=record.feedback, carry=False)
            )
        state.steps.append(AgentStep(index=index, reply=reply, tool_calls=tuple(records)))

    # -- the run's bookkeeping -------------------------------------------------------------------

    def _start(self, task: str, run_id: str | None) -> _Run:
        if not isinstance(task, str) or not task.strip():
            raise ValueError("the task must be a non-empty string")
        run_id = run_id or uuid.uuid4().hex[:12]
        started = self.clock()
        trace = RunTrace(self.trace, run_id=run_id, clock=self.clock, started=started)
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
            started_at=self.wall_clock(),
            trace_version=TRACE_VERSION,
        )
        return _Run(task, run_id, trace, messages, tools, names, started)

    def _finish(self, state: _Run, outcome: RunOutcome, answer: str | None, reason: str) -> AgentResult:
        duration_s = self.clock() - state.started
        result = AgentResult(
            task=state.task,
            outcome=outcome,
            answer=answer,
            reason=mask_secrets(reason),
            steps=tuple(state.steps),
            usage=state.usage,
            duration_s=duration_s,
            run_id=state.run_id,
            messages=tuple(state.messages),
        )
        state.trace.emit(
            "run_end",
            outcome=outcome.value,
            reason=result.reason,
            answer=answer,
            steps=len(state.steps),
            tool_calls=len(result.tool_calls),
            usage=state.usage.to_dict(),
            duration_ms=round(duration_s * 1000, 3),
        )
        return result


def _checked(answer: Any) -> ModelReply:
    if not isinstance(answer, ModelReply):
        raise ModelError(f"the model returned {type(answer).__name__}, not a ModelReply", code=API)
    return checked_reply(answer)


def _gave_up(error: ModelError, attempts: int, waited_s: float) -> ModelError:
    return ModelError(
        f"{error.message} (after {attempts} attempts and {waited_s:g} s of backoff)",
        code=error.code,
        status_code=error.status_code,
        retry_after_s=error.retry_after_s,
        retryable=error.retryable,
    )


def _key(call: ToolCall) -> tuple[str, str]:
    """What the repeated-failure guard counts the failures of: the tool and its arguments, as
    canonical JSON (sorted keys, no spaces) when they parse, else as written."""
    value = call.parsed_arguments
    if value is None:  # not JSON, or JSON null: either way its text stripped ("null" for null)
        return call.name, call.arguments.strip()
    return call.name, json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _unreadable(call: ToolCall) -> ToolResponse:
    """The answer to a call in a form no tool can take (``call.problem`` says how)."""
    name = f" to {call.name!r}" if call.name else ""
    return ToolResponse.error(
        ErrorCode.INVALID_FORMAT,
        f"The tool call{name} could not be read: {call.problem}. Send the function's name and "
        "its arguments as one JSON object written as a string, for example '{\"a\": 1}' "
        "('{}' for none).",
    )


def _ran(
    call: ToolCall, attempts: tuple[ToolResponse, ...], waited_s: float, names: Sequence[str]
) -> ToolCallRecord:
    """The record of a call the loop ran, with the tool message written from its last answer."""
    response, retries = attempts[-1], len(attempts) - 1
    text = feedback_text(response, tool=call.name, available_tools=names, retries=retries, waited_s=waited_s)
    return ToolCallRecord(
        call=call, response=response, attempts=attempts, executed=True, feedback=text, waited_s=waited_s
    )


def _not_run(call: ToolCall, response: ToolResponse, feedback: str) -> ToolCallRecord:
    return ToolCallRecord(call=call, response=response, attempts=(), executed=False, feedback=feedback)


def _at_once(coroutine: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never suspends (``run``'s: its driver does each thing at once)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    raise RuntimeError("the synchronous run awaited something that suspends")


@dataclass(frozen=True)
class _InThreads:
    """What ``run``'s loop awaits, done at once in its thread; the tool calls of a turn in ``pool``."""

    agent: Agent
    pool: ThreadPoolExecutor

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        return self.agent._complete(messages, tools)

    async def execute(self, call: ToolCall) -> tuple[ToolResponse, float]:
        started = self.agent.clock()
        response = self.agent.registry.execute(call.name, call.argument_text, call_id=call.id)
        return response, (self.agent.clock() - started) * 1000

    async def sleep(self, seconds: float) -> None:
        self.agent.sleep(seconds)

    async def together(self, step: _Step[T], calls: list[ToolCall]) -> list[T]:
        if len(calls) < 2 or self.agent.max_parallel_tools == 1:
            return [await step(call) for call in calls]
        # Each in a copy of this thread's context, so that its spans keep their parent.
        run = [self.pool.submit(contextvars.copy_context().run, _at_once, step(call)) for call in calls]
        return [future.result() for future in run]


@dataclass(frozen=True)
class _InTasks:
    """What ``arun``'s loop awaits: at most ``limit`` registry calls at once."""

    agent: Agent
    limit: asyncio.Semaphore

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        return await self.agent._acomplete(messages, tools)

    async def execute(self, call: ToolCall) -> tuple[ToolResponse, float]:
        async with self.limit:
            started = self.agent.clock()
            response = await self.agent.registry.aexecute(call.name, call.argument_text, call_id=call.id)
            return response, (self.agent.clock() - started) * 1000

    async def sleep(self, seconds: float) -> None:
        await self.agent.asleep(seconds)

    async def together(self, step: _Step[T], calls: list[ToolCall]) -> list[T]:
        return list(await asyncio.gather(*map(step, calls)))


_Driver = _InThreads | _InTasks
