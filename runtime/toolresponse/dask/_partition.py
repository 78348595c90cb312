"""The per-partition function: JSON lines in, records out, lazily, for any engine (no Dask needed)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import NamedTuple

from ..validation import Options, Record
from ..validation._bulk import Part
from ..validation._checks import Batch, renumber, run_task
from ..validation._inputs import handed_over_tasks
from ..validation._report import EXIT_ERROR, EXIT_INVALID, EXIT_VALID

PIECE_LINES = 1024
"""Lines checked at once: memory stays flat however large the partition."""
TASK_RECORDS = 10_000
"""The most records one task holds (some 5 MB), besides those of unreadable inputs."""


class Summary(NamedTuple):
    """The counts of a run, as the single-process report ends with them."""

    valid: int
    invalid: int
    unreadable: int
    unlisted: int = 0
    """Records counted but left out of ``Validation.records`` (past a task's ``TASK_RECORDS``)."""

    @property
    def exit_status(self) -> int:
        """0 every response valid, 1 some invalid, 2 some input unreadable (as ``toolresponse validate``)."""
        if self.unreadable:
            return EXIT_ERROR
        return EXIT_INVALID if self.invalid else EXIT_VALID


def checked(lines: Iterable[str | bytes], name: str, first_line: int, options: Options) -> Iterator[Part]:
    """The verdicts on ``lines``, the first of which is line ``first_line``, read ``PIECE_LINES`` at a
    time as ``toolresponse validate`` reads a file's (a pretty-printed document one response however
    many pieces it spans): a part per unit of work, then one with no record that counts the lines."""
    count = 0

    def pieces() -> Iterator[list[bytes]]:
        nonlocal count
        iterator = iter(lines)
        while piece := list(islice(iterator, PIECE_LINES)):
            count += len(piece)
            yield [
                line if isinstance(line, bytes) else line.encode("utf-8", "surrogateescape") for line in piece
            ]

    for task in handed_over_tasks(name, pieces(), first_line):
        yield Part(run_task(task, options), 0)
    yield Part(Batch(0, 0, [], 0), count)


def check_partition(
    lines: Iterable[str | bytes],
    *,
    name: str = "<partition>",
    first_line: int = 1,
    options: Options = Options(),  # noqa: B008 (a NamedTuple: immutable)
) -> Iterator[Record]:
    """The records of one partition of JSON lines, the first of which is line ``first_line`` of ``name``
    (blank lines counted and skipped; ``Options(keep_valid=True)``: a record for every response; a line
    longer than ``MAX_LINE_BYTES`` skipped and reported, as ``toolresponse validate`` does)."""
    for part in checked(lines, name, first_line, options):
        yield from part.batch.records


def capped(steps: Iterable[Part], limit: int) -> tuple[Part, int]:
    """The steps of one task's work as one part holding the first ``limit`` records (and every
    unreadable input's), and how many it left out."""
    records: list[Record] = []
    valid = invalid = size = lines = unlisted = 0
    for step in steps:
        valid, invalid, size = valid + step.batch.valid, invalid + step.batch.invalid, size + step.batch.size
        for record in renumber(step.batch, lines).records:
            if record.io_error is None and limit <= 0:
                unlisted += 1
                continue
            records.append(record)
            limit -= record.io_error is None
        lines += step.lines
    return Part(Batch(valid, invalid, records, size), lines), unlisted


def summarise(batches: Iterable[Batch], unlisted: int = 0) -> Summary:
    """The counts of ``batches`` (an unreadable input is a record with an ``io_error``)."""
    valid = invalid = unreadable = 0
    for batch in batches:
        valid += batch.valid
        invalid += batch.invalid
        unreadable += sum(record.io_error is not None for record in batch.records)
    return Summary(valid, invalid, unreadable, unlisted)
