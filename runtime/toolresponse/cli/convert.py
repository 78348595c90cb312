"""``toolresponse convert --from D --to D [PATH ...|-]``: tool results from one framework's shape to another.

Dialects: the rows of ``toolresponse.interop.DIALECTS`` (``toolresponse``,
``mcp``, ``openai-chat``, ``anthropic``, ``bedrock``, ``gemini``, ``vercel``,
``helloagents`` ...). Each record goes through ToolResponse; one converted
record per line on standard output (``--format json``: one array), each record
that cannot be converted reported on standard error by file, line and JSON
pointer, the rest converted. A record of a dialect whose records answer one
tool call by its id (``Dialect.call_id``), or name the tool (``Dialect.tool_name``)
takes it from the response's ``context.call_id`` (``context.tool_name``): a
response without one is left out and reported (``/context/call_id``,
``/context/tool_name``), never written with an empty one.
Exit status: 0 all converted; 1 some record left out; 2 a usage error or an
input that could not be read.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO

from ..interop import DIALECTS, convert
from ..validation import EXIT_ERROR
from ._input import input_paths

__all__ = ["add_arguments", "run"]

PROGRAM = "toolresponse convert"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    names = list(DIALECTS)
    ids = [f"{name} ({row.call_id})" for name, row in DIALECTS.items() if row.call_id is not None]
    tools = [f"{name} ({row.tool_name})" for name, row in DIALECTS.items() if row.tool_name is not None]
    parser.epilog = (
        f"A record of {', '.join(ids[:-1])} or {ids[-1]} answers one tool call by its id, taken from each "
        f"response's context.call_id; one of {', '.join(tools[:-1])} or {tools[-1]} names the tool, taken "
        "from context.tool_name: a response without it is reported and left out. Exit status: "
        "0 all converted; 1 some record left out; 2 a usage error or an input that could not be read."
    )
    parser.add_argument("--from", dest="source", required=True, choices=names, help="the inputs' dialect")
    parser.add_argument("--to", dest="target", required=True, choices=names, help="the output's dialect")
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a .json file (one record, or several one after another), a .jsonl/.ndjson file (one per "
        "line; pretty-printed ones one after another are read as a .json file is), a directory, or - for "
        "standard input (the default when it is not a terminal)",
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "json"),
        default="jsonl",
        help="jsonl (default): one record per line; json: one array of records",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary line on standard error")


def run(args: argparse.Namespace, *, stdin: IO[bytes] | None = None) -> int:
    paths = input_paths(args.paths, stdin, program=PROGRAM, what="records")
    if paths is None:
        return EXIT_ERROR
    result = convert(
        args.source,
        args.target,
        paths,
        out=sys.stdout,
        err=sys.stderr,
        stdin=sys.stdin.buffer if stdin is None else stdin,
        output_format=args.format,
        quiet=args.quiet,
    )
    return result.exit_status
