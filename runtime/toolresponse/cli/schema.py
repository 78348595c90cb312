"""``toolresponse schema diff OLD NEW``: classify every change between two versions of a schema.

OLD and NEW are two directories of JSON Schema documents (files matched by
name) or two files. Each change is printed with its ``file#/json/pointer``,
its class and the rule that classified it. Exit status: 0 nothing that
``--fail-on`` counts; 1 such a change (or, with ``--json-schema-diff``, a
disagreement with that tool); 2 a usage error or a schema that could not be read.
"""

from __future__ import annotations

import argparse
import sys

from ..compat import SchemaDiffError
from ..compat._classify import diff_schema_sets
from ..compat._documents import load_schema_sets
from ..compat._report import FailOn, failing, render_json, render_text
from ..compat._setcheck import confirm_with_json_schema_diff

__all__ = ["add_arguments", "run"]

PROGRAM = "toolresponse schema diff"
EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


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
    diff.add_argument(
        "--json-schema-diff",
        metavar="PROGRAM",
        help="the json-schema-diff program (npm) to confirm the set comparison with",
    )


def run(args: argparse.Namespace) -> int:
    fail_on = FailOn(args.fail_on)
    try:
        old, new = load_schema_sets(args.old, args.new)
        diff = diff_schema_sets(old, new)
        check = (
            confirm_with_json_schema_diff(diff, old, new, [args.json_schema_diff])
            if args.json_schema_diff
            else None
        )
    except SchemaDiffError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_ERROR
    render = render_json if args.format == "json" else render_text
    sys.stdout.write(render(diff, fail_on, check))
    disagreed = check is not None and bool(check.disagreements)
    return EXIT_FAILED if failing(diff, fail_on) or disagreed else EXIT_OK
