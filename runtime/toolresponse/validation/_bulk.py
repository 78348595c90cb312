"""Checking many inputs: in this process, in worker processes (``--jobs``), or by anyone who takes
units of work (a Dask cluster), the results in input order (``in_order``). A JSON-lines file of
known size is cut into byte ranges, each read by whoever checks it (docs/scale.md).
"""

from __future__ import annotations

import io
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from ._checks import Batch, Options, merged, renumber, run_task
from ._engine import engine
from ._ijson import BINARY_SNIFF_BYTES
from ._inputs import (
    DocumentTask,
    DoneTask,
    LinesTask,
    Record,
    Source,
    Task,
    binary_record,
    io_record,
    lines_tasks,
    pretty_printed,
    splittable,
    tasks,
)
from ._open import is_url, open_input

if TYPE_CHECKING:
    from concurrent.futures import Future

BATCH_BYTES = 4 << 20
"""Bytes of JSON lines in one unit of work with ``--jobs`` (1 MiB units made two processes 3% to 5%
slower on the benchmark corpus)."""
IN_FLIGHT_PER_WORKER = 2
UNIT_RECORDS = 10_000
"""With ``--jobs``, the most records a unit of work holds (some 5 MB)."""
_PIECE_BYTES = 1 << 16
"""A range is read and checked in pieces of this size: memory does not grow with it."""


class LineRange(NamedTuple):
    """The lines of ``path`` (shown as ``name``) that start in ``[start, end)`` (None: to the end)."""

    path: str
    name: str
    start: int
    end: int | None


class Part(NamedTuple):
    """What one unit of work found: its records numbered from line 1 of its range, how many lines
    of the range it read (0 for a unit numbered already), and the work left past its bound."""

    batch: Batch
    lines: int = 0
    rest: Any = None


def split_ranges(path: str, name: str, size: int, block: int) -> list[LineRange]:
    """``path`` (``size`` bytes when listed) as ranges of about ``block`` bytes; the last reads to the end."""
    if block < 1:
        raise ValueError(f"a range must be at least one byte, not {block}")
    starts = range(0, max(size, 1), block)
    return [LineRange(path, name, start, start + block if start + block < size else None) for start in starts]


def ranges_of(source: Source, size: int | None, block: int) -> list[LineRange] | Source | Record:
    """``source`` (``size`` bytes; None: not to be cut) in byte ranges of about ``block`` bytes, or
    what to read as one stream (a file of pretty-printed documents: a range would begin inside one), or
    the verdict on a file that cannot be opened or is binary."""
    if source.mode != "lines" or size is None or not splittable(source.path):
        return source
    try:
        with open_input(source.path) as stream:
            head = stream.read(BINARY_SNIFF_BYTES)
    except OSError as error:
        return io_record(source.name, error)
    if b"\x00" in head:
        return binary_record(source.name, head)
    if pretty_printed(head):
        return source
    return split_ranges(source.path, source.name, size, block)


def _line_start(stream: IO[bytes], offset: int) -> int:
    """The first line start at or after ``offset``: byte 0, or the byte after a ``\\n``."""
    if offset <= 0:
        return 0
    stream.seek(offset - 1)
    stream.readline()
    return stream.tell()


def range_tasks(
    name: str, stream: IO[bytes], begin: int, end: int | None, piece_bytes: int
) -> Iterator[Task]:
    """The lines of ``stream`` that start in ``[begin, end)``, ``begin`` a line start (``_line_start``),
    numbered from 1, as the units of work that one process reads them in (``lines_tasks``: pieces of
    about ``piece_bytes``, the line too long to read, the pretty-printed document); a unit's bytes are
    its ``Batch.size``."""
    stop = None if end is None else _line_start(stream, end)
    stream.seek(begin)
    return lines_tasks(name, stream, piece_bytes, limit=None if stop is None else stop - begin)


def _within(task: Task, units: Iterator[Task], room: int) -> tuple[Task, Task | None]:
    """The unit to check now, of at most ``room`` lines (a line gives one record at most), and the
    one after it: the rest of ``task``'s lines, or the next of ``units``."""
    if isinstance(task, LinesTask) and len(task.lines) > room:
        rest = task._replace(first_line=task.first_line + room, lines=task.lines[room:])
        return task._replace(lines=task.lines[:room]), rest
    return task, next(units, None)


def _checked(
    task: Task | None, units: Iterator[Task], options: Options, room: int, max_bytes: int | None = None
) -> tuple[Batch, Task | None, int | None]:
    """Units from ``task`` on checked until their records fill ``room`` (or about ``max_bytes`` of
    input is read): their batch, the unit to check next (None: no more), and the line after them."""
    batches: list[Batch] = []
    size, line = 0, None
    while task is not None and room > 0 and (max_bytes is None or size < max_bytes):
        now, task = _within(task, units, room)
        batch = run_task(now, options)
        batches.append(batch)
        room -= sum(record.io_error is None for record in batch.records)
        size += batch.size
        line = _line_after(now)
    return merged(batches), task, line


