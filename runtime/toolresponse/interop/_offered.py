"""The tools of a registry that a framework's adapter offers a model: those its caller may see.

Every adapter (``as_langchain_tools``, ``as_pydantic_ai_tools``, ``as_openai_agents_tools``)
makes its framework's tools from ``offered_tools(registry, caller=...)``: one ``OfferedTool`` per
tool that the registry's access policies let ``caller`` see (``list_tools(caller=...)``, as the
HTTP and MCP listings and the agent's own offer are made), so a hidden tool's name, description
and parameters never reach the model; and each call runs through the registry as that caller
(``execute`` / ``aexecute``), so the policies decide it as they decide a call on any other face.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._response import ToolResponse
    from ..tools._registry import ToolRegistry

__all__ = ["OfferedTool", "offered_tools"]


@dataclass(frozen=True)
class OfferedTool:
    """One tool of ``registry`` as offered to ``caller``: its name, description (its name when it
    has none) and parameters' JSON Schema, and its calls as that caller."""

    registry: ToolRegistry
    caller: str
    name: str
    description: str
    parameters: dict[str, Any]

    def execute(self, arguments: Any, *, call_id: str | None) -> ToolResponse:
        """The registry's response to a call of this tool with ``arguments``, as ``caller``."""
        return self.registry.execute(self.name, arguments, call_id=call_id, caller=self.caller)

    async def aexecute(self, arguments: Any, *, call_id: str | None) -> ToolResponse:
        """``execute``, awaited (``ToolRegistry.aexecute``)."""
        return await self.registry.aexecute(self.name, arguments, call_id=call_id, caller=self.caller)


def offered_tools(registry: ToolRegistry, *, caller: str) -> list[OfferedTool]:
    """The tools of ``registry`` that ``caller`` may see, in the registry's order. ``caller`` must
    name someone (``None`` would list every tool, hidden ones included): ``TypeError``."""
    if not isinstance(caller, str) or not caller:
        raise TypeError(f"caller must name a caller identity (a non-empty string), not {caller!r}")
    return [
        OfferedTool(registry, caller, spec.name, spec.description or spec.name, spec.parameters)
        for spec in registry.list_tools(caller=caller)
    ]
