"""The ``toolresponse`` command: one entry point, one thin module per verb; argparse lives only here.

Each subcommand lives in its own module, imported only when it is used, with
two functions: ``add_arguments(parser)`` and ``run(args) -> int`` (the exit
status). Usage errors exit 2 with a one-line reason, as argparse does.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol

from .. import __version__


class Command(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("toolresponse.cli.validate", "check files, streams or directories of ToolResponses"),
    "report": ("toolresponse.cli.report", "summarise agent traces per tool (text or HTML)"),
    "demo": ("toolresponse.cli.demo", "run every demo of the project with nothing configured"),
    "serve": ("toolresponse.cli.serve", "serve a ToolRegistry over the HTTP binding"),
    "conformance": ("toolresponse.cli.conformance", "run the HTTP conformance suite against a server"),
    "schema": ("toolresponse.cli.schema", "compare two versions of a schema: what changed, whom it breaks"),
    "mcp": ("toolresponse.cli.mcp", "serve a ToolRegistry over MCP; list or call an MCP server's tools"),
    "convert": ("toolresponse.cli.convert", "convert tool results between frameworks' shapes"),
}


def _command(name: str) -> Command:
    module: Command = importlib.import_module(COMMANDS[name][0])
    return module


def build_parser(selected: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolresponse",
        description="ToolResponse v1: validate, serve, test and demo structured tool results.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (_, summary) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=summary, description=summary)
        if name == selected:
            _command(name).add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    selected = next((arg for arg in arguments if not arg.startswith("-")), None)
    parser = build_parser(selected if selected in COMMANDS else None)
    args = parser.parse_args(arguments)
    try:
        return _command(args.command).run(args)
    except KeyboardInterrupt:
        print("toolresponse: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
