"""Validate many responses from files, directories and standard input, streaming, in batches.

What is read, and how:

- a ``.json`` file holds one response (a JSON document);
- a ``.jsonl`` or ``.ndjson`` file holds one response per line (blank lines are skipped);
- a directory is walked in name order for those three extensions, depth first;
  names beginning with ``.`` are skipped and symbolic links to directories are not followed;
- ``-`` is standard input, and so is any other file: if its first non-blank line
  is a whole JSON value it is JSON lines, otherwise the whole input is one document;
- a file with a NUL byte in its first 8 KiB is binary (git's rule): one invalid
  response (keyword ``binary``), whatever its extension.

A file that cannot be read (missing, a directory where a file was listed, no
permission, gone between listing and reading) is an I/O error ``Record``: it is
reported and the run goes on.

JSON lines are read in batches of about ``BATCH_BYTES``; each batch yields the
number of valid lines and a record for each invalid one (and, when asked, for
each valid one too), so memory stays flat however long the input. With
``--jobs`` a JSON-lines file of known size is cut into byte ranges of about
``BATCH_BYTES`` that each worker process reads itself (``_ranges``); other inputs
go to the workers in batches; results come back in input order, at most
``2 * jobs`` in flight, each range's lines renumbered after the ranges before.

A URL (``scheme://...``) names one stored object, read through fsspec, and so
is a ``.gz`` or ``.zst`` file (read as what its name says without that extension).

The fast path is orjson and jsonschema-rs ``is_valid`` per line, and the
duplicate-name scan of ``_ijson`` (``lines_with_duplicates``, in C) per batch;
only an invalid line goes on to have its violations explained.
"""

from __future__ import annotations

import os
import re
import stat
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import cache, partial
from typing import IO, Literal, NamedTuple, Protocol

import orjson

from .._violation import SchemaViolation, best_match
from ._engine import engine
from ._ijson import (
    BINARY_SNIFF_BYTES,
    MAX_NESTING,
    IJsonError,
    IJsonRule,
    duplicate_error,
    parse_error,
)
from ._ranges import (
    LineRange,
    RangeResult,
    is_url,
    open_input,
    run_range,
    split_ranges,
    splittable,
    without_compression,
)
from ._validate import ExplanationCache, validate_json
from .native import lines_with_duplicates

__all__ = [
    "BATCH_BYTES",
    "DOCUMENT_EXTENSIONS",
    "LINES_EXTENSIONS",
    "LOCAL_BATCH_BYTES",
    "Batch",
    "Options",
    "Record",
    "Source",
    "check",
    "check_document",
    "check_lines",
    "check_range",
    "expand",
    "renumber",
    "run_task",
    "shown_path",
    "tasks",
]

BATCH_BYTES = 1 << 20
"""About how many bytes of JSON lines make one batch sent to a worker (``--jobs``)."""
LOCAL_BATCH_BYTES = 1 << 16
"""About how many bytes of JSON lines make one batch checked in this process: small enough
for the lines to stay in the processor's cache between reading and checking."""
DOCUMENT_EXTENSIONS = (".json",)
LINES_EXTENSIONS = (".jsonl", ".ndjson")
STDIN = "-"
STDIN_NAME = "<stdin>"

Mode = Literal["document", "lines", "sniff"]


class Record(NamedTuple):
    """The verdict on one response, or an input that could not be read."""

    source: str
    """The file as shown (``<stdin>`` for standard input)."""
    line: int | None
    """The response's line (JSON lines), or the line of its first violation (a document)."""
    column: int | None
    errors: tuple[SchemaViolation, ...]
    """Empty for a valid response."""
    io_error: str | None = None
    """Why the input could not be read; then there is no verdict."""

    @property
    def valid(self) -> bool:
        return not self.errors and self.io_error is None


class Batch(NamedTuple):
    """What one unit of work found."""

    valid: int
    """Valid responses."""
    invalid: int
    """Invalid responses."""
    records: list[Record]
    """Every invalid response and I/O error, and the valid responses when ``Options.keep_valid``."""
    size: int
    """Bytes of input consumed (for progress)."""


class Options(NamedTuple):
    """How responses are checked and reported."""

    first: bool = False
    """Keep only the most relevant violation of each response."""
    keep_valid: bool = False
    """Also make a record for each valid response."""
    explain: bool = True
    """Say what is wrong with each invalid response; without, only count them."""


class Source(NamedTuple):
    """One input to read."""

    path: str
    """What to open (``-`` for standard input)."""
    name: str
    """How to show it."""
    mode: Mode
    size: int | None
    """Its size when listed, if known."""


class _Result(Protocol):
    def get(self) -> Batch: ...


class _PendingRange(Protocol):
    def get(self) -> RangeResult[Batch]: ...


