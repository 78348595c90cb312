"""What the verbs share: the paths they read (or standard input), the types of their numeric
options, and a usage error's line."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..validation._report import is_terminal

Number = TypeVar("Number", int, float)


def add_paths_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """The ``PATH ...`` argument of a verb reading ``what`` (``response``, ``record``)."""
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help=f"a .json file (one {what}, or several one after another), a .jsonl/.ndjson file (one per "
        "line; pretty-printed ones one after another are read as a .json file is), a directory, or - for "
        "standard input (the default when it is not a terminal)",
    )


def input_paths(paths: Sequence[str], *, program: str, what: str) -> list[str] | None:
    """The paths named, or ``["-"]`` (standard input) when none is and input is piped; None, with
    a message on standard error, when there is nothing to read: no path and a terminal on stdin."""
    if paths:
        return list(paths)
    if is_terminal(sys.stdin):
        print(
            f"{program}: no input: name a file or directory, or pipe {what} to standard input",
            file=sys.stderr,
        )
        return None
    return ["-"]


def fail(program: str, message: str, status: int = 2) -> int:
    """Say ``program: message`` on standard error; return the exit ``status`` (2: a usage error)."""
    print(f"{program}: {message}", file=sys.stderr)
    return status


def _parsed(kind: Callable[[str], Number], text: str, what: str) -> Number:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def seconds(text: str) -> float:
    """The argparse type of a time limit: a finite number of seconds > 0."""
    value = _parsed(float, text, "a number of seconds")
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def count(text: str) -> int:
    """The argparse type of a count: a whole number of at least 1."""
    value = _parsed(int, text, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value
