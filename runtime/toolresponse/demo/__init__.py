"""``toolresponse demo``: every demo of the project, runnable with nothing configured.

Each section is a module of this package with a ``main(out) -> int`` function;
the command runs them in order and exits non-zero if any section did.
"""

from __future__ import annotations

import argparse
import importlib
import sys
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
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "sections",
        nargs="*",
        metavar="SECTION",
        help=f"run only these sections, in this order (default: all of {', '.join(SECTIONS)})",
    )


def run(args: argparse.Namespace) -> int:
    unknown = [name for name in args.sections if name not in SECTIONS]
    if unknown:
        print(
            f"toolresponse demo: unknown section {unknown[0]!r}; choose from {', '.join(SECTIONS)}",
            file=sys.stderr,
        )
        return 2
    return run_sections(args.sections or list(SECTIONS), sys.stdout)


def run_sections(names: list[str], out: TextIO) -> int:
    status = 0
    for name in names:
        module_name, title = SECTIONS[name]
        print(f"== {name}: {title}", file=out)
        section: Callable[[TextIO], int] = importlib.import_module(module_name).main
        status = max(status, section(out))
        print(file=out)
    return status
