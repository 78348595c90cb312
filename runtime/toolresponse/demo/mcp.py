"""MCP both ways: the calculator served over stdio and called through the client, success,
partial and error crossing MCP with nothing lost, and a third-party text-only error coded."""

from __future__ import annotations

import operator
import sys
from typing import Any, TextIO

from .._response import ToolResponse
from ..interop import from_mcp
from ..tools._registry import ToolRegistry
from .calculator import build_registry

_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("success", {"expression": "2 ** 10 / (3 + 4)"}),
    ("partial", {"expression": "2 ** 200"}),
    ("error", {"expression": "1 / 0"}),
)
_THIRD_TEXT = "ENOENT: no such file or directory, open '/srv/notes.txt'"
_THIRD_PARTY: dict[str, Any] = {"content": [{"type": "text", "text": _THIRD_TEXT}], "isError": True}
_COMPARED = operator.attrgetter("status", "text", "data", "error_info")
"""What a remote answer shares with the local one (the client measures the rest itself)."""


def main(out: TextIO) -> int:
    """Needs the ``mcp`` extra (``run_sections`` skips it without)."""
    from ..mcp import attach

    local = build_registry()
    remote = ToolRegistry()
    served = f"{__package__}.calculator:build_registry"
    command = [sys.executable, "-m", "toolresponse", "mcp", "serve", served]
    status = 0
    with attach(remote, command, prefix="mcp_"):
        print(f"  attached over stdio: {', '.join(remote.names())}", file=out)
        for label, arguments in _CALLS:
            there = remote.execute("mcp_calculator", arguments)
            here = local.execute("calculator", arguments)
            same = _COMPARED(here) == _COMPARED(there)
            status = status if same and there.status.value == label else 1
            code = f" {there.code.value}" if there.code else ""
            print(f"  {label:8} {there.status.value}{code}: {there.text[:70]}", file=out)
            print(f"           identical to the local call: {'yes' if same else 'NO'}", file=out)
    coded: ToolResponse = from_mcp(_THIRD_PARTY)
    signal = (coded.error_info.details or {}).get("signal") if coded.error_info else None
    print(f"  third-party text-only error: {_THIRD_TEXT!r}", file=out)
    code_name = coded.code.value if coded.code else "?"
    print(f"           read as {code_name} (inferred from the signal {signal!r}), text kept", file=out)
    return status
