"""``toolresponse validate [PATH ...]``: check files, streams and directories of ToolResponses.

The bulk API's inputs and report (``toolresponse.validation``), checked on a Dask cluster with
``--scheduler`` (``toolresponse.dask``), in another dialect with ``--from`` (``toolresponse.interop``).
Exit status: ``EXIT_STATUS``, also shown by ``--help``.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING

from ..interop import DIALECTS
from ..interop._logs import judge_of
from ..validation import expand, report
from ..validation._report import EXIT_ERROR
from ._input import add_paths_argument, count, fail, input_paths, seconds

if TYPE_CHECKING:
    from ..validation import Options, Record, Source
    from ..validation._checks import Batch

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
space). In a directory, links to files are followed, links to directories are not (name
one to check it). At most 100 violations are shown per response, then "... and N more"."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EXIT_STATUS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    add_paths_argument(parser, "response")
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
        "--from",
        dest="dialect",
        default="toolresponse",
        choices=list(DIALECTS),
        help="the records' dialect (default toolresponse); any other is checked in two layers: its own "
        "shape, then the ToolResponse it maps to",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=count,
        default=1,
        metavar="N",
        help="check with N processes (same output order)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="check on a Dask cluster: its scheduler's address (tcp://HOST:8786), or 'local' for a local "
        "cluster of --jobs workers (default: one per core); needs the extra toolresponse[dask]",
    )
    parser.add_argument(
        "--cluster-timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="with --scheduler, the longest wait on the cluster (default 30): for its scheduler to answer, "
        "for a first worker to join it, and for some task to finish; past it, exit 2 saying which",
    )


def run(args: argparse.Namespace) -> int:
    paths = input_paths(args.paths, program=PROGRAM, what="responses")
    if paths is None:
        return EXIT_ERROR
    checked = functools.partial(
        report,
        expand(paths),
        out=sys.stdout,
        err=sys.stderr,
        stdin=sys.stdin.buffer,
        output_format=args.format,
        first=args.first,
        quiet=args.quiet,
        judge=judge_of(args.dialect),
    )
    if args.scheduler is not None:
        return _on_dask(args, paths, checked)
    if args.cluster_timeout is not None:
        return fail(PROGRAM, "--cluster-timeout bounds the waits of --scheduler, which is not given")
    return checked(jobs=args.jobs)


def _on_dask(args: argparse.Namespace, paths: Sequence[str], checked: Callable[..., int]) -> int:
    """The same report, the inputs checked on the Dask cluster at ``args.scheduler``."""
    if "-" in paths:
        return fail(PROGRAM, "--scheduler reads files and URLs, not standard input")
    from ..dask import ClusterTimeout, DaskUnavailable, check_on, connect
    from ..dask._cluster import TIMEOUT_S

    workers = args.jobs if args.jobs > 1 else None
    timeout_s = TIMEOUT_S if args.cluster_timeout is None else args.cluster_timeout

    def on_cluster(
        sources: Sequence[Source | Record], options: Options, *, stdin: IO[bytes], jobs: int
    ) -> Iterator[Batch]:
        return check_on(client, sources, options, timeout_s=timeout_s)

    try:
        with connect(args.scheduler, workers=workers, timeout_s=timeout_s) as client:
            return checked(checker=on_cluster)
    except DaskUnavailable as error:
        return fail(PROGRAM, str(error))
    except ClusterTimeout as error:
        return fail(
            PROGRAM, f"the Dask cluster at {args.scheduler}: {error}; --cluster-timeout sets the wait"
        )
    except (OSError, TimeoutError) as error:
        return fail(PROGRAM, f"cannot use the Dask scheduler at {args.scheduler}: {error}")
    except Exception as error:  # a task that failed on the cluster: a worker without toolresponse, say
        return fail(PROGRAM, f"the Dask cluster failed: {type(error).__name__}: {error}")
