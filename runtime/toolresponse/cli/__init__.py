"""The ``toolresponse`` command: one entry point, one thin module per verb; argparse lives only here.

Each verb's module, imported only when it is used, has ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status). Usage errors exit 2 with a one-line reason, as argparse does.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__

COMMANDS: dict[str, str] = {
    "validate": "check files, streams or directories of ToolResponses",
    "report": "summarise agent traces per tool (text or HTML)",
    "demo": "run every demo of the project with nothing configured",
    "serve": "serve a ToolRegistry over the HTTP binding",
    "conformance": "run the HTTP conformance suite against a server",
    "schema": "compare two versions of a schema: what changed, whom it breaks",
    "mcp": "serve a ToolRegistry over MCP; list or call an MCP server's tools",
    "convert": "convert tool results between frameworks' shapes",
}
"""Each verb (its module is ``toolresponse.cli.<verb>``) and its summary."""


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    selected = next((arg for arg in arguments if not arg.startswith("-")), None)
    parser = argparse.ArgumentParser(
        prog="toolresponse",
        description="ToolResponse v1: validate, serve, test and demo structured tool results.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    verbs = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, summary in COMMANDS.items():
        verb = verbs.add_parser(name, help=summary, description=summary)
        if name == selected:  # only the verb used is imported
            importlib.import_module(f"{__name__}.{name}").add_arguments(verb)
    args = parser.parse_args(arguments)
    try:
        return int(importlib.import_module(f"{__name__}.{args.command}").run(args))
    except KeyboardInterrupt:
        print("toolresponse: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
