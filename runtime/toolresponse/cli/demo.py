"""``toolresponse demo [SECTION ...]``: every demo of the project, with nothing configured."""

from __future__ import annotations

import argparse
import sys

from ..demo import SECTIONS, run_sections
from ._input import fail


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
        return fail("toolresponse demo", f"unknown section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
    return run_sections(args.sections or list(SECTIONS), sys.stdout)
