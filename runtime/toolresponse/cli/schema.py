"""``toolresponse schema diff OLD NEW``: classify every change between two versions of a schema.

OLD and NEW are two directories of JSON Schema documents (files matched by name) or two files.
Exit status: 0 nothing that ``--fail-on`` counts; 1 such a change; 2 a usage error or a schema
that could not be read.
"""

from __future__ import annotations

import argparse
import sys

from ..compat import SchemaDiffError, diff_schemas
from ..compat._report import FailOn, failing, render_json, render_text
from ._input import fail


def add_arguments(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="schema_verb", metavar="VERB", required=True)
    diff = verbs.add_parser(
        "diff",
        help="classify every change from OLD to NEW (breaking, behaviour, compatible)",
        description="Classify every change from OLD to NEW: breaking for producers, breaking for "
        "consumers, a behaviour change, or compatible.",
    )
    diff.add_argument("old", metavar="OLD", help="the released schema: a directory or a file")
    diff.add_argument("new", metavar="NEW", help="the changed schema: a directory or a file")
    diff.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default): a line per change; json"
    )
    diff.add_argument(
        "--fail-on",
        choices=[str(level) for level in FailOn],
        default=str(FailOn.BREAKING),
        help="breaking (default): exit 1 on changes that break producers or consumers; behaviour: also "
        "on behaviour changes (what a frozen major version allows)",
    )


def run(args: argparse.Namespace) -> int:
    fail_on = FailOn(args.fail_on)
    try:
        diff = diff_schemas(args.old, args.new)
    except SchemaDiffError as error:
        return fail("toolresponse schema diff", str(error))
    sys.stdout.write((render_json if args.format == "json" else render_text)(diff, fail_on))
    return 1 if failing(diff, fail_on) else 0
