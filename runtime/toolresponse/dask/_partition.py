"""The per-partition function: JSON lines in, records out, for any engine (no Dask needed).

``check_partition(lines, name=..., first_line=...)`` is what Spark's
``mapPartitions``, Ray Data's ``map_batches`` or a Beam ``DoFn`` calls: an
iterable of lines (``str`` or ``bytes``, with or without their line end) in,
the bulk API's ``Record``\\ s out, lazily, in pieces of about
``PIECE_LINES`` lines, so that memory stays flat however large the partition.
The validator is compiled once per process, on the first piece.

``Summary`` is what a whole run found; ``partition_result`` is the form the
Dask graph moves between tasks: the partition's one ``Batch`` and how many
lines it held (for numbering the partitions after it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import NamedTuple

from ..validation import (
    EXIT_ERROR,
    EXIT_INVALID,
    EXIT_VALID,
    Batch,
    Options,
    RangeResult,
    Record,
    check_lines,
)

__all__ = ["PIECE_LINES", "Summary", "check_partition", "merged", "partition_result", "summarise"]

PIECE_LINES = 1024
"""Lines checked in one call of the bulk API's ``check_lines``."""


class Summary(NamedTuple):
    """The counts of a run, as the single-process report ends with them."""

    valid: int
    invalid: int
    unreadable: int

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


def merged(batches: Sequence[Batch]) -> Batch:
    """One batch of several, records in their order."""
    if len(batches) == 1:
        return batches[0]
    return Batch(
        sum(batch.valid for batch in batches),
        sum(batch.invalid for batch in batches),
        [record for batch in batches for record in batch.records],
        sum(batch.size for batch in batches),
    )


def partition_result(lines: Iterable[str | bytes], name: str, options: Options) -> RangeResult[Batch]:
    """One partition's batch, lines numbered from 1, and its count of lines."""
    batches = []
    number = 1
    for piece in _pieces(lines):
        batches.append(check_lines(name, piece, number, options))
        number += len(piece)
    return RangeResult([merged(batches) if batches else Batch(0, 0, [], 0)], number - 1)


def summarise(batches: Iterable[Batch]) -> Summary:
    """The counts of ``batches`` (an unreadable input is a record with an ``io_error``)."""
    valid = invalid = unreadable = 0
    for batch in batches:
        valid += batch.valid
        invalid += batch.invalid
        unreadable += sum(record.io_error is not None for record in batch.records)
    return Summary(valid, invalid, unreadable)
