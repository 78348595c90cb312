"""Where a verb that reads responses or records takes them from: the paths named, or standard input."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO

from ..validation import is_terminal

__all__ = ["input_paths"]


def input_paths(
    paths: Sequence[str], stdin: IO[bytes] | None, *, program: str, what: str
) -> list[str] | None:
    """The paths named, or ``["-"]`` (standard input) when none is and input is piped; None, with
    a message on standard error, when there is nothing to read: no path and a terminal on stdin."""
    if paths:
        return list(paths)
    if is_terminal(sys.stdin if stdin is None else stdin):
        print(
            f"{program}: no input: name a file or directory, or pipe {what} to standard input",
            file=sys.stderr,
        )
        return None
    return ["-"]
