"""Shared data of the interop tests: the dialect parameters, the valid fixtures, a response strategy."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import strategies as st
from test_engine_parity import fixture_cases

from toolresponse import AccessControl, ErrorCode, RequireApproval, ToolRegistry, ToolResponse
from toolresponse.interop import DIALECTS, dialect


def adapted_registry() -> ToolRegistry:
    """The registry the framework adapters' tests run (LangChain, pydantic-ai, openai-agents): a
    success, an error, a partial result, and a tool each of whose calls a person refuses."""
    registry = ToolRegistry(access=AccessControl(RequireApproval("drop_*"), approver=lambda request: False))

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two whole numbers."""
        return a + b

    @registry.tool
    def read_file(path: str) -> ToolResponse:
        """Read a file."""
        return ToolResponse.error("NOT_FOUND", f"{path} does not exist", details={"path": path})

    @registry.tool
    def search(query: str) -> ToolResponse:
        """Search the notes."""
        return ToolResponse.partial("First 2 of 9 notes.", data={"returned": 2, "total": 9})

    @registry.tool
    def drop_table(name: str) -> str:
        """Drop a table."""
        return "dropped"

    return registry


def dialect_params(*, exclude: tuple[str, ...] = ()) -> list[Any]:
    """Every dialect of the table as a pytest parameter."""
    return [pytest.param(name, id=name) for name in DIALECTS if name not in exclude]


def to_record(name: str, response: ToolResponse, *, call_id: str = "call_1", tool: str = "tool_1") -> Any:
    """``to_<name>(response)``, given ``call_id`` and ``tool`` where the dialect's records need a call
    id or a tool name and the response's context has none."""
    row, context = dialect(name), response.context or {}
    given = {}
    if row.call_id is not None and not context.get("call_id"):
        given[row.call_id] = call_id
    if row.tool_name is not None and not context.get("tool_name"):
        given[row.tool_name] = tool
    return row.to(response, **given)


def inferred_error(text: str, code: str, signal: str, **context: Any) -> dict[str, Any]:
    """The wire object of an error read from a third party's ``text``, its ``code`` inferred from
    the words ``signal`` names (``toolresponse_generated.INFERENCE_RULES``), with ``context``."""
    details = {"code_from": "text", "inferred": True, "signal": signal}
    info = {"code": code, "message": text, "details": details}
    return {"status": "error", "text": text, "error_info": info, "context": context}


LOSSLESS = dialect_params(exclude=("helloagents",))
"""The dialects whose ``from_(to_(r))`` is ``r`` exactly, with the record's call id and tool name."""

TRAILER_DIALECTS = ("openai-chat", "openai-responses", "anthropic", "autogen")
"""The dialects that carry a response in a trailer, bound to the record's call id."""


def carried_back(
    name: str, response: ToolResponse, *, call_id: str | None = None, tool: str | None = None
) -> dict[str, Any]:
    """What ``from_`` gives of ``response`` written by ``to_<name>`` as JSON: ``response`` itself,
    with the record's call id and tool name: ``call_id`` (``tool``) when given to ``to_``, else, where
    the dialect's records need one, its own, else the one ``to_record`` gives."""
    row, context = dialect(name), response.context or {}
    if call_id is not None or row.call_id is not None:
        response = response.with_context(call_id=call_id or context.get("call_id") or "call_1")
    if tool is not None or row.tool_name is not None:
        response = response.with_context(tool_name=tool or context.get("tool_name") or "tool_1")
    return response.to_dict()


VALID_FIXTURES = [(case[0], case[1]) for case in fixture_cases() if case[2]]
FIXTURE_IDS = [case[0] for case in VALID_FIXTURES]

_INTEGERS = st.integers(min_value=-(2**53), max_value=2**53)
_FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64)
# I-JSON text holds no noncharacters (U+FDD0...): they are unassigned (Cn), left out with the rest.
_CHARACTERS = st.characters(exclude_categories=("Cs", "Cn"))
_TEXT = st.text(_CHARACTERS, max_size=30)
JSON = st.recursive(
    st.none() | st.booleans() | _INTEGERS | _FLOATS | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_OBJECTS = st.dictionaries(_TEXT, JSON, max_size=3)


@st.composite
def responses(draw: st.DrawFn) -> ToolResponse:
    """Valid ToolResponses of every status, with every optional member drawn or left out."""
    stats = draw(st.none() | st.builds(lambda t, o: {"time_ms": t, **o}, st.floats(0, 1e9), _OBJECTS))
    context = draw(
        st.none()
        | st.fixed_dictionaries(
            {},
            optional={
                "tool_name": st.text(_CHARACTERS, min_size=1, max_size=10),
                "params_input": JSON,
                "call_id": _TEXT,
            },
        )
    )
    data = draw(_OBJECTS)
    kind = draw(st.sampled_from(["success", "partial", "error"]))
    if kind == "error":
        message = draw(st.text(_CHARACTERS, min_size=1, max_size=30))
        return ToolResponse.error(
            draw(st.sampled_from(list(ErrorCode))),
            message,
            details=draw(st.none() | _OBJECTS),
            retryable=draw(st.none() | st.booleans()),
            retry_after_ms=draw(st.none() | st.integers(0, 2**53)),
            stats=stats,
            context=context,
            data=data,
        )
    names = st.text(_CHARACTERS, max_size=5).map(lambda name: "x-" + name)
    extensions = draw(st.dictionaries(names, JSON, max_size=2))
    return ToolResponse(
        status=kind, text=draw(_TEXT), data=data, stats=stats, context=context, extensions=extensions
    )


def helloagents_view(response: ToolResponse) -> dict[str, Any]:
    """What survives a trip through HelloAgents 1.0 (the module's table): no details, retryable,
    retry_after_ms or extensions, time_ms rounded, empty stats and context dropped."""
    wire = response.to_dict()
    for name in [name for name in wire if name.startswith("x-")]:
        del wire[name]
    if "error_info" in wire:
        wire["error_info"] = {"code": wire["error_info"]["code"], "message": wire["error_info"]["message"]}
    stats = wire.get("stats")
    if not stats:
        wire.pop("stats", None)
    elif "time_ms" in stats:
        wire["stats"] = {**stats, "time_ms": round(stats["time_ms"])}
    if not wire.get("context"):
        wire.pop("context", None)
    return wire


class HelloAgentsStatus(enum.Enum):
    """HelloAgents 1.0's ``ToolStatus``: an enum whose values are the wire statuses."""

    SUCCESS = "success"
    PARTIAL = "partial"
    ERROR = "error"


@dataclass
class HelloAgentsResponse:
    """An object shaped as HelloAgents 1.0.1's ``ToolResponse`` (which needs Python 3.12): an enum
    status, ``error_info`` a free dict serialised as "error", stats and context only when non-empty,
    and ``to_json`` pretty-printed (two-space indent, non-ASCII kept)."""

    status: HelloAgentsStatus
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    error_info: dict[str, Any] | None = None
    stats: dict[str, Any] | None = None
    context: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"status": self.status.value, "text": self.text, "data": self.data}
        if self.error_info:
            result["error"] = self.error_info
        if self.stats:
            result["stats"] = self.stats
        if self.context:
            result["context"] = self.context
        return result

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)
