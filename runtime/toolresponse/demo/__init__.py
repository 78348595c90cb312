"""Every demo of the project, runnable with nothing configured (``toolresponse demo``).

Each section is a module of this package with a ``main(out) -> int`` function;
the command runs them in order and exits non-zero if any section did. A section
that needs an optional extra which is not installed (``EXTRAS``) is skipped, with
one line naming the extra to install.
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


EXTRAS: dict[str, tuple[str, str]] = {
    "agent": ("agent", "openai"),
    "mcp": ("mcp", "mcp"),
}
"""The optional extra a section needs, and the module whose absence says the extra is missing."""


def missing_extra(section: str) -> str | None:
    """The extra ``section`` needs and is not installed, or None."""
    if section not in EXTRAS:
        return None
    extra, module = EXTRAS[section]
    try:
        importlib.import_module(module)
    except ImportError:
        return extra
    return None


def run_sections(names: list[str], out: TextIO) -> int:
    status = 0
    for name in names:
        module_name, title = SECTIONS[name]
        print(f"== {name}: {title}", file=out)
        extra = missing_extra(name)
        if extra is not None:
            print(
                f"  skipped: this section needs the optional extra '{extra}':"
                f" pip install 'toolresponse[{extra}]'",
                file=out,
            )
        else:
            section: Callable[[TextIO], int] = importlib.import_module(module_name).main
            status = max(status, section(out))
        print(file=out)
    return status
