"""Validation as a Dask graph: paths or a bag of lines in, a bag of records and a summary out.

The work is planned where the call is made, from the bulk API's ``expand``
(files, directories, URLs): a JSON-lines file that can be cut (not compressed,
its size known) becomes byte ranges of about ``block_bytes`` that each task
reads where it runs; any other input (a ``.json`` document, a compressed file,
a file of another extension) is one task that reads it whole, streaming. Each
task returns its records numbered from line 1 of its range and how many lines
it held; numbering the ranges after it is a small task per range (a chain per
file), so that the records are exactly those of one process, in its order.

A task is a pure function of its range: when a worker dies, the scheduler runs
its tasks again elsewhere and every line is reported once.
"""

from __future__ import annotations

import io
import logging
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from ..validation import (
    Batch,
    LineRange,
    Options,
    RangeResult,
    Record,
    Source,
    check,
    check_range,
    expand,
    input_size,
    renumber,
    split_ranges,
    splittable,
    unsplittable,
)
from ._partition import Summary, merged, partition_result, summarise

if TYPE_CHECKING:
    import dask.bag
    import dask.dataframe
    from dask.delayed import Delayed
    from distributed import Client

__all__ = [
    "BLOCK_BYTES",
    "COLUMNS",
    "EXTRA",
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
CONNECT_TIMEOUT = "10s"
"""How long ``connect`` waits for a scheduler to answer."""


class DaskUnavailable(ImportError):
    """Dask or distributed is not installed."""


def _dask() -> Any:
    try:
        import dask
        import dask.bag
    except ImportError:
        raise DaskUnavailable(f"validating on Dask needs dask and distributed: {EXTRA}") from None
    return dask


class _Whole(NamedTuple):
    """An input read whole by one task (a document, a compressed file, a file that is not cut)."""

    source: Source


Work = LineRange | _Whole | Record


def _plan(sources: Iterable[Source | Record], block_bytes: int) -> Iterator[Work]:
    for source in sources:
        if isinstance(source, Record):
            yield source
        elif source.path == "-":
            raise ValueError("standard input cannot be read by Dask workers: name files or URLs")
        elif source.mode == "lines" and splittable(source.path):
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


def _run(work: LineRange | _Whole, options: Options) -> RangeResult[Batch]:
    """One task, where it runs: the range's batch and line count, or a whole input's batch."""
    if isinstance(work, LineRange):
        return check_range(work, options)
    batches = list(check([work.source], options, stdin=io.BytesIO()))
    return RangeResult([merged(batches) if batches else Batch(0, 0, [], 0)], 0)


def _done(record: Record) -> Batch:
    return Batch(0, 0 if record.io_error else 1, [record], 0)


def _first_of_file(work: Work) -> bool:
    return not isinstance(work, LineRange) or work.start == 0


# The graph: the tasks of the Python API.


def _records(result: RangeResult[Batch], offset: int) -> list[Record]:
    return renumber(result.parts[0], offset).records


def _after(offset: int, result: RangeResult[Batch]) -> int:
    return offset + result.lines


def _counts(result: RangeResult[Batch]) -> Summary:
    return summarise(result.parts)


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
    """A validation not yet computed: ``dask.compute(v.records, v.summary)`` runs it once."""

    records: dask.bag.Bag
    """The bulk API's ``Record``\\ s: every invalid response and unreadable input, in input order."""
    summary: Delayed
    """The ``Summary``."""

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


def _validation(works: Sequence[Work], options: Options) -> Validation:
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
        result = delayed(_run, pure=True)(work, options)
        results.append(delayed(_counts, pure=True)(result))
        if _first_of_file(work):
            offset = 0
        pieces.append(delayed(_records, pure=True)(result, offset))
        offset = delayed(_after, pure=True)(offset, result)
    records = dask.bag.from_delayed(pieces) if pieces else dask.bag.from_sequence([], npartitions=1)
    return Validation(records, delayed(_summary, pure=True)(results, done))


def validate_paths(
    paths: Iterable[str],
    *,
    options: Options = Options(),  # noqa: B008 (a NamedTuple: immutable)
    block_bytes: int = BLOCK_BYTES,
) -> Validation:
    """Validate files, directories and URLs (``s3://``, ``gs://``, ``https://``, ``memory://``...) on Dask.

    Inputs are listed now, where this is called; they are read by the workers (which must see the
    same paths, and have toolresponse installed). Compressed files (``.gz``, ``.zst``) are read whole
    by one task each."""
    return _validation(list(_plan(expand(paths), block_bytes)), options)


def validate_bag(
    lines: dask.bag.Bag,
    *,
    name: str = "<bag>",
    options: Options = Options(),  # noqa: B008 (a NamedTuple: immutable)
) -> Validation:
    """Validate a bag of JSON lines (say ``dask.bag.read_text(...)``), numbered through its partitions.

    The records name ``name`` and the line's position in the bag (from 1, partition after partition)."""
    dask = _dask()
    delayed = dask.delayed
    parts = lines.map_partitions(_bag_partition, name, options).to_delayed()
    pieces: list[Delayed] = []
    results: list[Delayed] = []
    offset: Any = 0
    for part in parts:
        result = delayed(_first, pure=True)(part)
        results.append(delayed(_counts, pure=True)(result))
        pieces.append(delayed(_records, pure=True)(result, offset))
        offset = delayed(_after, pure=True)(offset, result)
    return Validation(dask.bag.from_delayed(pieces), delayed(_summary, pure=True)(results, []))


def _bag_partition(lines: Iterable[str | bytes], name: str, options: Options) -> list[RangeResult[Batch]]:
    return [partition_result(lines, name, options)]


def _first(part: list[RangeResult[Batch]]) -> RangeResult[Batch]:
    return part[0]


# The command line: results gathered in input order as they come, at most ``window`` in flight.


def check_on(
    client: Client,
    sources: Iterable[Source | Record],
    options: Options,
    *,
    block_bytes: int = BLOCK_BYTES,
    window: int | None = None,
) -> Iterator[Batch]:
    """The batches of ``sources`` checked on ``client``'s cluster, in input order (as ``check`` gives them).

    At most ``window`` tasks are in flight (by default four per worker thread), so neither the
    scheduler nor this process holds more than that however many inputs there are."""
    if window is None:
        threads = sum(client.nthreads().values())
        window = max(4 * threads, 8)
    pending: deque[tuple[Any, bool]] = deque()
    offset = 0

    def ready() -> Batch:
        nonlocal offset
        future, first = pending.popleft()
        if isinstance(future, Batch):
            return future
        result: RangeResult[Batch] = future.result()
        future.release()
        offset = 0 if first else offset
        batch = renumber(result.parts[0], offset)
        offset += result.lines
        return batch

    for work in _plan(sources, block_bytes):
        if isinstance(work, Record):
            pending.append((_done(work), True))
        else:
            pending.append((client.submit(_run, work, options, pure=True), _first_of_file(work)))
        while len(pending) > window:
            yield ready()
    while pending:
        yield ready()


@contextmanager
def connect(scheduler: str, *, workers: int | None = None) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler`` (``tcp://host:8786``), or of a local cluster (``local``).

    A local cluster has ``workers`` processes (the number of cores by default) of one thread each,
    on 127.0.0.1, without a dashboard; it is closed on leaving."""
    _dask()
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise DaskUnavailable(f"validating on Dask needs dask and distributed: {EXTRA}") from None
    if scheduler != "local":
        with Client(scheduler, timeout=CONNECT_TIMEOUT) as client:
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
