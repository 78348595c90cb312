"""``PreparedTool``: a tool checked and compiled for calling, and the guarded, timed call itself.

A call always answers a valid ToolResponse (``_answers.py`` writes the failures; only
``KeyboardInterrupt`` and ``SystemExit`` propagate), with ``stats.time_ms`` and ``context``. A
synchronous tool called synchronously without a timeout, and a ``cooperative`` tool, run in the
caller's thread or task; every other call runs on one of the tool's threads.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolresponse_generated import ToolStatus

from .._errors import JsonValueError, MalformedJsonError, ToolDefinitionError
from .._response import ToolResponse, loads_strict, owned_response, trusted_response, with_call_info
from .._suggest import is_finite_number, shortened
from ..validation import to_json_data
from ..validation._jsondata import NOT_PLAIN, is_json_data, plain_object_copy
from ._answers import (
    Success,
    changed_response,
    execution_error,
    internal_error,
    invalid_params,
    is_response,
    masked_error,
    not_a_response,
    output_violation,
    params_input_of,
    plain_success,
    timeout_error,
    unreadable_params,
    wrap_sync_value,
)
from ._params import ParameterValidator
from ._threads import DEFAULT_MAX_THREADS, INTERRUPTS, AsyncWait, Job, Raised, ToolThreads, Wait
from ._trace import mask_params

Clock = Callable[[], float]

NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Tool names usable by every provider format (OpenAI, Anthropic and MCP alike)."""

_ERROR = ToolStatus.ERROR
_SUCCESS = ToolStatus.SUCCESS

Outcome = ToolResponse | Success
"""What running a tool gives: its response, or the text and data of a plain function's success."""


@dataclass(frozen=True, slots=True)
class Runs:
    """A tool's ``run`` and ``arun`` (either may be None), and the plain synchronous ``function``
    that ``run`` only wraps (then called directly)."""

    run: Callable[[dict[str, Any]], Any] | None
    arun: Callable[[dict[str, Any]], Awaitable[Any]] | None
    function: Callable[..., Any] | None = None


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """What a registered tool looks like from outside: for tool listings and model descriptions."""

    name: str
    description: str
    parameters: dict[str, Any]
    output_schema: dict[str, Any] | None
    timeout_s: float | None
    is_async: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON data: ``name``, ``description``, ``parameters``, and the optional members when set."""
        optional = {"output_schema": self.output_schema, "timeout_s": self.timeout_s}
        result = {"name": self.name, "description": self.description, "parameters": self.parameters}
        return result | {key: value for key, value in optional.items() if value is not None}


def check_timeout(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if not is_finite_number(value) or value <= 0 or value > threading.TIMEOUT_MAX:
        raise ToolDefinitionError(
            f"{where}: timeout_s must be a positive number of seconds up to {threading.TIMEOUT_MAX:g}"
            f" (the longest wait a thread can make) or None, not {value!r}"
        )
    return float(value)


def check_max_threads(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolDefinitionError(f"ToolRegistry: max_threads_per_tool must be an int >= 1, not {value!r}")
    return value


def call_id_of(call_id: Any) -> str | None:
    """The caller's ``call_id`` as ``context.call_id`` takes it: a string of valid Unicode."""
    if call_id is None or (type(call_id) is str and call_id.isascii()):
        return call_id
    return shortened(str(call_id), 1000)


def call_context(tool: str | None, params_input: Any, call_id: str | None, *, mask: bool) -> dict[str, Any]:
    """An answer's ``context``: the tool's name, the parameters (secrets masked with ``mask``) and the
    call's id, each when known."""
    context: dict[str, Any] = {} if tool is None else {"tool_name": tool}
    if params_input is not None:
        context["params_input"] = mask_params(params_input) if mask else params_input
    if call_id is not None:
        context["call_id"] = call_id
    return context


def _object_schema(schema: Any, where: str, what: str) -> ParameterValidator:
    validator = ParameterValidator.compile(schema, where=f"{where}, {what}")
    if validator.schema.get("type") != "object":
        raise ToolDefinitionError(f'{where}: the {what} must be a JSON Schema with "type": "object"')
    return validator


