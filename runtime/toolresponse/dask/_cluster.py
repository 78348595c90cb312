"""Validation as a Dask graph: paths or a bag of lines in, a bag of records and a summary out.

The work is planned where the call is made, from the bulk API's ``expand``
(files, directories, URLs): a JSON-lines file that can be cut (not compressed,
its size known) becomes byte ranges of about ``block_bytes`` that each task
reads where it runs; any other input (a ``.json`` document, a compressed file,
a file of another extension) is read whole, streaming. Each task returns its
records numbered from line 1 of its range and how many lines it read;
numbering the ranges after it is a small task per range (a chain per file), so
that the records are exactly those of one process, in its order.

No task holds more than ``TASK_RECORDS`` records, whatever its input (a
compressed file of millions of invalid lines, a range of tiny ones): on the
command line (``check_on``) a task stops there and hands back the work left (the
rest of a range, or the lines after a line of a stream), which is sent on at
once, to the same worker when it holds the stream open, so every record comes
back, in order; in the Python API's graph a task checks all its work and keeps
the first ``TASK_RECORDS`` records, counting the others (``Summary.unlisted``).

A task is a pure function of its work: when a worker dies, the scheduler runs
its tasks again elsewhere and every line is reported once (a stream left open
in the dead worker is read again from the start, its earlier lines passed over
unchecked). Local paths are made absolute where the call is made: a worker
started in another directory reads the same file (a worker on another machine
must see it at the same path).

``check_on`` bounds every wait on the cluster by ``timeout_s``: a scheduler
with no worker, or whose workers finish no task in that time (gone, stuck, busy
with other work), is a ``ClusterTimeout``, never a wait without end.
"""

from __future__ import annotations

import io
import logging
import os
import threading
import uuid
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from .._suggest import is_finite_number
from ..validation import (
    Batch,
    InputReader,
    LineRange,
    Options,
    Record,
    Source,
    check_range,
    expand,
    input_size,
    is_url,
    merged,
    renumber,
    split_ranges,
    splittable,
    unsplittable,
)
from ._partition import TASK_RECORDS, Summary, TaskResult, kept, partition_result, summarise

if TYPE_CHECKING:
    import dask.bag
    import dask.dataframe
    from dask.delayed import Delayed
    from distributed import Client

__all__ = [
    "BLOCK_BYTES",
    "COLUMNS",
    "EXTRA",
    "READERS_KEPT",
    "TIMEOUT_S",
    "ClusterTimeout",
    "DaskUnavailable",
    "Validation",
    "check_on",
    "connect",
    "validate_bag",
    "validate_paths",
]

BLOCK_BYTES = 16 << 20
"""About how many bytes of a JSON-lines file one task checks."""
EXTRA = "pip install 'toolresponse[dask]'"
TIMEOUT_S = 30.0
"""The longest wait on a cluster, in seconds, unless told otherwise: for its scheduler to answer
(``connect``), for a first worker to join it, and for some task to finish (``check_on``). A task
checks at most a range of ``BLOCK_BYTES``, so on a cluster that is not busy with other work one
finishes within a few seconds. The default is that of ``distributed`` for connecting."""


class DaskUnavailable(ImportError):
    """Dask or distributed is not installed."""


class ClusterTimeout(TimeoutError):
    """A wait on the cluster outlasted its bound: no worker joined the scheduler, or none of the
    tasks in flight finished (the workers are gone, stuck, or busy with other work)."""


def _timeout(timeout_s: float) -> float:
    if not is_finite_number(timeout_s) or timeout_s <= 0:
        raise ValueError(f"a cluster timeout is a positive number of seconds, not {timeout_s!r}")
    return float(timeout_s)


def _dask() -> Any:
    try:
        import dask
        import dask.bag
    except ImportError:
        raise DaskUnavailable(f"validating on Dask needs dask and distributed: {EXTRA}") from None
    return dask


class _Whole(NamedTuple):
    """An input read whole, streaming (a document, a compressed file, a file that is not cut), from
    its line ``from_line`` on; ``reader`` names the reader a task left open at that line in its
    worker process (``_READERS``), if one did."""

    source: Source
    from_line: int = 1
    reader: str | None = None


Work = LineRange | _Whole | Record


