"""Every demo of the project, runnable with nothing configured (``toolresponse demo``).

Each section is a module of this package with ``main(out) -> int``, run in order; the command exits
non-zero if any section did. A section whose optional extra is missing is skipped with one line.
"""

from __future__ import annotations

import importlib
from typing import TextIO

SECTIONS: dict[str, tuple[str, str | None]] = {
    "examples": ("the schema's example responses, validated", None),
    "calculator": (
        "tools through the registry: success, partial, each error, a breaker tripping and recovering",
        None,
    ),
    "validation": ("third-party tool output (HelloAgents 1.0 among it) checked by the validator", None),
    "agent": ("the agent on a scripted model: success, partial and error", "agent:openai"),
    "mcp": (
        "the calculator served over MCP stdio and called through the client; a third-party error coded",
        "mcp:mcp",
    ),
}
"""Each section (``toolresponse.demo.<name>``): what it shows, and the extra it needs as
``extra:module`` (the module whose absence says the extra is missing)."""


def _missing(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return True
    return False


def run_sections(names: list[str], out: TextIO) -> int:
    status = 0
    for name in names:
        title, needs = SECTIONS[name]
        print(f"== {name}: {title}", file=out)
        extra, _, module = (needs or "").partition(":")
        if module and _missing(module):
            print(f"  skipped: this section needs the optional extra '{extra}':", end=" ", file=out)
            print(f"pip install 'toolresponse[{extra}]'", file=out)
        else:
            status = max(status, importlib.import_module(f"{__name__}.{name}").main(out))
        print(file=out)
    return status
