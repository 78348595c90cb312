"""Validation on Dask: a graph for the Python API (``validate_paths``, ``validate_bag``), and tasks
sent as they are needed for the command (``check_on``), every wait bounded by ``timeout_s``.

The work is planned where the call is made (byte ranges, or inputs read whole); no task holds more
than ``TASK_RECORDS`` records: in the graph a task counts the others (``Summary.unlisted``), on the
command line its work left is sent at once, to the worker that holds the stream open.
"""

from __future__ import annotations

import importlib
import logging
import os
import pickle
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from .._suggest import is_finite_number
from ..validation import Options, Record, Source, expand
from ..validation._bulk import (
    LineRange,
    Part,
    check_range,
    first_of_file,
    in_order,
    parts,
    ranges_of,
)
from ..validation._bulk import stream_parts as _stream_parts
from ..validation._checks import Batch, done_batch, renumber
from ..validation._open import EXTRA, input_size, is_url
from ._partition import TASK_RECORDS, Summary, capped, checked, summarise

if TYPE_CHECKING:
    import dask.bag
    import dask.dataframe
    from dask.delayed import Delayed
    from distributed import Client

BLOCK_BYTES = 16 << 20
"""About how many bytes of input one task checks."""
TIMEOUT_S = 30.0
"""The longest wait on a cluster, in seconds, unless told otherwise."""


class DaskUnavailable(ImportError):
    """Dask or distributed is not installed."""


class ClusterTimeout(TimeoutError):
    """A wait on the cluster outlasted its bound (no worker joined, no task finished)."""


def _timeout(timeout_s: float) -> float:
    if not is_finite_number(timeout_s) or timeout_s <= 0:
        raise ValueError(f"a cluster timeout is a positive number of seconds, not {timeout_s!r}")
    return float(timeout_s)


def _records_bound(task_records: int) -> int:
    if not isinstance(task_records, int) or task_records < 1:
        raise ValueError(f"a task keeps at least one record, not {task_records!r}")
    return task_records


def _dask(module: str = "dask.bag") -> Any:
    """``dask``, once ``module`` is imported too (``distributed`` for a cluster)."""
    try:
        import dask

        importlib.import_module(module)
    except ImportError:
        raise DaskUnavailable(f"validating on Dask needs dask and distributed: {EXTRA}") from None
    return dask


@contextmanager
def _bounded(message: str | Callable[[], str]) -> Iterator[None]:
    """A wait on the cluster that outlasts its bound (a ``TimeoutError``) is a ``ClusterTimeout``."""
    try:
        yield
    except ClusterTimeout:
        raise
    except TimeoutError:
        raise ClusterTimeout(message if isinstance(message, str) else message()) from None


def _plan(sources: Iterable[Source | Record], block_bytes: int) -> Iterator[LineRange | Source | Record]:
    """The work of ``sources``: byte ranges, inputs read whole, and verdicts reached already."""
    for source in sources:
        if isinstance(source, Record):
            yield source
            continue
        if source.path == "-":
            raise ValueError("standard input cannot be read by Dask workers: name files or URLs")
        if not is_url(source.path):
            source = source._replace(path=os.path.abspath(source.path))
        size = source.size if source.size is not None or source.mode != "lines" else input_size(source.path)
        cut = ranges_of(source, size, block_bytes)
        yield from cut if isinstance(cut, list) else [cut]


def _worker() -> str | None:
    """The address of the distributed worker this runs in, or None (Dask's local schedulers)."""
    try:
        from distributed import get_worker

        address: str = get_worker().address
    except (ImportError, ValueError):
        return None
    return address


def _read_here(part: Part) -> Part:
    """``part`` with each input that could not be opened naming the worker that tried."""
    unopened = [record.io_error is not None and record.line is None for record in part.batch.records]
    address = _worker() if any(unopened) else None
    if address is None:
        return part
    records = [
        record._replace(io_error=f"{record.io_error} (read on the Dask worker at {address})")
        if bad
        else record
        for record, bad in zip(part.batch.records, unopened, strict=True)
    ]
    return part._replace(batch=part.batch._replace(records=records))


# The graph: the tasks of the Python API.