def _plan(sources: Iterable[Source | Record], block_bytes: int) -> Iterator[Work]:
    for source in sources:
        if isinstance(source, Record):
            yield source
            continue
        if source.path == "-":
            raise ValueError("standard input cannot be read by Dask workers: name files or URLs")
        if not is_url(source.path):
            # A worker's working directory is not this one: it is given the path from the root.
            source = source._replace(path=os.path.abspath(source.path))
        if source.mode == "lines" and splittable(source.path):
            size = source.size if source.size is not None else input_size(source.path)
            refused = None if size is None else unsplittable(source)
            if size is None:
                yield _Whole(source)
            elif isinstance(refused, Record):
                yield refused
            elif refused is not None:  # to be read whole (pretty-printed documents)
                yield _Whole(refused)
            else:
                yield from split_ranges(source.path, source.name, size, block_bytes)
        else:
            yield _Whole(source)


READERS_KEPT = 4
"""How many readers a worker process keeps open for the tasks that go on where others stopped
(the oldest is closed past them; a task that finds its reader gone reads its input again)."""
_READERS: OrderedDict[str, InputReader] = OrderedDict()
_READERS_LOCK = threading.Lock()


def _reader(work: _Whole, options: Options) -> InputReader:
    """The reader of ``work``: the one a task left open in this process, or a new one."""
    if work.reader is not None:
        with _READERS_LOCK:
            found = _READERS.pop(work.reader, None)
        if found is not None:
            return found
    return InputReader(work.source, options, stdin=io.BytesIO(), from_line=work.from_line)


def _keep_open(reader: InputReader) -> str:
    """Keep ``reader`` for the task that goes on with it; the name it is kept under."""
    name = uuid.uuid4().hex
    with _READERS_LOCK:
        _READERS[name] = reader
        closing = [_READERS.popitem(last=False)[1] for _ in range(len(_READERS) - READERS_KEPT)]
    for old in closing:
        old.close()
    return name


def _step(work: LineRange | _Whole, options: Options, limit: int, block_bytes: int) -> TaskResult:
    """One task of the command line, where it runs: the records of ``work`` up to ``limit`` of them
    (and of a stream, about ``block_bytes`` of it at most, as a range holds), and the work left
    when it stopped there. Its work is bounded, so a task that does not end is one stuck."""
    if isinstance(work, LineRange):
        result = check_range(work, options, max_records=limit)
        return _read_here(TaskResult(result.parts[0], result.lines, rest=result.rest))
    reader = _reader(work, options)
    batch = reader.read(limit, max_bytes=block_bytes)
    if reader.next_line is None:
        return _read_here(TaskResult(batch, 0))
    rest = work._replace(from_line=reader.next_line, reader=_keep_open(reader))
    return _read_here(TaskResult(batch, 0, rest=rest, where=_worker()))


def _run(work: LineRange | _Whole, options: Options, limit: int) -> TaskResult:
    """One task of the graph, where it runs: all of ``work``, keeping its first ``limit`` records
    (and every unreadable input's) and counting the others."""
    steps = _steps(work, options, limit)
    first = next(steps)
    batch, unlisted = kept(first.batch, limit)
    parts, lines = [batch], first.lines
    for step in steps:
        more, left_out = kept(renumber(step.batch, lines), 0)
        parts.append(more)
        unlisted += left_out
        lines += step.lines
    return _read_here(TaskResult(merged(parts), lines, unlisted))


def _steps(work: LineRange | _Whole, options: Options, limit: int) -> Iterator[TaskResult]:
    """All of ``work``, here, in steps of at most ``limit`` records each (at least one step)."""
    if isinstance(work, LineRange):
        rest: LineRange | None = work
        while rest is not None:
            result = check_range(rest, options, max_records=limit)
            yield TaskResult(result.parts[0], result.lines)
            rest = result.rest
        return
    reader = InputReader(work.source, options, stdin=io.BytesIO(), from_line=work.from_line)
    try:
        yield TaskResult(reader.read(limit), 0)
        while reader.next_line is not None:
            yield TaskResult(reader.read(limit), 0)
    finally:
        reader.close()


