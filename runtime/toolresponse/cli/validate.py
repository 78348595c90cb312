"""``toolresponse validate [PATH ...]``: check files, streams and directories of ToolResponses.

Inputs and reports are those of the bulk API (``toolresponse.validation``:
``expand`` and ``report``). With no PATH, standard input is read, unless it is
a terminal. Exit status: see ``EXIT_STATUS`` (also shown by ``--help``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO

from ..validation import EXIT_ERROR, expand, is_terminal, report

__all__ = ["add_arguments", "run"]

PROGRAM = "toolresponse validate"

EXIT_STATUS = """\
exit status:
  0  every response read is valid (an empty .jsonl file or empty standard input has none)
  1  some response is invalid
  2  a usage error, or an input that could not be checked: a file that cannot be read, a
     directory with no .json/.jsonl/.ndjson file under it, a dangling or looping symbolic
     link in a directory, a FIFO no process writes to, a document over 64 MiB or a line
     over 64 MiB (2 wins over 1: the verdict "all valid" could not be reached)

A line holding only a vertical tab or a form feed is not blank (neither is JSON white
space). At most 100 violations are shown per response, then "... and N more"."""


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EXIT_STATUS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a .json file (one response), a .jsonl/.ndjson file (one per line), a directory, or - for "
        "standard input (the default when it is not a terminal)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "jsonl"),
        default="text",
        help="text (default): a line per violation and a summary; json: one report; jsonl: a record per "
        "response",
    )
    parser.add_argument(
        "--first", action="store_true", help="only the most relevant violation of each response"
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing but I/O and usage errors; the exit status tells",
    )
    parser.add_argument(
        "-j", "--jobs", type=_jobs, default=1, metavar="N", help="check with N processes (same output order)"
    )


def run(args: argparse.Namespace, *, stdin: IO[bytes] | None = None) -> int:
    paths: Sequence[str] = args.paths
    source_stream = sys.stdin.buffer if stdin is None else stdin
    if not paths:
        if is_terminal(sys.stdin if stdin is None else stdin):
            print(
                f"{PROGRAM}: no input: name a file or directory, or pipe responses to standard input",
                file=sys.stderr,
            )
            return EXIT_ERROR
        paths = ["-"]
    return report(
        expand(paths),
        out=sys.stdout,
        err=sys.stderr,
        stdin=source_stream,
        output_format=args.format,
        first=args.first,
        quiet=args.quiet,
        jobs=args.jobs,
    )
