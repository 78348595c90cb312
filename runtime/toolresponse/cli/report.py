"""``toolresponse report TRACE... [--html OUT]``: what the agent's tool calls did, per tool.

A line that cannot be read is reported on standard error as ``FILE:LINE: reason (line skipped)``.
Exit status 0; 1 when a trace file cannot be opened or the HTML page cannot be written; 2 when a
file holds no readable line. Output is in the terminal's encoding (backslash escapes for what it
lacks), control characters escaped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from .._errors import TraceFormatError
from .._suggest import printable
from ..agent import render_html, render_text, summarise


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="JSONL trace files written by the agent")
    parser.add_argument("--html", metavar="OUT", help="also write a self-contained HTML report to OUT")


def _write(stream: TextIO, text: str) -> None:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write(text.encode(encoding, "backslashreplace").decode(encoding, "replace"))


def _say(message: str) -> None:
    _write(sys.stderr, f"toolresponse report: {printable(message)}\n")


def run(args: argparse.Namespace) -> int:
    try:
        summary = summarise(args.traces)
    except TraceFormatError as exc:
        _say(str(exc))
        return 1
    unread = summary.unread()
    for line in unread:
        _say(line)
    if unread:
        return 2
    for skipped in summary.skipped:
        _say(f"{skipped} (line skipped)")
    _write(sys.stdout, render_text(summary))
    if args.html:
        try:
            Path(args.html).write_text(render_html(summary), encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            _say(f"cannot write {args.html}: {exc.strerror or exc}")
            return 1
        _write(sys.stdout, f"wrote {printable(args.html)}\n")
    return 0
