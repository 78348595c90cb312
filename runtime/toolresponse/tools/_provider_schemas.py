"""Tool descriptions for models, in each provider's exact format (docs/migrating.md)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from ._prepared import ToolSpec


def _entry(spec: ToolSpec, parameters: str, output: str | None = None) -> dict[str, Any]:
    """``name``, ``description`` unless empty, and deep copies of the schemas under these names."""
    entry: dict[str, Any] = {"name": spec.name}
    if spec.description:
        entry["description"] = spec.description
    entry[parameters] = copy.deepcopy(spec.parameters)
    if output is not None and spec.output_schema is not None:
        entry[output] = copy.deepcopy(spec.output_schema)
    return entry


_FORMATS: dict[str, Callable[[ToolSpec], dict[str, Any]]] = {
    "openai": lambda spec: {"type": "function", "function": _entry(spec, "parameters")},
    "openai-responses": lambda spec: {"type": "function", **_entry(spec, "parameters")},
    "anthropic": lambda spec: _entry(spec, "input_schema"),
    "mcp": lambda spec: _entry(spec, "inputSchema", "outputSchema"),
}


def tool_schemas(specs: Iterable[ToolSpec], provider: str) -> list[dict[str, Any]]:
    """The tools ``specs`` described in ``provider``'s format; raises ``ValueError`` for an unknown one."""
    try:
        describe = _FORMATS[provider]
    except (KeyError, TypeError):
        known = ", ".join(repr(name) for name in _FORMATS)
        raise ValueError(f"unknown provider {provider!r}: use one of {known}") from None
    return [describe(spec) for spec in specs]
