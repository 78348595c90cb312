"""The tools of a registry that a framework's adapter offers a model: those its caller may see.

Every adapter (LangChain, pydantic-ai, OpenAI Agents SDK) offers ``offered_tools(registry,
caller=...)``, as the HTTP and MCP listings are made, so a hidden tool never reaches the model,
and runs each call through the registry as that caller, so the policies decide it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._response import ToolResponse
    from ..tools._registry import ToolRegistry


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


def library(module: str, what: str, install: str) -> None:
    """Import ``module``, which ``what`` needs, or raise ``ImportError`` saying what to install."""
    try:
        importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{what} needs the {module!r} module: pip install {install}") from error


def offered_tools(registry: ToolRegistry, *, caller: str) -> list[OfferedTool]:
    """The tools of ``registry`` that ``caller`` may see, in the registry's order. ``caller`` must
    name someone (``None`` would list every tool, hidden ones included): ``TypeError``."""
    if not isinstance(caller, str) or not caller:
        raise TypeError(f"caller must name a caller identity (a non-empty string), not {caller!r}")
    return [
        OfferedTool(registry, caller, spec.name, spec.description or spec.name, spec.parameters)
        for spec in registry.list_tools(caller=caller)
    ]
