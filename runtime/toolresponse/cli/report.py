"""``toolresponse report TRACE... [--html OUT]``: what the agent's tool calls did, per tool.

The summary and both renderings are the agent's (``toolresponse.agent``:
``summarise``, ``render_text``, ``render_html``); this module parses the
command line. Exit status 0, or 1 when a trace cannot be read or the HTML
page cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._errors import TraceFormatError
from ..agent import render_html, render_text, summarise

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="JSONL trace files written by the agent")
    parser.add_argument("--html", metavar="OUT", help="also write a self-contained HTML report to OUT")


def run(args: argparse.Namespace) -> int:
    try:
        summary = summarise(args.traces)
    except TraceFormatError as exc:
        print(f"toolresponse report: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(render_text(summary))
    if args.html:
        try:
            Path(args.html).write_text(render_html(summary), encoding="utf-8")
        except OSError as exc:
            print(f"toolresponse report: cannot write {args.html}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"wrote {args.html}")
    return 0