class _Ready:
    """A batch already known, kept in line with the pending ones."""

    def __init__(self, batch: Batch) -> None:
        self._batch = batch

    def get(self) -> Batch:
        return self._batch


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def shown_path(path: str) -> str:
    """A path as a report line can show it: undecodable bytes and control characters escaped."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def _io_record(name: str, error: OSError) -> Record:
    return Record(shown_path(name), None, None, (), io_error=_reason(error))


def _mode_for(path: str) -> Mode:
    lowered = without_compression(path.lower())
    if lowered.endswith(DOCUMENT_EXTENSIONS):
        return "document"
    if lowered.endswith(LINES_EXTENSIONS):
        return "lines"
    return "sniff"


def _walk(directory: str) -> Iterator[Source | Record]:
    """The response files under ``directory``, in name order, depth first, without recursion."""
    pending: list[Iterator[os.DirEntry[str]]] = []

    def listing(path: str) -> Iterator[os.DirEntry[str]] | Record:
        try:
            with os.scandir(path) as entries:
                return iter(sorted(entries, key=lambda entry: entry.name))
        except OSError as error:
            return _io_record(path, error)

    first = listing(directory)
    if isinstance(first, Record):
        yield first
        return
    pending.append(first)
    extensions = DOCUMENT_EXTENSIONS + LINES_EXTENSIONS
    while pending:
        entry = next(pending[-1], None)
        if entry is None:
            pending.pop()
            continue
        if entry.name.startswith("."):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                below = listing(entry.path)
                if isinstance(below, Record):
                    yield below
                else:
                    pending.append(below)
            elif without_compression(entry.name.lower()).endswith(extensions) and entry.is_file():
                yield Source(entry.path, shown_path(entry.path), _mode_for(entry.name), entry.stat().st_size)
        except OSError as error:
            yield _io_record(entry.path, error)


def expand(paths: Iterable[str]) -> Iterator[Source | Record]:
    """Every input named by ``paths`` (files, directories, ``-``), or the I/O error that stops one."""
    for path in paths:
        if path == STDIN:
            yield Source(STDIN, STDIN_NAME, "sniff", None)
            continue
        if is_url(path):
            yield Source(path, shown_path(path), _mode_for(path), None)
            continue
        try:
            status = os.stat(path)
        except OSError as error:
            yield _io_record(path, error)
            continue
        if stat.S_ISDIR(status.st_mode):
            yield from _walk(path)
        else:
            size = status.st_size if stat.S_ISREG(status.st_mode) else None
            yield Source(path, shown_path(path), _mode_for(path), size)


def _ijson_violation(error: IJsonError, line: int | None = None) -> SchemaViolation:
    return SchemaViolation(
        pointer=error.pointer or "",
        keyword=str(error.rule),
        message=error.detail,
        line=error.line if line is None else line,
        column=error.column,
    )


def _binary_record(name: str, head: bytes) -> Record:
    offset = head.find(b"\x00")
    violation = SchemaViolation(
        pointer="",
        keyword=str(IJsonRule.BINARY),
        message=f"binary data (a NUL byte at byte {offset}), not JSON text",
    )
    return Record(name, None, None, (violation,))


@cache
def _explanations() -> ExplanationCache:
    """The explanations of this process, built on the first invalid response (not at import)."""
    return ExplanationCache()


def _line_error(line: bytes, error: orjson.JSONDecodeError) -> IJsonError:
    """The error of a JSON line without its line end (which orjson read as part of it)."""
    content = line.rstrip(b"\r\n")
    # Only an error at the line end can change without it (an unterminated string, say);
    # orjson counts positions in characters, bytes only for ASCII.
    if content != line and (error.pos >= len(content) or not content.isascii()):
        try:
            orjson.loads(content)
        except orjson.JSONDecodeError as without_end:
            # Returned from inside the handler: no frame keeps the exception (and its traceback,
            # which would hold this batch of lines) alive in a reference cycle.
            return parse_error(content, without_end)
    return parse_error(content, error)


def _malformed(name: str, number: int, line: bytes, error: orjson.JSONDecodeError) -> Record:
    failure = _ijson_violation(_line_error(line, error), number)
    return Record(name, number, failure.column, (failure,))


def _duplicated(name: str, number: int, line: bytes) -> Record | None:
    """The record of a line that repeats a member name, or None if it does not."""
    duplicate = duplicate_error(line)
    if duplicate is None:
        return None
    failure = _ijson_violation(duplicate, number)
    return Record(name, number, failure.column, (failure,))


# The per-line fast path: one orjson.loads and one jsonschema-rs is_valid; nothing else happens
# to a valid line. The duplicate-name scan (_ijson.lines_with_duplicates: exact, in C) reads the
# whole batch in one call first; the functions are bound to locals and the loop is written out:
# a call per line is measurable.


def check_lines(name: str, lines: list[bytes], first_line: int, options: Options) -> Batch:
    """The verdicts on JSON lines ``lines``, the first of which is line ``first_line`` of ``name``."""
    if not options.explain:
        return _count_lines(lines)
    is_valid = engine("fast").is_valid
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    duplicated_lines = {first_line + index for index in lines_with_duplicates(lines, MAX_NESTING)}
    keep_valid = options.keep_valid
    first = options.first
    explain = None
    records: list[Record] = []
    append = records.append
    valid = invalid = 0
    number = first_line - 1
    for line in lines:
        number += 1
        try:
            obj = loads(line)
        except decode_error as error:
            if line.isspace():
                continue
            invalid += 1
            append(_malformed(name, number, line, error))
            continue
        if duplicated_lines and number in duplicated_lines:
            duplicated = _duplicated(name, number, line)
            if duplicated is not None:
                invalid += 1
                append(duplicated)
                continue
        if is_valid(obj):
            valid += 1
            if keep_valid:
                append(Record(name, number, None, ()))
            continue
        invalid += 1
        if explain is None:
            explain = _explanations().explain
        append(Record(name, number, None, explain(obj, first=first)))
    return Batch(valid, invalid, records, sum(map(len, lines)))


def _count_lines(lines: list[bytes]) -> Batch:
    """Only the counts of valid and invalid lines (for ``--quiet``): nothing is explained."""
    is_valid = engine("fast").is_valid
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    duplicated_lines = set(lines_with_duplicates(lines, MAX_NESTING))
    valid = invalid = 0
    for index, line in enumerate(lines):
        try:
            obj = loads(line)
        except decode_error:
            invalid += not line.isspace()
            continue
        if is_valid(obj) and not (duplicated_lines and index in duplicated_lines):
            valid += 1
        else:
            invalid += 1
    return Batch(valid, invalid, [], sum(map(len, lines)))


def check_document(name: str, data: bytes, options: Options) -> Batch:
    """The verdict on one JSON document: I-JSON rules, then the schema, each violation located."""
    result = validate_json(data)
    if result.valid:
        records = [Record(name, None, None, ())] if options.keep_valid else []
        return Batch(1, 0, records, len(data))
    best = best_match(result.errors)
    assert best is not None  # an invalid response has a violation
    errors = (best,) if options.first else result.errors
    return Batch(0, 1, [Record(name, best.line, best.column, errors)], len(data))


class LinesTask(NamedTuple):
    """A batch of JSON lines to check."""

    name: str
    first_line: int
    lines: list[bytes]


class DocumentTask(NamedTuple):
    """One JSON document to check."""

    name: str
    data: bytes


class DoneTask(NamedTuple):
    """A verdict reached while reading (an I/O error, a binary file)."""

    record: Record


Task = LinesTask | DocumentTask | DoneTask


def run_task(task: Task, options: Options) -> Batch:
    """Check one unit of work (in this process or in a worker)."""
    if isinstance(task, LinesTask):
        return check_lines(task.name, task.lines, task.first_line, options)
    if isinstance(task, DocumentTask):
        return check_document(task.name, task.data, options)
    record = task.record
    return Batch(0, 0 if record.io_error else 1, [record], 0)


def check_range(task: LineRange, options: Options) -> RangeResult[Batch]:
    """Check the lines of one byte range, read where this runs; lines numbered from 1 in the range.

    ``RangeResult.parts`` is one ``Batch``; ``renumber`` it by the lines of the ranges before."""
    try:
        result = run_range(task, partial(check_lines, options=options), LOCAL_BATCH_BYTES)
    except OSError as error:
        return RangeResult([Batch(0, 0, [_io_record(task.name, error)], 0)], 0)
    parts = result.parts
    records = [record for part in parts for record in part.records]
    valid = sum(part.valid for part in parts)
    merged = Batch(valid, sum(part.invalid for part in parts), records, sum(part.size for part in parts))
    return RangeResult([merged], result.lines)


def renumber(batch: Batch, offset: int) -> Batch:
    """``batch`` with its line numbers moved by ``offset``: the lines of the ranges before it."""
    if not offset:
        return batch
    moved: list[Record] = []
    append = moved.append
    make = tuple.__new__  # a Record, without the keyword handling of _replace (this runs per record)
    for source, line, column, errors, io_error in batch.records:
        for violation in errors:
            if violation.line is not None:  # a parse or duplicate-name error: located in the text
                errors = tuple(
                    item if item.line is None else replace(item, line=item.line + offset) for item in errors
                )
                break
        append(make(Record, (source, None if line is None else line + offset, column, errors, io_error)))
    return Batch(batch.valid, batch.invalid, moved, batch.size)


def _ranges(source: Source | Record, stdin: IO[bytes], size: int) -> Iterator[Task | LineRange]:
    """The work of one input for ``--jobs``: a JSON-lines file in byte ranges its workers read, or tasks."""
    if (
        not isinstance(source, Record)
        and source.mode == "lines"
        and source.size is not None
        and source.size > size
        and splittable(source.path)
        and not is_url(source.path)
    ):
        try:
            with open(source.path, "rb") as stream:
                head = stream.read(BINARY_SNIFF_BYTES)
        except OSError as error:
            yield DoneTask(_io_record(source.name, error))
            return
        if b"\x00" in head:
            yield DoneTask(_binary_record(source.name, head))
            return
        yield from split_ranges(source.path, source.name, source.size, size)
        return
    yield from tasks(source, stdin, size)


def _line_batches(
    name: str, stream: IO[bytes], first_line: int, head: list[bytes], size: int
) -> Iterator[Task]:
    number = first_line
    lines = head + stream.readlines(size)
    while lines:
        yield LinesTask(name, number, lines)
        number += len(lines)
        lines = stream.readlines(size)


def _peek(stream: IO[bytes]) -> bytes:
    peek = getattr(stream, "peek", None)
    head: bytes = peek(BINARY_SNIFF_BYTES)[:BINARY_SNIFF_BYTES] if peek is not None else b""
    return head


def _stream_tasks(name: str, stream: IO[bytes], mode: Mode, size: int) -> Iterator[Task]:
    if mode == "document":
        yield DocumentTask(name, stream.read())
        return
    head = _peek(stream)
    if b"\x00" in head:
        yield DoneTask(_binary_record(name, head))
        return
    if mode == "lines":
        yield from _line_batches(name, stream, 1, [], size)
        return
    blank: list[bytes] = []
    line = stream.readline()
    while line and line.isspace():
        blank.append(line)
        line = stream.readline()
    if not line:
        return
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        yield DocumentTask(name, b"".join(blank) + line + stream.read())
        return
    yield from _line_batches(name, stream, len(blank) + 1, [line], size)


def tasks(source: Source | Record, stdin: IO[bytes], batch_bytes: int | None = None) -> Iterator[Task]:
    """The units of work of one input, read as they are needed; an unreadable input gives its record.

    JSON lines come in batches of about ``batch_bytes`` (``BATCH_BYTES`` by default)."""
    size = BATCH_BYTES if batch_bytes is None else batch_bytes
    if isinstance(source, Record):
        yield DoneTask(source)
        return
    if source.path == STDIN:
        try:
            yield from _stream_tasks(source.name, stdin, source.mode, size)
        except OSError as error:
            yield DoneTask(_io_record(source.name, error))
        return
    try:
        with open_input(source.path) as stream:
            yield from _stream_tasks(source.name, stream, source.mode, size)
    except OSError as error:
        yield DoneTask(_io_record(source.name, error))


def check(
    sources: Iterable[Source | Record],
    options: Options,
    *,
    stdin: IO[bytes],
    jobs: int = 1,
) -> Iterator[Batch]:
    """The batches of every input, in input order; with ``jobs > 1`` checked by that many processes."""
    size = LOCAL_BATCH_BYTES if jobs <= 1 else BATCH_BYTES
    if jobs <= 1:
        for source in sources:
            for task in tasks(source, stdin, size):
                yield run_task(task, options)
        return
    import multiprocessing  # only for --jobs: a single process never pays for importing it
    import threading

    # Forked workers start at once with the validator compiled here; fork is safe only while this
    # process has no other thread (one could hold a lock the child would wait on forever).
    forking = threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
    if forking:
        engine("fast")
    context = multiprocessing.get_context("fork" if forking else "spawn")
    with context.Pool(jobs) as pool:
        # A byte range comes with whether it is its file's first: its lines are numbered from there.
        window: deque[_Result | tuple[_PendingRange, bool]] = deque()
        offset = 0

        def ready() -> Batch:
            nonlocal offset
            pending = window.popleft()
            if not isinstance(pending, tuple):
                return pending.get()
            result = pending[0].get()
            offset = 0 if pending[1] else offset
            batch = renumber(result.parts[0], offset)
            offset += result.lines
            return batch

        for source in sources:
            for work in _ranges(source, stdin, size):
                if isinstance(work, LineRange):
                    window.append((pool.apply_async(check_range, (work, options)), work.start == 0))
                elif isinstance(work, DoneTask):
                    window.append(_Ready(run_task(work, options)))
                else:
                    window.append(pool.apply_async(run_task, (work, options)))
                while len(window) > 2 * jobs:
                    yield ready()
        while window:
            yield ready()
