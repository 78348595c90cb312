"""``ToolRegistry``: named tools, called so that every answer is a valid ToolResponse.

A call: look the tool up (NOT_FOUND names the nearest the caller may see), ask the access policies
(a denial is not told to the breaker), ask the breaker, run it (``PreparedTool``), tell the breaker
and the listeners. Registration is locked and a call only reads, so threads may share a registry.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar, overload

from toolresponse_generated import ErrorCode

from .._errors import ToolDefinitionError
from .._response import ToolResponse, with_call_info
from .._suggest import did_you_mean, shortened, suggestions
from ._access import AccessControl, Denial, Hidden, PendingApproval
from ._answers import internal_error, params_input_of
from ._breaker import CircuitState
from ._events import ToolCallEvent, ToolCallListener
from ._policy import LOCAL_CALLER, shown
from ._prepared import PreparedTool, ToolSpec, call_context, call_id_of, check_max_threads, check_timeout
from ._provider_schemas import tool_schemas
from ._threads import DEFAULT_MAX_THREADS, AsyncWait, Wait, real_async_wait, real_wait
from ._tool import FunctionTool, Tool

_log = logging.getLogger("toolresponse")

F = TypeVar("F", bound=Callable[..., Any])


class Breaker(Protocol):
    """What the registry asks of a circuit breaker (``CircuitBreaker`` is one)."""

    def admit(self, tool_name: str, /) -> ToolResponse | None: ...

    def record(self, tool_name: str, response: ToolResponse, /) -> None: ...

    def state(self, tool_name: str, /) -> CircuitState: ...


class ToolRegistry:
    """Named tools with one guarded way to call them.

    ``default_timeout_s`` applies to tools without their own; ``clock`` (monotonic seconds),
    ``wait`` and ``async_wait`` are injected (``toolresponse.testing.FakeClock`` has fake ones). A
    call that finds its tool's ``max_threads_per_tool`` threads busy for its whole timeout is
    answered TIMEOUT (``details.reason`` ``not_started``); ``mask`` masks secrets in the answers.
    """

    def __init__(
        self,
        breaker: Breaker | None = None,
        default_timeout_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        *,
        wait: Wait = real_wait,
        async_wait: AsyncWait = real_async_wait,
        access: AccessControl | None = None,
        max_threads_per_tool: int = DEFAULT_MAX_THREADS,
        mask: bool = True,
    ) -> None:
        if access is not None and not isinstance(access, AccessControl):
            raise TypeError(f"access must be an AccessControl, not {type(access).__name__}")
        self._max_threads = check_max_threads(max_threads_per_tool)
        self._mask = bool(mask)
        self._breaker = breaker
        self._default_timeout_s = check_timeout(default_timeout_s, "ToolRegistry")
        self._access = access
        self._clock = clock
        self._wait = wait
        self._async_wait = async_wait
        self._tools: dict[str, PreparedTool] = {}
        self._listeners: tuple[ToolCallListener, ...] = ()
        self._lock = threading.Lock()

    @property
    def breaker(self) -> Breaker | None:
        return self._breaker

    @property
    def default_timeout_s(self) -> float | None:
        return self._default_timeout_s

    @property
    def access(self) -> AccessControl | None:
        """The policies every call is checked against, or None."""
        return self._access

    def writes(self, name: str) -> bool:
        """Whether the tool registered under ``name`` is marked as writing."""
        prepared = self._tools.get(name)
        return prepared is not None and prepared.writes

    def __repr__(self) -> str:
        return f"<ToolRegistry {len(self._tools)} tools: {', '.join(self._tools)}>"

    # -- registration ---------------------------------------------------------------------------

    def register(
        self,
        tool_or_function: Tool | Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        timeout_s: float | None = None,
        writes: bool | None = None,
    ) -> Tool:
        """Register a ``Tool`` (a Tool subclass is instantiated) or a plain function (as a
        ``FunctionTool``), and return it; the keyword arguments override the tool's own. Raises
        ``ToolDefinitionError`` for a name already taken or a definition that does not hold."""
        tool: Tool
        if isinstance(tool_or_function, Tool):
            tool = tool_or_function
        elif isinstance(tool_or_function, type) and issubclass(tool_or_function, Tool):
            tool = tool_or_function()
        else:
            tool = FunctionTool(tool_or_function, name=name, description=description, timeout_s=timeout_s)
        prepared = PreparedTool(
            tool,
            name=name,
            description=description,
            timeout_s=timeout_s,
            default_timeout_s=self._default_timeout_s,
            max_threads=self._max_threads,
            mask=self._mask,
        )
        if writes is None:  # the tool's ``writes``, or a ``writes = True`` on a FunctionTool's function
            writes = tool.writes is True or getattr(getattr(tool, "function", None), "writes", False) is True
        prepared.writes = bool(writes)
        with self._lock:
            if prepared.name in self._tools:
                raise ToolDefinitionError(f"a tool named {prepared.name!r} is already registered")
            self._tools = {**self._tools, prepared.name: prepared}
        return tool

    @overload
    def tool(self, function: F, /) -> F: ...

    @overload
    def tool(
        self,
        function: None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_s: float | None = None,
        writes: bool | None = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        function: F | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_s: float | None = None,
        writes: bool | None = None,
    ) -> F | Callable[[F], F]:
        """Decorator: ``@registry.tool`` or ``@registry.tool(name=..., ...)``; the decorated function
        (or Tool subclass) is returned as it is."""

        def decorate(target: F) -> F:
            self.register(target, name=name, description=description, timeout_s=timeout_s, writes=writes)
            return target

        return decorate if function is None else decorate(function)

    def unregister(self, name: str) -> None:
        """Remove a tool; raises ``KeyError`` for an unknown name."""
        with self._lock:
            tools = dict(self._tools)
            del tools[name]
            self._tools = tools

    # -- what is registered ---------------------------------------------------------------------

    def names(self, *, caller: str | None = None) -> list[str]:
        """The registered names, in order; with ``caller``, only those the caller may see."""
        return [spec.name for spec in self.list_tools(caller=caller)]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._tools))

    def get(self, name: str) -> Tool | None:
        """The tool registered under ``name``, or None."""
        prepared = self._tools.get(name)
        return None if prepared is None else prepared.tool

    def spec(self, name: str, *, caller: str | None = None) -> ToolSpec | None:
        """How the tool registered under ``name`` is described, or None (with ``caller``, also for
        a tool hidden from that caller)."""
        prepared = self._tools.get(name)
        if prepared is None or (caller is not None and not self._shown(caller, prepared)):
            return None
        return prepared.spec

    def list_tools(self, *, caller: str | None = None) -> list[ToolSpec]:
        """Every tool's ``ToolSpec``, in order; with ``caller``, only those the caller may see."""
        tools = self._tools.values()
        return [prepared.spec for prepared in tools if caller is None or self._shown(caller, prepared)]

    def _shown(self, caller: Any, prepared: PreparedTool) -> bool:
        access = self._access
        return access is None or access.visible(caller, prepared.spec, writes=prepared.writes)

    def tool_schemas(self, provider: str, *, caller: str | None = None) -> list[dict[str, Any]]:
        """The tools ``caller`` may see, described for a model in ``provider``'s format: "openai",
        "openai-responses", "anthropic" or "mcp" (docs/migrating.md, "Describing tools to a model")."""
        return tool_schemas(self.list_tools(caller=caller), provider)

    # -- listeners ------------------------------------------------------------------------------

    def add_listener(self, listener: ToolCallListener) -> None:
        """Call ``listener`` with a ``ToolCallEvent`` after every call."""
        with self._lock:
            self._listeners = (*self._listeners, listener)

    def remove_listener(self, listener: ToolCallListener) -> None:
        """Stop calling ``listener``; raises ``ValueError`` if it was not added."""
        with self._lock:
            listeners = list(self._listeners)
            listeners.remove(listener)
            self._listeners = tuple(listeners)

    def _told(
        self,
        name: Any,
        call_id: str | None,
        response: ToolResponse,
        *,
        known: bool,
        denied_by: str | None = None,
    ) -> ToolResponse:
        if not self._listeners:
            return response
        tool = name if type(name) is str else shown(name)
        try:
            event = ToolCallEvent(
                tool=tool,
                call_id=call_id,
                status=response.status,
                code=response.code,
                time_ms=response.stats["time_ms"] if response.stats else 0.0,
                breaker_state=self._breaker.state(tool) if self._breaker is not None and known else None,
                response=response,
                denied_by=denied_by,
            )
        except Exception:
            _log.exception("could not build the event of a call of tool %r", tool)
            return response
        for listener in self._listeners:
            try:
                listener(event)
            except Exception:
                _log.exception("a tool-call listener failed on a call of tool %r", tool)
        return response

    # -- calling --------------------------------------------------------------------------------

    def execute(
        self, name: str, params: Any = None, *, call_id: str | None = None, caller: str = LOCAL_CALLER
    ) -> ToolResponse:
        """Call tool ``name`` with ``params`` (a dict, JSON text of an object, or None) for ``caller``:
        always a ToolResponse that validates against the schema."""
        call_id = call_id_of(call_id)
        prepared = self._admit(name, params, call_id, caller)
        if isinstance(prepared, PendingApproval):
            answer = prepared.answer(self._wait, self._clock)
            prepared = self._approved(name, params, call_id, caller, prepared, answer)
        if isinstance(prepared, ToolResponse):
            return prepared
        response = prepared.execute(params, call_id, prepared.call_timeout_s, self._clock, self._wait)
        return self._ran(prepared, call_id, response)

    async def aexecute(
        self, name: str, params: Any = None, *, call_id: str | None = None, caller: str = LOCAL_CALLER
    ) -> ToolResponse:
        """The asynchronous form of ``execute``: the event loop is never blocked."""
        call_id = call_id_of(call_id)
        prepared = self._admit(name, params, call_id, caller)
        if isinstance(prepared, PendingApproval):
            answer = await prepared.aanswer(self._async_wait, self._clock)
            prepared = self._approved(name, params, call_id, caller, prepared, answer)
        if isinstance(prepared, ToolResponse):
            return prepared
        response = await prepared.aexecute(
            params, call_id, prepared.call_timeout_s, self._clock, self._async_wait
        )
        return self._ran(prepared, call_id, response)

    def _admit(
        self, name: Any, params: Any, call_id: str | None, caller: Any, approved: Any = None
    ) -> PreparedTool | ToolResponse | PendingApproval:
        """The tool to run, the (told) answer of a call that may not, or the approval asked for."""
        prepared = self._tools.get(name) if type(name) is str else None
        if prepared is None:
            return self._told(name, call_id, self._not_found(name, params, call_id, caller), known=False)
        if self._access is not None and approved is not prepared:
            verdict = self._access.check(
                prepared, params, caller=caller, call_id=call_id, writes=prepared.writes, clock=self._clock
            )
            if isinstance(verdict, Denial):
                return self._told(name, call_id, verdict.response, known=True, denied_by=verdict.rule)
            if isinstance(verdict, Hidden):  # to this caller, there is no such tool
                response = self._not_found(name, params, call_id, caller)
                return self._told(name, call_id, response, known=True, denied_by=verdict.rule)
            if verdict is not None:
                return verdict
        if self._breaker is not None:
            refusal = self._refusal(prepared, params, call_id)
            if refusal is not None:
                return self._told(name, call_id, refusal, known=True)
        return prepared

    def _refusal(self, prepared: PreparedTool, params: Any, call_id: str | None) -> ToolResponse | None:
        """The breaker's refusal of a call (its own failure as INTERNAL_ERROR), or None."""
        assert self._breaker is not None
        params_input: Any = None
        try:
            refusal: Any = self._breaker.admit(prepared.name)
            if refusal is None:
                return None
            if not isinstance(refusal, ToolResponse):
                raise TypeError(f"the breaker's admit returned {type(refusal).__name__}, not a ToolResponse")
            params_input = params_input_of(params)
        except Exception as error:
            refusal = internal_error(prepared.name, error)
        return prepared.finish(refusal, params_input, call_id, 0.0)

    def _ran(self, prepared: PreparedTool, call_id: str | None, response: ToolResponse) -> ToolResponse:
        if self._breaker is not None:
            try:
                self._breaker.record(prepared.name, response)
            except Exception as error:  # the tool did run: INTERNAL_ERROR with the call's info
                failure = internal_error(prepared.name, error)
                response = with_call_info(failure, response.stats or {}, response.context or {})
        if self._listeners:  # checked here too: the hot path makes no call when no one listens
            self._told(prepared.name, call_id, response, known=True)
        return response

    def _approved(
        self,
        name: Any,
        params: Any,
        call_id: str | None,
        caller: Any,
        pending: PendingApproval,
        answer: Denial | None,
    ) -> PreparedTool | ToolResponse:
        if answer is None:
            admitted = self._admit(name, params, call_id, caller, approved=pending.prepared)
            if not isinstance(admitted, PendingApproval):
                return admitted
            # The tool was replaced while the person decided: what they approved is not what would run.
            answer = pending.replaced(self._clock)
        return self._told(name, call_id, answer.response, known=True, denied_by=answer.rule)

    def _not_found(self, name: Any, params: Any, call_id: str | None, caller: Any) -> ToolResponse:
        """NOT_FOUND naming only the tools ``caller`` may see, alike for a hidden tool."""
        start = self._clock()
        try:
            names = [prepared.name for prepared in self._tools.values() if self._shown(caller, prepared)]
            asked = shortened(name, 200) if isinstance(name, str) else shown(name)
            near = suggestions(asked, names)
            text = f"No tool named {asked!r}."
            if near:
                phrase = did_you_mean(near)
                text += f" {phrase[0].upper()}{phrase[1:]}"
            text += f" Available tools: {', '.join(names[:30])}." if names else " No tools are registered."
            tool = asked if isinstance(name, str) and asked else None
            context = call_context(tool, params_input_of(params), call_id, mask=self._mask)
            details = {"tool": asked, "suggestions": near, "available": names[:100]}
            response = ToolResponse.error(ErrorCode.NOT_FOUND, text, details=details, context=context)
        except Exception as error:
            response = internal_error(str(type(name).__name__), error)
        time_ms = (self._clock() - start) * 1000.0
        return with_call_info(response, {"time_ms": max(0.0, time_ms)}, response.context or {})
