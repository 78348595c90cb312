"""The per-partition function: JSON lines in, records out, for any engine (no Dask needed).

``check_partition(lines, name=..., first_line=...)`` is what Spark's
``mapPartitions``, Ray Data's ``map_batches`` or a Beam ``DoFn`` calls: an
iterable of lines (``str`` or ``bytes``, with or without their line end) in,
the bulk API's ``Record``\\ s out, lazily, in pieces of about
``PIECE_LINES`` lines, so that memory stays flat however large the partition.
The validator is compiled once per process, on the first piece.

``Summary`` is what a whole run found; ``TaskResult`` is the form the Dask
graph moves between tasks: one task's ``Batch``, how many lines it read (for
numbering the ranges after it), the records it left out, and the work it left.
``partition_result`` gives a partition's, keeping at most ``TASK_RECORDS``
records: a task's memory does not grow with its input.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any, NamedTuple

from ..validation import (
    EXIT_ERROR,
    EXIT_INVALID,
    EXIT_VALID,
    Batch,
    Options,
    Record,
    check_lines,
    merged,
)

__all__ = [
    "PIECE_LINES",
    "TASK_RECORDS",
    "Summary",
    "TaskResult",
    "check_partition",
    "kept",
    "partition_result",
    "summarise",
]

PIECE_LINES = 1024
"""Lines checked in one call of the bulk API's ``check_lines``."""
TASK_RECORDS = 10_000
"""About how many records one task holds at most (some 5 MB): past them, a task of the command
line stops and hands back the work left, and a task of the Python API's graph counts the records
it leaves out (``Summary.unlisted``). A record of an unreadable input is always kept."""


class Summary(NamedTuple):
    """The counts of a run, as the single-process report ends with them."""

    valid: int
    invalid: int
    unreadable: int
    unlisted: int = 0
    """Records counted but left out of ``Validation.records``: past the ``TASK_RECORDS`` a task keeps."""

    @property
    def exit_status(self) -> int:
        """0 every response valid, 1 some invalid, 2 some input unreadable (as ``toolresponse validate``)."""
        if self.unreadable:
            return EXIT_ERROR
        return EXIT_INVALID if self.invalid else EXIT_VALID


def _pieces(lines: Iterable[str | bytes]) -> Iterator[list[bytes]]:
    iterator = iter(lines)
    while piece := list(islice(iterator, PIECE_LINES)):
        yield [line if isinstance(line, bytes) else line.encode("utf-8", "surrogateescape") for line in piece]


def check_partition(
    lines: Iterable[str | bytes],
    *,
    name: str = "<partition>",
    first_line: int = 1,
    options: Options = Options(),  # noqa: B008 (a NamedTuple: immutable)
) -> Iterator[Record]:
    """The records of one partition of JSON lines, the first of which is line ``first_line`` of ``name``.

    Blank lines count as lines and are skipped, as in a file. With ``Options(keep_valid=True)``
    every response gets a record, so the records alone give the summary."""
    number = first_line
    for piece in _pieces(lines):
        yield from check_lines(name, piece, number, options).records
        number += len(piece)


class TaskResult(NamedTuple):
    """What one task found."""

    batch: Batch
    """Its records, numbered from line 1 of its range (of its input, for an input read whole)."""
    lines: int
    """How many lines of its range it read (0 for an input read whole: its records are numbered)."""
    unlisted: int = 0
    """Records found and left out of ``batch`` (counted in its ``valid`` and ``invalid``)."""
    rest: Any = None
    """The work left when the task stopped at ``TASK_RECORDS``, or None."""
    where: str | None = None
    """The worker that ran it, where the rest is best sent (it may hold the input open)."""


def kept(batch: Batch, room: int) -> tuple[Batch, int]:
    """``batch`` with at most ``room`` records (the first, and every unreadable input's besides),
    and how many it left out."""
    if len(batch.records) <= room:
        return batch, 0
    records: list[Record] = []
    for record in batch.records:
        if record.io_error is not None or room > 0:
            records.append(record)
            room -= record.io_error is None
    return batch._replace(records=records), len(batch.records) - len(records)


def partition_result(
    lines: Iterable[str | bytes], name: str, options: Options, *, max_records: int = TASK_RECORDS
) -> TaskResult:
    """One partition's batch, lines numbered from 1, and its count of lines, holding at most
    ``max_records`` records (the first; ``TaskResult.unlisted`` counts the others)."""
    batches = []
    number = 1
    unlisted = 0
    room = max_records
    for piece in _pieces(lines):
        batch, left_out = kept(check_lines(name, piece, number, options), room)
        room -= len(batch.records)  # check_lines makes no record of an unreadable input
        unlisted += left_out
        batches.append(batch)
        number += len(piece)
    return TaskResult(merged(batches) if batches else Batch(0, 0, [], 0), number - 1, unlisted)


def summarise(batches: Iterable[Batch], unlisted: int = 0) -> Summary:
    """The counts of ``batches`` (an unreadable input is a record with an ``io_error``)."""
    valid = invalid = unreadable = 0
    for batch in batches:
        valid += batch.valid
        invalid += batch.invalid
        unreadable += sum(record.io_error is not None for record in batch.records)
    return Summary(valid, invalid, unreadable, unlisted)
