"""HelloAgents 1.0 and 1.0.1: the dict its ``ToolResponse`` serialises to, read and written.

``from_helloagents(to_helloagents(r))`` is ``r`` less ``details``, ``retryable``,
``retry_after_ms`` and ``x-`` members, with ``time_ms`` rounded; a code that is not standard is
never guessed (docs/migrating.md, "From HelloAgents 1.0").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import error_info_of
from ._dialects import dialect


def to_helloagents(response: ToolResponse) -> dict[str, Any]:
    """The dict HelloAgents 1.0 writes for ``response`` (what it drops: the module docstring)."""
    record: dict[str, Any] = {"status": response.status.value, "text": response.text, "data": response.data}
    info = response.error_info
    if info is not None:
        record["error"] = {"code": info.code.value, "message": info.message}
    if response.stats:
        stats = dict(response.stats)
        if "time_ms" in stats:
            stats["time_ms"] = round(stats["time_ms"])
        record["stats"] = stats
    if response.context:
        record["context"] = response.context
    return record


def wire_from_helloagents(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a HelloAgents dict known to have its shape (unchecked)."""
    wire: dict[str, Any] = {"status": record["status"], "text": record["text"]}
    wire |= {name: record[name] for name in ("data", "stats") if record.get(name)}
    error = record.get("error")
    if error is not None:
        wire["error_info"] = error_info_of(error)
    context = record.get("context")
    if context:
        if "input" in context and "params_input" not in context:
            context = {
                ("params_input" if name == "input" else name): value for name, value in context.items()
            }
        wire["context"] = context
    return wire


def from_helloagents(record: Any) -> ToolResponse:
    """The ToolResponse of a HelloAgents 1.0 / 1.0.1 dict, or of an object with a ``to_dict()``
    method (its ``ToolResponse``); ``DialectError`` for any other record."""
    if not isinstance(record, Mapping) and callable(getattr(record, "to_dict", None)):
        record = record.to_dict()
    return dialect("helloagents").read(record)