def _run(work: LineRange | Source, options: Options, limit: int) -> tuple[Part, int]:
    """One task of the graph: all of ``work``, keeping its first ``limit`` records."""
    part, unlisted = capped(parts(work, options, max_records=limit), limit)
    return _read_here(part), unlisted


def _bag_partition(
    lines: Iterable[str | bytes], name: str, options: Options, limit: int
) -> list[tuple[Part, int]]:
    return [capped(checked(lines, name, 1, options), limit)]


def _records(result: tuple[Part, int], offset: int) -> list[Record]:
    return renumber(result[0].batch, offset).records


def _after(offset: int, result: tuple[Part, int]) -> int:
    return offset + result[0].lines


def _counts(result: tuple[Part, int]) -> Summary:
    return summarise([result[0].batch], result[1])


def _summary(counts: list[Summary], done: list[Batch]) -> Summary:
    return Summary(*(sum(column) for column in zip(summarise(done), *counts, strict=False)))


COLUMNS = ("source", "line", "column", "valid", "pointer", "keyword", "message", "io_error")
"""The dataframe's columns: one row per violation (and per unreadable input, and per kept valid response)."""
_DTYPES = ("string", "Int64", "Int64", "bool", "string", "string", "string", "string")


def _rows(record: Record) -> list[dict[str, Any]]:
    row = dict.fromkeys(COLUMNS)
    row.update(source=record.source, line=record.line, valid=record.valid, io_error=record.io_error)
    if not record.errors:
        return [row]
    return [
        {
            **row,
            "line": record.line if violation.line is None else violation.line,
            "column": violation.column,
            "pointer": violation.pointer,
            "keyword": violation.keyword,
            "message": violation.message,
        }
        for violation in record.errors
    ]


class Validation(NamedTuple):
    """A validation not yet computed: ``dask.compute(v.records, v.summary)`` runs each task once."""

    records: dask.bag.Bag
    """The ``Record``\\ s in input order, up to ``TASK_RECORDS`` a task (``Summary.unlisted``: the rest)."""
    summary: dask.bag.Item
    """The ``Summary``, a bag ``Item``: computed with the records, both are optimized as one graph."""

    def to_dataframe(self) -> dask.dataframe.DataFrame:
        """The records as a dataframe, one row per violation (``COLUMNS``); needs pandas and pyarrow."""
        try:
            import pandas
        except ImportError:
            raise DaskUnavailable(f"a dataframe needs pandas and pyarrow: {EXTRA[:-2]},dataframe]'") from None
        meta = pandas.DataFrame(
            {name: pandas.Series(dtype=kind) for name, kind in zip(COLUMNS, _DTYPES, strict=True)}
        )
        return self.records.map(_rows).flatten().to_dataframe(meta=meta)


def _validation(dask: Any, work: Iterable[Record | tuple[bool, Delayed]]) -> Validation:
    """The validation of ``work``: verdicts reached while listing, and tasks (with whether their
    lines are numbered from their file's first)."""
    delayed = dask.delayed
    pieces_: list[Delayed] = []
    counts: list[Delayed] = []
    done: list[Batch] = []
    offset: Any = 0
    for item in work:
        if isinstance(item, Record):
            done.append(done_batch(item))
            pieces_.append(delayed([item]))
            continue
        first, result = item
        offset = 0 if first else offset
        pieces_.append(delayed(_records, pure=True)(result, offset))
        counts.append(delayed(_counts, pure=True)(result))
        offset = delayed(_after, pure=True)(offset, result)
    # A bag Item, not a Delayed: computed beside the bag, a Delayed ran every task twice.
    summary = dask.bag.Item.from_delayed(delayed(_summary, pure=True)(counts, done))
    records = dask.bag.from_delayed(pieces_) if pieces_ else dask.bag.from_sequence([], npartitions=1)
    return Validation(records, summary)


