"""Vercel AI SDK: the ``tool-result`` part of a tool message, and the ``tool-error`` part of a step.

The whole response rides in a ``json`` (``error-json``) output (``carry=False``: ``text`` or
``error-text``); a denial (``_outcomes.DENIED``) is ``execution-denied``. Other values are read by
``_carry.foreign_wire``; a ``tool-error`` is an error, its ``input`` in ``context.params_input``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._response import ToolResponse
from ._carry import blocks_wire, record_context, required, slot_value, slot_wire, text_parts
from ._dialects import dialect
from ._outcomes import DENIED


def to_vercel(
    response: ToolResponse, *, toolCallId: str | None = None, toolName: str | None = None, carry: bool = True
) -> dict[str, Any]:
    """The ``tool-result`` part of ``response``; ``toolCallId`` and ``toolName`` default to the
    response's context."""
    record: dict[str, Any] = {
        "type": "tool-result",
        "toolCallId": required(response, "call_id", toolCallId, dialect="vercel"),
        "toolName": required(response, "tool_name", toolName, dialect="vercel"),
    }
    info = response.error_info
    if info is not None and DENIED.of(response):
        denied = {**record, "output": {"type": "execution-denied", "reason": info.message}}
        if not carry or wire_from_vercel(denied) == response.to_dict():
            return denied
    kind = ("error-" if response.is_error else "") + ("json" if carry else "text")
    record["output"] = {"type": kind, "value": slot_value(response, carry)}
    return record


def wire_from_vercel(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ToolResponse wire object of a ``tool-result`` or ``tool-error`` part known to have its
    shape (unchecked)."""
    context = record_context(record["toolCallId"], record["toolName"])
    if record["type"] == "tool-error":
        if "input" in record:
            context = {**(context or {}), "params_input": record["input"]}
        error = record.get("error", "")
        flag = "type is 'tool-error'"
        return slot_wire("vercel", error, is_error=True, flag=flag, carrier="its error", context=context)
    output = record["output"]
    kind = output["type"]
    if kind == "execution-denied":
        return DENIED.wire(output.get("reason"), context=context)
    if kind == "content":
        return blocks_wire(*text_parts(output["value"], "text"), is_error=False, context=context)
    flag = f"output/type is {kind!r}"
    is_error = kind.startswith("error-")
    return slot_wire(
        "vercel", output["value"], is_error=is_error, flag=flag, carrier="its output", context=context
    )


def from_vercel(record: Mapping[str, Any]) -> ToolResponse:
    """The ToolResponse a ``tool-result`` or ``tool-error`` part holds; ``DialectError`` for any
    other record."""
    return dialect("vercel").read(record)
