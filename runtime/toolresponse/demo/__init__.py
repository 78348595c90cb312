"""Every demo of the project, runnable with nothing configured (``toolresponse demo``).

Each section is a module of this package with a ``main(out) -> int`` function;
the command runs them in order and exits non-zero if any section did.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TextIO

SECTIONS: dict[str, tuple[str, str]] = {
    "examples": ("toolresponse.demo.examples", "the schema's example responses, validated"),
    "calculator": (
        "toolresponse.demo.calculator",
        "tools through the registry: success, partial, each error, a breaker tripping and recovering",
    ),
    "validation": (
        "toolresponse.demo.validation",
        "third-party tool output (HelloAgents 1.0 among it) checked by the validator",
    ),
    "agent": (
        "toolresponse.demo.agent",
        "the agent on a scripted model over loopback HTTP: success, partial and error",
    ),
    "mcp": (
        "toolresponse.demo.mcp",
        "the calculator served over MCP stdio and called through the client; a third-party error coded",
    ),
}


def run_sections(names: list[str], out: TextIO) -> int:
    status = 0
    for name in names:
        module_name, title = SECTIONS[name]
        print(f"== {name}: {title}", file=out)
        section: Callable[[TextIO], int] = importlib.import_module(module_name).main
        status = max(status, section(out))
        print(file=out)
    return status