def _worker() -> str | None:
    """The address of the distributed worker this runs in, or None (Dask's local schedulers)."""
    try:
        from distributed import get_worker

        address: str = get_worker().address
    except (ImportError, ValueError):
        return None
    return address


def _read_here(result: TaskResult) -> TaskResult:
    """``result`` with each input that could not be opened naming the worker that tried: the
    command that listed it may see a file where a worker does not."""
    batch = result.batch
    if not any(_unopened(record) for record in batch.records):
        return result
    address = _worker()
    if address is None:
        return result
    where = f" (read on the Dask worker at {address})"
    records = [
        record._replace(io_error=f"{record.io_error}{where}") if _unopened(record) else record
        for record in batch.records
    ]
    return result._replace(batch=batch._replace(records=records))


def _unopened(record: Record) -> bool:
    """An input that could not be read at all (a line too long to read has its line number)."""
    return record.io_error is not None and record.line is None


def _done(record: Record) -> Batch:
    return Batch(0, 0 if record.io_error else 1, [record], 0)


def _first_of_file(work: Work) -> bool:
    return not isinstance(work, LineRange) or work.start == 0


# The graph: the tasks of the Python API.


def _records(result: TaskResult, offset: int) -> list[Record]:
    return renumber(result.batch, offset).records


def _after(offset: int, result: TaskResult) -> int:
    return offset + result.lines


def _counts(result: TaskResult) -> Summary:
    return summarise([result.batch], result.unlisted)


def _summary(counts: list[Summary], done: list[Batch]) -> Summary:
    known = summarise(done)
    return Summary(*(sum(column) for column in zip(known, *counts, strict=False)))


def _row(record: Record) -> list[dict[str, Any]]:
    base = {"source": record.source, "line": record.line, "valid": record.valid}
    if record.io_error is not None:
        return [{**base, "column": None, "pointer": None, "keyword": None, "message": None,
                 "io_error": record.io_error}]  # fmt: skip
    if not record.errors:
        return [{**base, "column": None, "pointer": None, "keyword": None, "message": None, "io_error": None}]
    return [
        {
            **base,
            "line": violation.line if violation.line is not None else record.line,
            "column": violation.column,
            "pointer": violation.pointer,
            "keyword": violation.keyword,
            "message": violation.message,
            "io_error": None,
        }
        for violation in record.errors
    ]


COLUMNS = ("source", "line", "column", "valid", "pointer", "keyword", "message", "io_error")
"""The dataframe's columns: one row per violation (and per unreadable input, and per kept valid response)."""


class Validation(NamedTuple):
    """A validation not yet computed: ``dask.compute(v.records, v.summary)`` runs each task once."""

    records: dask.bag.Bag
    """The bulk API's ``Record``\\ s, in input order: every unreadable input, and the invalid
    responses up to ``TASK_RECORDS`` per task (the first of its range, or of its compressed
    file); ``Summary.unlisted`` counts those left out (``check_on`` gives every one)."""
    summary: dask.bag.Item
    """The ``Summary`` (every response counted), a lazy value as the records are: compute it alone
    or with them."""

    def to_dataframe(self) -> dask.dataframe.DataFrame:
        """The records as a dataframe, one row per violation (``COLUMNS``); needs pandas and pyarrow."""
        try:
            import pandas
        except ImportError:
            raise DaskUnavailable(f"a dataframe needs pandas and pyarrow: {EXTRA[:-2]},dataframe]'") from None
        meta = pandas.DataFrame(
            {
                "source": pandas.Series(dtype="string"),
                "line": pandas.Series(dtype="Int64"),
                "column": pandas.Series(dtype="Int64"),
                "valid": pandas.Series(dtype="bool"),
                "pointer": pandas.Series(dtype="string"),
                "keyword": pandas.Series(dtype="string"),
                "message": pandas.Series(dtype="string"),
                "io_error": pandas.Series(dtype="string"),
            }
        )
        return self.records.map(_row).flatten().to_dataframe(meta=meta)


def _lazy_summary(dask: Any, summary: Delayed) -> dask.bag.Item:
    """The summary as a value of the bag's kind: computed with the records, both are optimized as
    one graph and each task runs once (a ``Delayed`` beside a bag ran every task twice: the bag's
    optimization fused the tasks into its partitions under new names)."""
    item: dask.bag.Item = dask.bag.Item.from_delayed(summary)
    return item


