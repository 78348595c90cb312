"""Tool descriptions for models, in each provider's exact format.

========================  ===================================================================
provider                  one tool
========================  ===================================================================
``"openai"``              Chat Completions ``tools`` entry:
                          ``{"type": "function", "function": {"name", "description", "parameters"}}``
``"openai-responses"``    Responses API ``tools`` entry:
                          ``{"type": "function", "name", "description", "parameters"}``
``"anthropic"``           Messages API ``tools`` entry: ``{"name", "description", "input_schema"}``
``"mcp"``                 MCP ``tools/list`` entry: ``{"name", "description", "inputSchema"}``
                          and ``"outputSchema"`` when the tool declares one
========================  ===================================================================

An empty description is left out. Schemas are deep copies, so a caller may
change them freely.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from ._prepared import ToolSpec


def _described(entry: dict[str, Any], spec: ToolSpec) -> dict[str, Any]:
    if spec.description:
        entry["description"] = spec.description
    return entry


def _openai(spec: ToolSpec) -> dict[str, Any]:
    function = _described({"name": spec.name}, spec)
    function["parameters"] = copy.deepcopy(spec.parameters)
    return {"type": "function", "function": function}


def _openai_responses(spec: ToolSpec) -> dict[str, Any]:
    entry = _described({"type": "function", "name": spec.name}, spec)
    entry["parameters"] = copy.deepcopy(spec.parameters)
    return entry


def _anthropic(spec: ToolSpec) -> dict[str, Any]:
    entry = _described({"name": spec.name}, spec)
    entry["input_schema"] = copy.deepcopy(spec.parameters)
    return entry


def _mcp(spec: ToolSpec) -> dict[str, Any]:
    entry = _described({"name": spec.name}, spec)
    entry["inputSchema"] = copy.deepcopy(spec.parameters)
    if spec.output_schema is not None:
        entry["outputSchema"] = copy.deepcopy(spec.output_schema)
    return entry


_FORMATS: dict[str, Callable[[ToolSpec], dict[str, Any]]] = {
    "openai": _openai,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "mcp": _mcp,
}

PROVIDERS: tuple[str, ...] = tuple(_FORMATS)
"""The provider formats ``tool_schemas`` knows."""


def tool_schemas(specs: Iterable[ToolSpec], provider: str) -> list[dict[str, Any]]:
    """The tools ``specs`` described in ``provider``'s format; raises ``ValueError`` for an unknown one."""
    try:
        describe = _FORMATS[provider]
    except (KeyError, TypeError):
        known = ", ".join(repr(name) for name in PROVIDERS)
        raise ValueError(f"unknown provider {provider!r}: use one of {known}") from None
    return [describe(spec) for spec in specs]