def check_range(work: LineRange, options: Options, *, max_records: int) -> Part:
    """Check the lines of one byte range, read where this runs, numbered from 1; it stops where its
    records would be more than ``max_records``, and ``Part.rest`` is the range of the lines after."""
    try:
        with open_input(work.path) as stream:
            offset = _line_start(stream, work.start)
            units = range_tasks(work.name, stream, offset, work.end, _PIECE_BYTES)
            batch, task, line = _checked(next(units, None), units, options, max_records)
    except OSError as error:
        return Part(Batch(0, 0, [io_record(work.name, error)], 0))
    return Part(batch, (line or 1) - 1, None if task is None else work._replace(start=offset + batch.size))


def _line_after(task: Task) -> int | None:
    """The line after a unit of work, or None when its input ends with it."""
    if isinstance(task, LinesTask):
        return task.first_line + len(task.lines)
    if isinstance(task, DoneTask) and task.record.line is not None:
        return task.record.line + 1  # a line too long to read
    if isinstance(task, DocumentTask) and task.first_line is not None:
        return task.first_line + task.data.count(b"\n") + 1  # a pretty-printed document among lines
    return None


def _from_line(units: Iterator[Task], from_line: int) -> Iterator[Task]:
    """``units`` from line ``from_line`` on: the lines before it are passed over unchecked."""
    for task in units:
        if from_line > 1:
            if isinstance(task, LinesTask):
                skip = from_line - task.first_line
                if skip >= len(task.lines):
                    continue
                if skip > 0:
                    task = task._replace(first_line=from_line, lines=task.lines[skip:])
            elif isinstance(task, DocumentTask) and (task.first_line or 0) < from_line:
                continue  # the whole input, or a pretty-printed document, read before
            elif isinstance(task, DoneTask) and task.record.line is not None and task.record.line < from_line:
                continue  # a line too long to read, read before
            from_line = 1
        yield task


def stream_parts(
    source: Source | Record,
    options: Options,
    *,
    max_records: int,
    max_bytes: int | None = None,
    from_line: int = 1,
) -> Generator[Part]:
    """One input checked in order, in parts of at most ``max_records`` records (and about
    ``max_bytes`` of input); each part's ``rest`` is the line the next starts at (None: the last).
    Started at ``from_line``, it passes over the lines before unchecked."""
    units = _from_line(tasks(source, io.BytesIO()), from_line)
    task: Task | None = next(units, None)
    while True:
        batch, task, line = _checked(task, units, options, max_records, max_bytes)
        yield Part(batch, 0, None if task is None else line)
        if task is None:
            return


def parts(work: LineRange | Source | Record, options: Options, *, max_records: int) -> Iterator[Part]:
    """All of ``work`` checked here, in parts of at most ``max_records`` records each."""
    if not isinstance(work, LineRange):
        yield from stream_parts(work, options, max_records=max_records)
        return
    rest: LineRange | None = work
    while rest is not None:
        part = check_range(rest, options, max_records=max_records)
        yield part
        rest = part.rest


def first_of_file(work: object) -> bool:
    """Whether a unit's lines are numbered from its file's first (all but a range after another)."""
    return not isinstance(work, LineRange) or work.start == 0


def in_order(
    works: Iterable[Any],
    send: Callable[[Any], Any],
    wait: Callable[[list[Any]], object],
    window: Callable[[], int],
    outcome: Callable[[Any, Any], Part],
) -> Iterator[Batch]:
    """The batches of ``works`` in their order, however the units are checked.

    ``send(work)`` gives a unit's ``Part``, or a future of it; ``outcome(future, work)`` the part of
    a future that is done; ``wait(futures)`` returns once one is. A unit's ``rest`` is sent as soon
    as its part is known and comes right after it; a range's lines are numbered after those of the
    ranges before; a file that cannot be opened is reported once. While the first unit is not done,
    at most ``window()`` units are in flight."""
    queue: deque[list[Any]] = deque()  # [work, its Part or a future of it, whether its rest is sent]
    offset = 0
    unreadable = False  # the file of the last range could not be opened: its next ranges say no more

    def follow(index: int) -> None:
        entry = queue[index]
        if isinstance(entry[1], Part) and entry[1].rest is not None and not entry[2]:
            entry[2] = True
            queue.insert(index + 1, [entry[1].rest, send(entry[1].rest), False])

    def settle() -> None:
        index = 0
        while index < len(queue):
            entry = queue[index]
            if not isinstance(entry[1], Part) and entry[1].done():
                entry[1] = outcome(entry[1], entry[0])
                follow(index)
            index += 1

    def ready() -> Batch:
        nonlocal offset, unreadable
        settle()
        while not isinstance(queue[0][1], Part):
            wait([entry[1] for entry in queue if not isinstance(entry[1], Part)])
            settle()
        follow(0)
        work, part, _ = queue.popleft()
        if first_of_file(work):
            offset, unreadable = 0, False
        batch = renumber(part.batch, offset)
        offset += part.lines
        unopened = [record for record in batch.records if record.io_error is not None and record.line is None]
        if unopened and unreadable:  # one input, one I/O error however many ranges it has
            batch = batch._replace(records=[record for record in batch.records if record not in unopened])
        unreadable = unreadable or bool(unopened)
        return batch

    def head_done() -> bool:
        found = queue[0][1]
        return isinstance(found, Part) or bool(found.done())

    for work in works:
        queue.append([work, send(work), False])
        while queue and (head_done() or len(queue) > window()):
            yield ready()
    while queue:
        yield ready()