def _validation(works: Sequence[Work], options: Options, task_records: int) -> Validation:
    dask = _dask()
    delayed = dask.delayed
    pieces: list[Delayed] = []
    results: list[Delayed] = []
    done: list[Batch] = []
    offset: Any = 0
    for work in works:
        if isinstance(work, Record):
            done.append(_done(work))
            pieces.append(delayed([work]))
            continue
        result = delayed(_run, pure=True)(work, options, task_records)
        results.append(delayed(_counts, pure=True)(result))
        if _first_of_file(work):
            offset = 0
        pieces.append(delayed(_records, pure=True)(result, offset))
        offset = delayed(_after, pure=True)(offset, result)
    records = dask.bag.from_delayed(pieces) if pieces else dask.bag.from_sequence([], npartitions=1)
    return Validation(records, _lazy_summary(dask, delayed(_summary, pure=True)(results, done)))


def validate_paths(
    paths: Iterable[str],
    *,
    options: Options = Options(),  # noqa: B008 (a NamedTuple: immutable)
    block_bytes: int = BLOCK_BYTES,
    task_records: int = TASK_RECORDS,
) -> Validation:
    """Validate files, directories and URLs (``s3://``, ``gs://``, ``https://``, ``memory://``...) on Dask.

    Inputs are listed now, where this is called; they are read by the workers (which must see the
    same paths, and have toolresponse installed). Compressed files (``.gz``, ``.zst``) are read whole
    by one task each. A task keeps at most ``task_records`` records (the first of its work; the
    summary counts the others as ``unlisted``), so a worker's memory does not grow with its input."""
    return _validation(list(_plan(expand(paths), block_bytes)), options, _records_bound(task_records))


def validate_bag(
    lines: dask.bag.Bag,
    *,
    name: str = "<bag>",
    options: Options = Options(),  # noqa: B008 (a NamedTuple: immutable)
    task_records: int = TASK_RECORDS,
) -> Validation:
    """Validate a bag of JSON lines (say ``dask.bag.read_text(...)``), numbered through its partitions.

    The records name ``name`` and the line's position in the bag (from 1, partition after partition).
    A partition's task keeps at most ``task_records`` records, as ``validate_paths``'s do."""
    dask = _dask()
    delayed = dask.delayed
    parts = lines.map_partitions(_bag_partition, name, options, _records_bound(task_records)).to_delayed()
    pieces: list[Delayed] = []
    results: list[Delayed] = []
    offset: Any = 0
    for part in parts:
        result = delayed(_first, pure=True)(part)
        results.append(delayed(_counts, pure=True)(result))
        pieces.append(delayed(_records, pure=True)(result, offset))
        offset = delayed(_after, pure=True)(offset, result)
    summary = delayed(_summary, pure=True)(results, [])
    return Validation(dask.bag.from_delayed(pieces), _lazy_summary(dask, summary))


def _records_bound(task_records: int) -> int:
    if not isinstance(task_records, int) or task_records < 1:
        raise ValueError(f"a task keeps at least one record, not {task_records!r}")
    return task_records


def _bag_partition(lines: Iterable[str | bytes], name: str, options: Options, limit: int) -> list[TaskResult]:
    return [partition_result(lines, name, options, max_records=limit)]


def _first(part: list[TaskResult]) -> TaskResult:
    return part[0]


# The command line: results gathered in input order as they come, at most ``window`` in flight.