def validate_paths(
    paths: Iterable[str],
    *,
    options: Options = Options(),  # noqa: B008 (a NamedTuple: immutable)
    block_bytes: int = BLOCK_BYTES,
    task_records: int = TASK_RECORDS,
) -> Validation:
    """Validate files, directories and URLs (``s3://``, ``gs://``, ``https://``, ``memory://``...) on Dask.

    Inputs are listed here and read by the workers (which must see the same paths); a compressed
    file is read whole by one task. A task keeps at most ``task_records`` records."""
    limit = _records_bound(task_records)
    dask = _dask()
    run = dask.delayed(_run, pure=True)
    planned = list(_plan(expand(paths), block_bytes))
    return _validation(
        dask, (w if isinstance(w, Record) else (first_of_file(w), run(w, options, limit)) for w in planned)
    )


def validate_bag(
    lines: dask.bag.Bag,
    *,
    name: str = "<bag>",
    options: Options = Options(),  # noqa: B008 (a NamedTuple: immutable)
    task_records: int = TASK_RECORDS,
) -> Validation:
    """Validate a bag of JSON lines (say ``dask.bag.read_text(...)``), numbered through its partitions
    as lines of ``name``; a partition's task keeps at most ``task_records`` records."""
    limit = _records_bound(task_records)
    dask = _dask()
    parts_ = lines.map_partitions(_bag_partition, name, options, limit).to_delayed()
    first = dask.delayed(itemgetter(0), pure=True)  # a partition's one result
    return _validation(dask, ((index == 0, first(part)) for index, part in enumerate(parts_)))


class _Stream(NamedTuple):
    """The rest of an input read whole, from its line ``from_line`` on; ``reader`` names the
    stream a task left open at that line on the worker at ``worker`` (``_READERS``)."""

    source: Source
    from_line: int
    reader: str
    worker: str | None


READERS_KEPT = 4
"""Open streams a worker keeps for the tasks that go on where others stopped (a task that finds its
stream gone opens the input again)."""
_READERS: OrderedDict[str, Generator[Part]] = OrderedDict()
_READERS_LOCK = threading.Lock()


def _step(work: LineRange | Source | _Stream, options: Options, limit: int, block_bytes: int) -> Part:
    """One task of the command: the records of ``work`` up to ``limit`` of them (and about
    ``block_bytes`` of a stream), and the work left."""
    if isinstance(work, LineRange):
        return _read_here(check_range(work, options, max_records=limit))
    source, from_line = (work.source, work.from_line) if isinstance(work, _Stream) else (work, 1)
    with _READERS_LOCK:
        reader = _READERS.pop(work.reader, None) if isinstance(work, _Stream) else None
    if reader is None:
        reader = _stream_parts(source, options, max_records=limit, max_bytes=block_bytes, from_line=from_line)
    part = next(reader)
    if part.rest is None:
        return _read_here(part)
    name = uuid.uuid4().hex
    with _READERS_LOCK:
        _READERS[name] = reader
        closing = [_READERS.popitem(last=False)[1] for _ in range(len(_READERS) - READERS_KEPT)]
    for old in closing:
        old.close()
    return _read_here(part._replace(rest=_Stream(source, part.rest, name, _worker())))


