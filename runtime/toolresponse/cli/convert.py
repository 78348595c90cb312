"""``toolresponse convert --from D --to D [PATH ...|-]``: tool results from one framework's shape to another.

Each record goes through ToolResponse (``toolresponse.interop``): one converted record per line on
standard output (``--format json``: one array); a record that cannot be converted is reported on
standard error by file, line and JSON pointer. The epilog of ``--help`` says which dialects take a
call id or tool name from the response's context, and the exit statuses.
"""

from __future__ import annotations

import argparse
import sys

from ..interop import DIALECTS, convert
from ..validation._report import EXIT_ERROR
from ._input import add_paths_argument, input_paths

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
    add_paths_argument(parser, "record")
    parser.add_argument(
        "--format",
        choices=("jsonl", "json"),
        default="jsonl",
        help="jsonl (default): one record per line; json: one array of records",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary line on standard error")


def run(args: argparse.Namespace) -> int:
    paths = input_paths(args.paths, program=PROGRAM, what="records")
    if paths is None:
        return EXIT_ERROR
    result = convert(
        args.source,
        args.target,
        paths,
        out=sys.stdout,
        err=sys.stderr,
        stdin=sys.stdin.buffer,
        output_format=args.format,
        quiet=args.quiet,
    )
    return result.exit_status
