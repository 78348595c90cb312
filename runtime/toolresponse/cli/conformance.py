"""``toolresponse conformance URL``: check any server against the ToolResponse v1 HTTP binding.

The runner is ``toolresponse.http.report_conformance`` (extra ``toolresponse[conformance]``). Exit
status 0 when everything passed, 1 when anything failed (or the server could not be reached), 2 for
a usage error (a bad token file included, and a server that answers 401).
"""

from __future__ import annotations

import argparse
import os
import sys

from ..http._access import TOKEN_ENV, TokenError, load_token
from ..http._conformance import DEFAULT_MAX_EXAMPLES, DEFAULT_SEED, DEFAULT_TIMEOUT_S, report_conformance


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="the server's base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument(
        "--max-examples",
        type=int,
        default=DEFAULT_MAX_EXAMPLES,
        metavar="N",
        help=f"the most schemathesis cases per operation and phase (default {DEFAULT_MAX_EXAMPLES})",
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"schemathesis's random seed (default {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"the time limit of each request (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help=f"send Authorization: Bearer <token>, the token being FILE's first line (default: ${TOKEN_ENV})",
    )


def run(args: argparse.Namespace) -> int:
    try:
        token = load_token(args.token_file, os.environ)
    except TokenError as error:
        print(f"toolresponse conformance: {error}", file=sys.stderr)
        return 2
    budget = {"max_examples": args.max_examples, "seed": args.seed, "timeout_s": args.timeout}
    return report_conformance(args.url, **budget, out=sys.stdout, token=token)