class PreparedTool:
    """A tool checked and compiled for calling: its name, schemas, timeout and how to run it."""

    writes = False
    """Whether the tool changes state (the registry sets it for the tools it holds)."""

    def __init__(
        self,
        tool: Any,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_s: float | None = None,
        default_timeout_s: float | None = None,
        max_threads: int = DEFAULT_MAX_THREADS,
        mask: bool = True,
    ) -> None:
        self.tool = tool
        self.name = tool.name if name is None else name
        where = f"tool {self.name!r}"
        if not isinstance(self.name, str) or not NAME_PATTERN.match(self.name):
            raise ToolDefinitionError(
                f"{where}: a tool name is 1 to 64 letters, digits, '_' or '-' (pass name= for this one)"
            )
        description = tool.description if description is None else description
        if not isinstance(description, str) or not is_json_data(description):
            raise ToolDefinitionError(f"{where}: the description must be a string")
        self.params = _object_schema(tool.parameters, where, "parameters schema")
        self._params_valid = self.params.verdict()
        output = tool.output_schema
        self.output = None if output is None else _object_schema(output, where, "output schema")
        timeout_s = check_timeout(tool.timeout_s if timeout_s is None else timeout_s, where)
        # The timeout of a call that names none: the tool's own, else the registry's default.
        self.call_timeout_s = default_timeout_s if timeout_s is None else timeout_s
        self.threads = ToolThreads(self.name, max_threads)
        self.mask = bool(mask)
        self.cooperative = tool.cooperative is True
        runs: Runs = tool._runs()
        if runs.run is None and runs.arun is None:
            raise ToolDefinitionError(f"{where}: {type(tool).__name__} overrides neither run nor arun")
        self._run, self._arun, self._function = runs.run, runs.arun, runs.function
        self.spec = ToolSpec(
            name=self.name,
            description=description,
            parameters=self.params.schema,
            output_schema=None if self.output is None else self.output.schema,
            timeout_s=timeout_s,
            is_async=runs.run is None,
        )

    # -- parameters and results ---------------------------------------------------------------

    def arguments(self, params: Any) -> tuple[dict[str, Any] | ToolResponse, Any]:
        """The parameters checked (or the INVALID_PARAM answer), and a copy for ``context.params_input``
        (None when they cannot be shown as JSON)."""
        given = params
        if type(params) is not dict:
            params = self._as_dict(params)
            if isinstance(params, ToolResponse):
                return params, params_input_of(given)
        record = plain_object_copy(params)  # one walk checks and copies
        if record is NOT_PLAIN:
            try:  # JSON, but not as it is (a str subclass ...): the plain values, as if sent as text
                params = to_json_data(params, strict=True)
            except JsonValueError as error:
                return invalid_params(self.name, error.errors), params_input_of(given)
            record = plain_object_copy(params)
        if self._params_valid(params):
            return params, record
        return invalid_params(self.name, self.params.violations(params)), params_input_of(given)

    def _as_dict(self, params: Any) -> dict[str, Any] | ToolResponse:
        if params is None:
            return {}
        if isinstance(params, Mapping):
            return dict(params)
        if not isinstance(params, str | bytes | bytearray):
            return unreadable_params(
                self.name, "not_object", f"they are {type(params).__name__}, not an object"
            )
        try:
            parsed = loads_strict(params)
        except MalformedJsonError as error:
            return unreadable_params(self.name, "not_json", f"the text is not JSON ({error.reason})")
        if type(parsed) is not dict:
            return unreadable_params(
                self.name, "not_object", f"the JSON text holds {type(parsed).__name__}, not an object"
            )
        return parsed

    def checked(self, result: Any) -> ToolResponse:
        """The tool's result as a response whose data fits the output schema; a copy the tool cannot
        change."""
        if not is_response(result):
            return not_a_response(self.name, result)
        owned = owned_response(result)
        if owned is None:
            return changed_response(self.name)
        if self.output is not None and owned.status is not _ERROR:
            return self._output_error(owned.data) or owned
        return owned

    def _output_error(self, data: dict[str, Any]) -> ToolResponse | None:
        output = self.output
        if output is None or output.verdict()(data):
            return None
        return output_violation(self.name, output.violations(data))

    def finish(
        self, outcome: Outcome, params_input: Any, call_id: str | None, time_ms: float
    ) -> ToolResponse:
        """The answer: ``outcome`` with ``stats.time_ms`` and ``context``, secrets masked unless not
        ``mask``."""
        context = call_context(self.name, params_input, call_id, mask=self.mask)
        stats = {"time_ms": time_ms if time_ms > 0.0 else 0.0}
        if isinstance(outcome, tuple):  # valid by construction: plain JSON, a checked name and id
            return trusted_response(ToolResponse, _SUCCESS, outcome[0], outcome[1], stats, context)
        if self.mask and outcome.status is _ERROR:
            outcome = masked_error(outcome, params_input)
        return with_call_info(outcome, stats, context, own_call_id=False)

    def execution_error(self, error: BaseException) -> ToolResponse:
        return execution_error(self.name, error, mask=self.mask)

    # -- running --------------------------------------------------------------------------------

    def _body(self, params: dict[str, Any]) -> Outcome:
        """The synchronous tool run, its result checked; a plain function is called directly, its
        value kept as text and data when it is plain JSON."""
        try:
            function = self._function
            if function is None:
                assert self._run is not None
                return self.checked(self._run(params))
            value = function(**params)
            plain = plain_success(value)
            if plain is None:
                return self.checked(wrap_sync_value(self.name, value))
            if self.output is not None:
                return self._output_error(plain[1]) or plain
            return plain
        except INTERRUPTS:
            raise
        except BaseException as error:
            return self.execution_error(error)

    async def _abody(self, params: dict[str, Any]) -> ToolResponse:
        arun = self._arun
        assert arun is not None
        try:
            return self.checked(await arun(params))
        except INTERRUPTS:
            raise
        except Exception as error:  # a cancellation goes on
            return self.execution_error(error)

    def _job(self, params: dict[str, Any]) -> Job:
        if self._run is not None:
            return self.threads.submit(lambda: self._body(params))
        return self.threads.submit(lambda: self._abody(params), coroutine=True)

    def _outcome(self, result: Outcome | Raised) -> Outcome:
        if not isinstance(result, Raised):
            return result
        if isinstance(result.error, INTERRUPTS):
            raise result.error
        return self.execution_error(result.error)

    def _timed_out(self, job: Job, timeout_s: float) -> ToolResponse:
        """TIMEOUT: a call still waiting for a thread never runs; a coroutine is cancelled."""
        if job.queued and job.cancel():
            return timeout_error(self.name, timeout_s, waiting_for_thread=self.threads.limit)
        job.stop()
        return timeout_error(self.name, timeout_s)

    def _body_from_thread(self, params: dict[str, Any], timeout_s: float | None, wait: Wait) -> Outcome:
        if self._run is not None and (timeout_s is None or self.cooperative):
            return self._body(params)
        job = self._job(params)
        if timeout_s is None:
            return self._outcome(job.result())
        try:
            return self._outcome(wait(job, timeout_s))
        except TimeoutError:
            return self._timed_out(job, timeout_s)

    async def _body_from_task(
        self, params: dict[str, Any], timeout_s: float | None, async_wait: AsyncWait
    ) -> Outcome:
        """The tool's body, for an asyncio task: never on the caller's loop but a cooperative tool's."""
        if self.cooperative and self._arun is not None:
            return await self._abody(params)
        job = self._job(params)
        waited = asyncio.wrap_future(job)
        try:
            result = await (waited if timeout_s is None else async_wait(waited, timeout_s))
        except TimeoutError:
            assert timeout_s is not None
            return self._timed_out(job, timeout_s)
        except asyncio.CancelledError:  # the caller was cancelled: so is the tool
            job.cancel()
            job.stop()
            raise
        return self._outcome(result)

    # -- the whole call -------------------------------------------------------------------------

    def execute(
        self, params: Any, call_id: str | None, timeout_s: float | None, clock: Clock, wait: Wait
    ) -> ToolResponse:
        """One synchronous call: always a valid ToolResponse."""
        start = clock()
        params_input: Any = None
        try:
            if self._function is not None and timeout_s is None and type(params) is dict:
                # The hot path, flat because it runs on most calls: a plain function without a
                # timeout given a dict of plain JSON (checked and copied in one walk) that is valid.
                record = plain_object_copy(params)
                if record is not NOT_PLAIN and self._params_valid(params):
                    params_input = record
                    outcome: Outcome = self._body(params)
                    return self.finish(outcome, params_input, call_id, (clock() - start) * 1000.0)
            parsed, params_input = self.arguments(params)
            if isinstance(parsed, ToolResponse):
                outcome = parsed
            else:
                outcome = self._body_from_thread(parsed, timeout_s, wait)
        except Exception as error:
            outcome = internal_error(self.name, error, mask=self.mask)
        return self.finish(outcome, params_input, call_id, (clock() - start) * 1000.0)

    async def aexecute(
        self, params: Any, call_id: str | None, timeout_s: float | None, clock: Clock, async_wait: AsyncWait
    ) -> ToolResponse:
        """The asynchronous form of ``execute``."""
        start = clock()
        params_input: Any = None
        try:
            parsed, params_input = self.arguments(params)
            if isinstance(parsed, ToolResponse):
                outcome: Outcome = parsed
            else:
                outcome = await self._body_from_task(parsed, timeout_s, async_wait)
        except Exception as error:
            outcome = internal_error(self.name, error, mask=self.mask)
        return self.finish(outcome, params_input, call_id, (clock() - start) * 1000.0)