def check_on(
    client: Client,
    sources: Iterable[Source | Record],
    options: Options,
    *,
    block_bytes: int = BLOCK_BYTES,
    window: int | None = None,
    timeout_s: float = TIMEOUT_S,
    task_records: int = TASK_RECORDS,
) -> Iterator[Batch]:
    """The batches of ``sources`` checked on ``client``'s cluster, in input order (as ``check`` gives them).

    A task holds at most ``task_records`` records and reads about ``block_bytes`` at most (a range;
    of a compressed file, as many decompressed): one that reaches either stops and its work left
    is sent at once (to the worker that holds the input open), so every record comes back, in
    order, a worker's memory does not grow with its input, and no task runs for long. At most
    ``window`` tasks are in flight (by default four per worker thread), so neither the scheduler
    nor this process holds more than that however many inputs there are. No wait lasts more than
    ``timeout_s`` seconds: for a first worker when the scheduler has none (asked when the first
    task is to be sent), then for some task in flight to finish; past it, ``ClusterTimeout``."""
    timeout_s = _timeout(timeout_s)
    limit = _records_bound(task_records)
    # In input order: a verdict reached while listing (a Batch), a task in flight (a Future), or
    # what a task found (a TaskResult); and whether its lines are numbered from its file's first.
    pending: deque[list[Any]] = deque()
    offset = 0

    def send(work: LineRange | _Whole, where: str | None = None) -> Any:
        place: dict[str, Any] = {} if where is None else {"workers": [where], "allow_other_workers": True}
        return client.submit(_step, work, options, limit, block_bytes, pure=True, **place)

    def in_flight(item: Any) -> bool:
        return not isinstance(item, Batch | TaskResult)

    def take_finished() -> None:
        """Take what every finished task found; the work left by one that stopped goes out now,
        in its place in the order (right after it)."""
        index = 0
        while index < len(pending):
            entry = pending[index]
            if in_flight(entry[0]) and entry[0].done():
                future, entry[0] = entry[0], entry[0].result()
                future.release()
                if entry[0].rest is not None:
                    rest = entry[0].rest
                    pending.insert(index + 1, [send(rest, entry[0].where), _first_of_file(rest)])
            index += 1

    def ready() -> Batch:
        nonlocal offset
        take_finished()
        while in_flight(pending[0][0]):
            _some_finished(client, [entry[0] for entry in pending if in_flight(entry[0])], timeout_s)
            take_finished()
        found, first = pending.popleft()
        if isinstance(found, Batch):
            return found
        offset = 0 if first else offset
        batch = renumber(found.batch, offset)
        offset += found.lines
        return batch

    for work in _plan(sources, block_bytes):
        if isinstance(work, Record):
            pending.append([_done(work), True])
        else:
            if window is None:
                _wait_for_a_worker(client, timeout_s)
                window = max(4 * sum(client.nthreads().values()), 8)
            pending.append([send(work), _first_of_file(work)])
        while window is not None and len(pending) > window:
            yield ready()
    while pending:
        yield ready()


def _wait_for_a_worker(client: Client, timeout_s: float) -> None:
    if client.nthreads():
        return
    try:
        client.wait_for_workers(1, timeout=timeout_s)
    except TimeoutError:
        address = getattr(client.scheduler, "address", "ADDRESS")
        raise ClusterTimeout(
            f"no worker joined the scheduler in {timeout_s:g} s (start some with 'dask worker {address}';"
            " one that failed to start says why in its output)"
        ) from None


def _some_finished(client: Client, futures: list[Any], timeout_s: float) -> None:
    """Return once one of ``futures`` has finished; ``ClusterTimeout`` when none does for
    ``timeout_s`` seconds."""
    from distributed import wait

    try:
        wait(futures, timeout=timeout_s, return_when="FIRST_COMPLETED")
    except TimeoutError:
        workers = len(client.nthreads())
        raise ClusterTimeout(
            f"no task finished in {timeout_s:g} s ({workers} worker{'' if workers == 1 else 's'}"
            " connected: gone, stuck, or busy with other work)"
        ) from None


@contextmanager
def connect(scheduler: str, *, workers: int | None = None, timeout_s: float = TIMEOUT_S) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler`` (``tcp://host:8786``), or of a local cluster (``local``).

    A scheduler that does not answer in ``timeout_s`` seconds is an ``OSError``. A local cluster
    has ``workers`` processes (the number of cores by default) of one thread each, on 127.0.0.1,
    without a dashboard; it is closed on leaving."""
    timeout_s = _timeout(timeout_s)
    _dask()
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise DaskUnavailable(f"validating on Dask needs dask and distributed: {EXTRA}") from None
    if scheduler != "local":
        with Client(scheduler, timeout=timeout_s) as client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",  # loopback, any free port (the dashboard itself needs bokeh)
            silence_logs=logging.CRITICAL,  # a worker closing with its cluster logs errors: not the user's
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client
