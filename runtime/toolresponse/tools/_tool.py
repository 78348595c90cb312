"""``Tool``: the base class of tools, and ``FunctionTool``: a plain function as a tool.

``execute``/``aexecute`` are the timed, guarded call (``_prepared.py``), its waits injected
(``toolresponse.testing.FakeClock`` has fake ones). An async tool runs on a thread's own event
loop: it must not rely on objects bound to the caller's loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from .._errors import ToolDefinitionError, warn_renamed
from .._response import ToolResponse
from ._answers import wrap_sync_value, wrap_value
from ._params import docstring_summary, return_schema, typed_parameters
from ._prepared import PreparedTool, Runs, call_id_of
from ._threads import AsyncWait, Wait, called, is_async, real_async_wait, real_wait

Clock = Callable[[], float]

EMPTY_PARAMETERS: Final[Mapping[str, Any]] = MappingProxyType(
    {"type": "object", "properties": {}, "additionalProperties": False}
)


class Tool:
    """Base class of tools: override ``run`` (synchronous) or ``arun`` (asynchronous).

    Class attributes declare the tool and the constructor's arguments override them; the definition
    is checked when the tool is first called or registered."""

    name: str = ""
    description: str = ""
    parameters: Mapping[str, Any] = EMPTY_PARAMETERS
    output_schema: Mapping[str, Any] | None = None
    timeout_s: float | None = None
    writes: bool = False
    """Whether the tool changes state (``ReadOnly`` policies refuse such tools)."""
    cooperative: bool = False
    """Whether the tool only waits on work done elsewhere and keeps its own ``timeout_s`` (an MCP
    tool): it is then called in the caller's thread or task, without the hop to a thread."""

    def __init__(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        given = {
            "name": name,
            "description": description,
            "parameters": parameters,
            "output_schema": output_schema,
            "timeout_s": timeout_s,
        }
        for attribute, value in given.items():
            if value is not None:
                setattr(self, attribute, value)

    def run(self, params: dict[str, Any]) -> ToolResponse:
        """Do the work synchronously; ``params`` satisfies ``parameters``."""
        raise NotImplementedError(f"{type(self).__name__} overrides neither run nor arun")

    async def arun(self, params: dict[str, Any]) -> ToolResponse:
        """Do the work asynchronously; ``params`` satisfies ``parameters``."""
        raise NotImplementedError(f"{type(self).__name__} overrides neither run nor arun")

    @property
    def is_async(self) -> bool:
        """Whether the tool's own implementation is ``arun`` (rather than ``run``)."""
        return self._runs().run is None

    def _runs(self) -> Runs:
        kind = type(self)
        return Runs(
            self.run if kind.run is not Tool.run else None,
            self.arun if kind.arun is not Tool.arun else None,
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    def execute(
        self,
        params: Any = None,
        *,
        call_id: str | None = None,
        timeout_s: float | None = None,
        clock: Clock = time.monotonic,
        wait: Wait = real_wait,
    ) -> ToolResponse:
        """Call the tool on ``params`` (a dict, or JSON text of an object): always a valid
        ToolResponse."""
        prepared = prepared_of(self)
        timeout = prepared.call_timeout_s if timeout_s is None else timeout_s
        return prepared.execute(params, call_id_of(call_id), timeout, clock, wait)

    async def aexecute(
        self,
        params: Any = None,
        *,
        call_id: str | None = None,
        timeout_s: float | None = None,
        clock: Clock = time.monotonic,
        async_wait: AsyncWait = real_async_wait,
    ) -> ToolResponse:
        """The asynchronous form of ``execute``."""
        prepared = prepared_of(self)
        timeout = prepared.call_timeout_s if timeout_s is None else timeout_s
        return await prepared.aexecute(params, call_id_of(call_id), timeout, clock, async_wait)

    def call(self, params: Any = None, **options: Any) -> ToolResponse:
        """Deprecated (removed in 2.0): the old name of ``execute``."""
        warn_renamed("Tool.call", "Tool.execute")
        return self.execute(params, **options)

    async def acall(self, params: Any = None, **options: Any) -> ToolResponse:
        """Deprecated (removed in 2.0): the old name of ``aexecute``."""
        warn_renamed("Tool.acall", "Tool.aexecute")
        return await self.aexecute(params, **options)


def prepared_of(tool: Tool) -> PreparedTool:
    """``tool`` checked and compiled for ``Tool.execute``, once."""
    prepared: PreparedTool | None = tool.__dict__.get("_toolresponse_prepared")
    if prepared is None:
        prepared = tool.__dict__["_toolresponse_prepared"] = PreparedTool(tool)
    return prepared


class FunctionTool(Tool):
    """A plain or coroutine function as a tool: its schemas from the signature, its description from
    the docstring; called with keyword arguments, its value wrapped by ``wrap_value``."""

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        if not callable(function):
            raise ToolDefinitionError(f"a tool must be a Tool or a callable, not {type(function).__name__}")
        tool_name = name if name is not None else getattr(function, "__name__", "")
        parameters, self._typed = typed_parameters(function, name=tool_name)  # called with JSON arguments
        super().__init__(
            name=tool_name,
            description=description if description is not None else docstring_summary(function),
            parameters=parameters,
            output_schema=return_schema(function, name=tool_name),
            timeout_s=timeout_s,
        )
        self.function = function
        self._is_async = is_async(function)

    def _runs(self) -> Runs:
        """A synchronous function itself too, when a subclass does not override ``run``."""
        if self._is_async:
            return Runs(None, self.arun)
        return Runs(self.run, None, self._typed if type(self).run is FunctionTool.run else None)

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return wrap_sync_value(self.name, self._typed(**params))

    async def arun(self, params: dict[str, Any]) -> ToolResponse:
        return wrap_value(await called(self._typed, **params))
