"""``toolresponse conformance URL``: check any server against the ToolResponse v1 HTTP binding.

The runner is ``toolresponse.http.run_conformance`` (extra ``toolresponse[conformance]``). Exit
status 0 when everything passed, 1 when anything failed (or the server could not be reached), 2 for
a usage error (a bad token file included, and a server that answers 401).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from .._errors import ConformanceError, ConformanceTokenError
from ..http._access import TOKEN_ENV, load_token
from ..http._conformance import DEFAULT_MAX_EXAMPLES, DEFAULT_SEED, DEFAULT_TIMEOUT_S, run_conformance
from ..http._fixtures import CheckResult
from ._input import count, fail, seconds

PROGRAM = "toolresponse conformance"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="the server's base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument(
        "--max-examples",
        type=count,
        default=DEFAULT_MAX_EXAMPLES,
        metavar="N",
        help=f"the most schemathesis cases per operation and phase (default {DEFAULT_MAX_EXAMPLES})",
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"schemathesis's random seed (default {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"the time limit of each request (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help=f"send Authorization: Bearer <token>, the token being FILE's first line (default: ${TOKEN_ENV})",
    )


def _print_result(result: CheckResult) -> None:
    mark = "skip" if result.skipped else "ok  " if result.passed else "FAIL"
    note = result.skipped or result.note
    print(f"  {mark} [{result.section}] {result.name}{f' ({note})' if note else ''}")
    for problem in result.problems:
        first, *rest = problem.splitlines()
        print(f"         - {first}", *(f"\n           {line}" for line in rest), sep="")
    sys.stdout.flush()


def _progress(args: argparse.Namespace, token: str | None) -> Callable[[CheckResult], None]:
    """Print each result as it comes, the heading with the first: a run that cannot be made prints
    nothing on standard output."""
    heading = [
        f"{PROGRAM}: {args.url.rstrip('/')} against the ToolResponse v1 HTTP binding"
        f" (schemathesis: seed {args.seed}, at most {args.max_examples} cases per operation and phase"
        f"{'; with a bearer token' if token is not None else ''})"
    ]

    def progress(result: CheckResult) -> None:
        while heading:
            print(heading.pop())
        _print_result(result)

    return progress


def run(args: argparse.Namespace) -> int:
    budget = {"max_examples": args.max_examples, "seed": args.seed, "timeout_s": args.timeout}
    try:
        token = load_token(args.token_file, os.environ)
        report = run_conformance(args.url, **budget, progress=_progress(args, token), token=token)
    except ConformanceTokenError as error:
        how = "check the token in" if error.token_given else "give it with"
        where = f"--token-file FILE or the environment variable {TOKEN_ENV}"
        return fail(PROGRAM, f"{error}: {how} {where}")
    except (ValueError, ConformanceError) as error:  # a TokenError too
        return fail(PROGRAM, str(error))
    failed = report.failures
    passed = sum(1 for result in report.results if result.passed and not result.skipped)
    skipped = sum(1 for result in report.results if result.skipped)
    print(f"{'FAIL' if failed else 'PASS'}: {passed} passed, {len(failed)} failed, {skipped} skipped")
    for result in failed:
        print(f"  failed: [{result.section}] {result.name}")
    return 1 if failed else 0