def _task(work: LineRange | Source | _Stream, options: Options, limit: int, block_bytes: int) -> bytes:
    """``_step``, its part pickled where it ran: distributed moves 10,000 records as an object in
    0.2 s, as bytes in 0.02 s."""
    return pickle.dumps(_step(work, options, limit, block_bytes), protocol=pickle.HIGHEST_PROTOCOL)


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

    A task holds at most ``task_records`` records and reads about ``block_bytes``; at most ``window``
    tasks are in flight (four per worker thread by default). No wait lasts more than ``timeout_s``
    seconds: past it, ``ClusterTimeout``."""
    timeout_s = _timeout(timeout_s)
    limit = _records_bound(task_records)
    known: list[int] = [] if window is None else [window]

    def send(work: LineRange | Source | _Stream | Record) -> Any:
        if isinstance(work, Record):
            return Part(done_batch(work))
        if not known:
            _wait_for_a_worker(client, timeout_s)
            known.append(max(4 * sum(_threads(client, timeout_s).values()), 8))
        where = work.worker if isinstance(work, _Stream) else None
        place: dict[str, Any] = {} if where is None else {"workers": [where], "allow_other_workers": True}
        return client.submit(_task, work, options, limit, block_bytes, pure=True, **place)

    def outcome(future: Any, work: Any) -> Part:
        with _bounded(
            f"a finished task's result could not be fetched in {timeout_s:g} s (the worker that"
            " holds it is gone, or its address cannot be reached from here)"
        ):
            part: Part = pickle.loads(future.result(timeout=timeout_s))  # noqa: S301 (our task's bytes; Dask pickles anyway)
        future.release()
        return part

    def stalled() -> str:
        workers = len(_threads(client, timeout_s))
        return (
            f"no task finished in {timeout_s:g} s ({workers} worker{'' if workers == 1 else 's'}"
            " connected: gone, stuck, or busy with other work)"
        )

    def wait(futures: list[Any]) -> None:
        from distributed import wait

        with _bounded(stalled):
            wait(futures, timeout=timeout_s, return_when="FIRST_COMPLETED")

    yield from in_order(_plan(sources, block_bytes), send, wait, lambda: known[0] if known else 8, outcome)


def _threads(client: Client, timeout_s: float) -> dict[str, int]:
    """The threads of each worker, as the scheduler says within ``timeout_s``."""
    with _bounded(f"the scheduler did not answer in {timeout_s:g} s"):
        threads: dict[str, int] = client.nthreads(callback_timeout=timeout_s)
    return threads


def _wait_for_a_worker(client: Client, timeout_s: float) -> None:
    address = getattr(client.scheduler, "address", "ADDRESS")
    with _bounded(
        f"no worker joined the scheduler in {timeout_s:g} s (start some with 'dask worker {address}';"
        " one that failed to start says why in its output)"
    ):
        if not _threads(client, timeout_s):
            client.wait_for_workers(1, timeout=timeout_s)


@contextmanager
def connect(scheduler: str, *, workers: int | None = None, timeout_s: float = TIMEOUT_S) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler`` (``tcp://host:8786``), or of a local cluster (``local``).

    A scheduler that does not answer in ``timeout_s`` seconds is an ``OSError``. A local cluster has
    ``workers`` processes (one per core by default) of one thread, on 127.0.0.1; closed on leaving."""
    timeout_s = _timeout(timeout_s)
    _dask("distributed")
    from distributed import Client, LocalCluster

    if scheduler != "local":
        _identify(scheduler, timeout_s)
        with Client(scheduler, timeout=timeout_s) as client:
            yield client
        return
    with _left_if_interrupted():
        cluster = LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",  # loopback, any free port (the dashboard itself needs bokeh)
            silence_logs=logging.CRITICAL,  # a worker closing with its cluster logs errors: not the user's
        )
    with cluster, Client(cluster) as client:
        yield client


@contextmanager
def _left_if_interrupted() -> Iterator[None]:
    """A local cluster whose start is interrupted (Ctrl-C) is left to end with the process (its
    workers are daemon processes): distributed would close it at exit, which fails with tracebacks
    on workers still starting; and what its threads log from then on (tasks of the start cut
    short) is not shown: the start was the user's to stop."""
    from distributed.deploy.spec import SpecCluster

    before = set(SpecCluster._instances)
    try:
        yield
    except KeyboardInterrupt:
        for cluster in set(SpecCluster._instances) - before:
            cluster.shutdown_on_close = False
        for name in ("distributed", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        raise


def _identify(address: str, timeout_s: float) -> None:
    """Return once a Dask scheduler at ``address`` has said so, within ``timeout_s``: the client's own
    handshake waits without end on a silent listener, and fails obscurely on another protocol."""
    import asyncio
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.core import connect as open_comm

    scheme, location = parse_address(address)
    if scheme in ("tcp", "tls"):  # nobody listening: said at once, as the connection refused
        socket.create_connection(parse_host_port(location), timeout=timeout_s).close()

    async def identity() -> Any:
        comm = await open_comm(address, timeout=timeout_s)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    try:
        with _bounded(f"the scheduler accepted the connection but did not answer in {timeout_s:g} s"):
            answer = asyncio.run(asyncio.wait_for(identity(), timeout_s))
    except OSError:  # a ClusterTimeout too
        raise
    except Exception as error:  # a reply that is no Dask message: a frame of 3 EiB, bad msgpack ...
        raise OSError(f"it does not answer as a Dask scheduler ({type(error).__name__})") from None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise OSError("it does not answer as a Dask scheduler")
