"""MCP both ways: the calculator served over stdio and called through the client, success,
partial and error crossing MCP with nothing lost, and a third-party text-only error coded."""

from __future__ import annotations

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
_THIRD_PARTY: dict[str, Any] = {
    "content": [{"type": "text", "text": _THIRD_TEXT}],
    "isError": True,
}


def _same(local: ToolResponse, remote: ToolResponse) -> bool:
    """Whether the remote answer is the local one, but for what the client measures itself."""
    return (local.status, local.text, local.data, local.error_info) == (
        remote.status,
        remote.text,
        remote.data,
        remote.error_info,
    )


def main(out: TextIO) -> int:
    """Needs the ``mcp`` extra (``run_sections`` skips it without)."""
    from ..mcp import attach

    local = build_registry()
    remote = ToolRegistry()
    command = [
        sys.executable,
        "-m",
        "toolresponse",
        "mcp",
        "serve",
        "toolresponse.demo.calculator:build_registry",
    ]
    status = 0
    with attach(remote, command, prefix="mcp_"):
        print(f"  attached over stdio: {', '.join(remote.names())}", file=out)
        for label, arguments in _CALLS:
            there = remote.execute("mcp_calculator", arguments)
            here = local.execute("calculator", arguments)
            same = _same(here, there)
            status = status if same and there.status.value == label else 1
            code = f" {there.code.value}" if there.code else ""
            print(f"  {label:8} {there.status.value}{code}: {there.text[:70]}", file=out)
            print(f"           identical to the local call: {'yes' if same else 'NO'}", file=out)
    coded: ToolResponse = from_mcp(_THIRD_PARTY)
    details = coded.error_info.details if coded.error_info else {}
    print(f"  third-party text-only error: {_THIRD_TEXT!r}", file=out)
    code_name = coded.code.value if coded.code else "?"
    signal = (details or {}).get("signal")
    print(f"           read as {code_name} (inferred from the signal {signal!r}), text kept", file=out)
    return status