def check(
    sources: Iterable[Source | Record],
    options: Options,
    *,
    stdin: IO[bytes],
    jobs: int = 1,
) -> Iterator[Batch]:
    """The batches of every input, in input order; with ``jobs > 1`` checked by that many processes."""
    if jobs <= 1:
        for source in sources:
            for task in tasks(source, stdin):
                yield run_task(task, options)
        return
    yield from _check_in_processes(sources, options, stdin, jobs)


def _units(source: Source | Record, stdin: IO[bytes]) -> Iterator[Task | LineRange]:
    """The units of one input for ``--jobs``: a large JSON-lines file in byte ranges, anything else
    read here, in batches of at most ``UNIT_RECORDS`` lines."""
    if isinstance(source, Source):
        large = source.size is not None and source.size > BATCH_BYTES and not is_url(source.path)
        cut = ranges_of(source, source.size if large else None, BATCH_BYTES)
        if isinstance(cut, list):
            yield from cut
            return
        source = cut
    for task in tasks(source, stdin, BATCH_BYTES):
        if not isinstance(task, LinesTask) or len(task.lines) <= UNIT_RECORDS:
            yield task
            continue
        for start in range(0, len(task.lines), UNIT_RECORDS):
            yield task._replace(
                first_line=task.first_line + start, lines=task.lines[start : start + UNIT_RECORDS]
            )


def _check_unit(work: Task | LineRange, options: Options, max_records: int) -> Part:
    """Check one unit of ``--jobs`` here or in a worker (a spawned one has its own ``UNIT_RECORDS``)."""
    if isinstance(work, LineRange):
        return check_range(work, options, max_records=max_records)
    return Part(run_task(work, options))


def _check_in_processes(
    sources: Iterable[Source | Record], options: Options, stdin: IO[bytes], jobs: int
) -> Iterator[Batch]:
    """``check`` with ``jobs`` processes: this one and ``jobs - 1`` workers."""
    import multiprocessing  # only for --jobs: a single process never pays for importing it
    import threading
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    # Forked workers start at once with the validator compiled here; fork is safe only while this
    # process has no other thread (one could hold a lock the child would wait on forever).
    forking = threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
    if forking:
        engine("fast")
    context = multiprocessing.get_context("fork" if forking else "spawn")
    workers = jobs - 1
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        broken = False
        with _stdin_detached():
            try:
                pool.submit(int).result()  # the workers start (all at once with fork) before any thread
            except BrokenProcessPool:
                broken = True
        waiting: set[Future[Part]] = set()

        def send(work: Task | LineRange) -> Part | Future[Part]:
            nonlocal broken
            waiting.difference_update([future for future in waiting if future.done()])
            if (
                not broken
                and not isinstance(work, DoneTask)
                and len(waiting) < IN_FLIGHT_PER_WORKER * workers
            ):
                try:
                    future = pool.submit(_check_unit, work, options, UNIT_RECORDS)
                except BrokenProcessPool:
                    broken = True
                else:
                    waiting.add(future)
                    return future
            return _check_unit(work, options, UNIT_RECORDS)  # a verdict reached already, or no room: here

        def outcome(future: Future[Part], work: Task | LineRange) -> Part:
            nonlocal broken
            try:
                return future.result()
            except BrokenProcessPool:
                broken = True
                return _check_unit(work, options, UNIT_RECORDS)

        units = (unit for source in sources for unit in _units(source, stdin))
        window = 2 * IN_FLIGHT_PER_WORKER * jobs
        yield from in_order(
            units, send, lambda futures: wait(futures, return_when=FIRST_COMPLETED), lambda: window, outcome
        )


@contextmanager
def _stdin_detached() -> Iterator[None]:
    """No ``sys.stdin`` while workers are forked: a forked worker closes the one it inherits, which
    kills it when ``sys.stdin`` is a stand-in without ``close``."""
    saved = sys.stdin
    sys.stdin = None
    try:
        yield
    finally:
        sys.stdin = saved
