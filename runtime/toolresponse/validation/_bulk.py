"""Validate many responses from files, directories and standard input, streaming, in batches.

What is read, and how:

- a ``.json`` file holds one response (a JSON document), or several objects or arrays one
  after another (pretty-printed documents appended to a log): each is a response, at its
  own lines and columns, read under the same I-JSON rules (``document_spans``);
- a ``.jsonl`` or ``.ndjson`` file holds one response per line; blank lines (nothing
  but JSON white space: space, tab, CR, LF) are skipped, and a line holding a vertical
  tab or a form feed is not blank (neither is JSON white space); one whose first line
  that is not blank is ``{`` or ``[`` alone holds pretty-printed documents, not JSON
  lines: it is read as a ``.json`` file is (``pretty_printed``);
- a directory is walked in name order for those three extensions, depth first;
  names beginning with ``.`` are skipped and symbolic links to directories are not followed;
  a symbolic link with one of those extensions whose target is missing (dangling) or
  is a loop is an I/O error, and so is a directory holding no file to read;
- ``-`` is standard input, and so is any other file: if its first non-blank line
  is a whole JSON value it is JSON lines, otherwise the whole input is one document;
- a FIFO (named pipe) is read when a process has it open for writing as the run
  opens it; one that no process writes to is an I/O error at once, never a wait
  (pipe into ``-`` instead);
- a file with a NUL byte in its first 8 KiB is binary (git's rule): one invalid
  response (keyword ``binary``), whatever its extension.

Memory stays bounded whatever the input: a document (a ``.json`` file, or input
that is not JSON lines) is read whole only up to ``MAX_DOCUMENT_BYTES`` (64 MiB),
and a line of JSON lines only up to ``MAX_LINE_BYTES`` (64 MiB); past the limit
the input, or that line, is an I/O error naming the limit, and the rest of a
JSON-lines input is still checked.

A file that cannot be read (missing, a directory where a file was listed, no
permission, gone between listing and reading) is an I/O error ``Record``: it is
reported and the run goes on.

At most ``MAX_VIOLATIONS`` (100) violations of one response are kept in its
``Record`` (most relevant first); ``Record.more`` counts the others, which a
report states as "... and N more".

JSON lines are read in batches of about ``BATCH_BYTES``; each batch yields the
number of valid lines and a record for each invalid one (and, when asked, for
each valid one too), so memory stays flat however long the input. With
``--jobs N`` this process and ``N - 1`` worker processes check: a JSON-lines file
of known size is cut into byte ranges of about ``BATCH_BYTES`` that whoever checks
one reads itself (``_ranges``), other inputs go in batches; a unit goes to the
workers while fewer than ``IN_FLIGHT_PER_WORKER`` each wait, and is otherwise
checked here; results come back in input order, each range's lines renumbered
after the ranges before. No unit holds more than ``UNIT_RECORDS`` records: a
range stops there and its rest is the next unit, a batch has no more lines. A
worker that dies loses nothing: its work, and all that follows, is checked here.

A URL (``scheme://...``) names one stored object, read through fsspec, and so
is a ``.gz`` or ``.zst`` file (read as what its name says without that extension).

The fast path is one call per batch of lines (``native.triage``, in C): per line
orjson, the noncharacter and duplicate-name scans, and jsonschema-rs ``is_valid``
(or a dialect's verdict), without a turn of the interpreter; only the lines it sets
aside, invalid or flagged, come back to Python to be explained.
"""

from __future__ import annotations

import errno
import gc
import os
import re
import stat
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import cache, partial
from typing import IO, Any, Final, Literal, NamedTuple

import orjson

from .._suggest import printable
from .._violation import SchemaViolation, best_match
from ._engine import engine
from ._ijson import (
    BINARY_SNIFF_BYTES,
    MAX_NESTING,
    IJsonError,
    IJsonRule,
    duplicate_error,
    noncharacter_error,
    parse_error,
    parse_ijson,
)
from ._ranges import (
    LineRange,
    RangeResult,
    is_url,
    open_input,
    read_range,
    split_ranges,
    splittable,
    without_compression,
)
from ._validate import ExplanationCache, validate_json
from .native import PASSED, SUSPECT, UNREADABLE, triage

__all__ = [
    "BATCH_BYTES",
    "DOCUMENT_EXTENSIONS",
    "LINES_EXTENSIONS",
    "LOCAL_BATCH_BYTES",
    "MAX_DOCUMENT_BYTES",
    "MAX_LINE_BYTES",
    "MAX_VIOLATIONS",
    "RESPONSE_JUDGE",
    "Batch",
    "Decoded",
    "InputReader",
    "Judge",
    "Options",
    "Record",
    "ResponseJudge",
    "Source",
    "check",
    "check_document",
    "check_lines",
    "check_range",
    "decode_lines",
    "decode_task",
    "decoded_records",
    "expand",
    "merged",
    "renumber",
    "run_task",
    "shown_path",
    "tasks",
    "unsplittable",
]

BATCH_BYTES = 4 << 20
"""About how many bytes of JSON lines make one unit of work with ``--jobs`` (a range of a file, a
batch of other input): enough that handing units out costs little against checking one (about
15 ms; 1 MiB units made two processes 3% to 5% slower on the benchmark corpus), few enough that
the last ones keep both busy. A range is read in ``LOCAL_BATCH_BYTES`` pieces: memory does not
grow with it."""
LOCAL_BATCH_BYTES = 1 << 16
"""About how many bytes of JSON lines make one batch checked in this process: small enough
for the lines to stay in the processor's cache between reading and checking."""
MAX_DOCUMENT_BYTES = 64 << 20
"""The largest JSON document read (a ``.json`` file, or input that is not JSON lines): a larger
one is an I/O error naming this limit, and no more of it is held in memory."""
MAX_LINE_BYTES = 64 << 20
"""The longest line of JSON lines read: a longer one is an I/O error naming this limit (the line
is skipped without being held in memory, and the lines after it are checked)."""
MAX_VIOLATIONS = 100
"""The most violations of one response a ``Record`` keeps (the most relevant); ``Record.more``
counts the rest."""
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
    more: int = 0
    """How many violations were found beyond the ``MAX_VIOLATIONS`` in ``errors``."""

    @classmethod
    def invalid(
        cls, source: str, line: int | None, violations: tuple[SchemaViolation, ...], column: int | None = None
    ) -> Record:
        """The record of an invalid response, keeping at most ``MAX_VIOLATIONS`` of its violations."""
        if len(violations) <= MAX_VIOLATIONS:
            return cls(source, line, column, violations)
        return cls(source, line, column, violations[:MAX_VIOLATIONS], more=len(violations) - MAX_VIOLATIONS)

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


class Judge:
    """What every record must be, and why one is not: by default a ToolResponse v1
    (``RESPONSE_JUDGE``); ``toolresponse.interop`` judges the records of other dialects.

    A judge travels with the ``Options`` to worker processes and Dask workers: it is pickled,
    so it holds a name, not compiled validators, and ``verdict`` compiles on first use."""

    def verdict(self) -> Callable[[Any], bool]:
        """The verdict on one decoded record, as cheap as it can be: it is called once per line."""
        raise NotImplementedError

    def explain(self, value: Any, *, first: bool) -> tuple[SchemaViolation, ...]:
        """Every violation of a record the verdict refused, most relevant first (only the most
        relevant with ``first``)."""
        raise NotImplementedError

    def explainer(self, *, first: bool) -> Callable[[Any], tuple[SchemaViolation, ...]]:
        """``explain`` with ``first`` given, as cheap as it can be: it is called once per invalid line."""
        return partial(self.explain, first=first)

    def explain_document(self, data: bytes) -> tuple[SchemaViolation, ...]:
        """Every violation of one JSON document, I-JSON rules first (empty: it is valid)."""
        try:
            value = parse_ijson(data)
        except IJsonError as error:
            return (_ijson_violation(error),)
        return () if self.verdict()(value) else self.explain(value, first=False)


class ResponseJudge(Judge):
    """Records are ToolResponses v1: jsonschema-rs decides, the explanations of ``validate``
    (cached by what a response gets wrong) say why not."""

    def verdict(self) -> Callable[[Any], bool]:
        function: Callable[[Any], bool] = engine("fast").is_valid
        return function

    def explain(self, value: Any, *, first: bool) -> tuple[SchemaViolation, ...]:
        return _explanations().explain(value, first=first)

    def explainer(self, *, first: bool) -> Callable[[Any], tuple[SchemaViolation, ...]]:
        return partial(_explanations().explain, first=first)

    def explain_document(self, data: bytes) -> tuple[SchemaViolation, ...]:
        return validate_json(data).errors  # each violation located in the text

    def __repr__(self) -> str:
        return "RESPONSE_JUDGE"


RESPONSE_JUDGE: Final = ResponseJudge()
"""The judge of ToolResponse v1 records: what ``Options`` uses unless told otherwise."""


class Options(NamedTuple):
    """How responses are checked and reported."""

    first: bool = False
    """Keep only the most relevant violation of each response."""
    keep_valid: bool = False
    """Also make a record for each valid response."""
    explain: bool = True
    """Say what is wrong with each invalid response; without, only count them."""
    judge: Judge = RESPONSE_JUDGE
    """What each record must be: a ToolResponse unless told otherwise."""


class Source(NamedTuple):
    """One input to read."""

    path: str
    """What to open (``-`` for standard input)."""
    name: str
    """How to show it."""
    mode: Mode
    size: int | None
    """Its size when listed, if known."""


_UNDECODED = re.compile("([\udc80-\udcff]+)")


def shown_path(path: str) -> str:
    """A path as a report line can show it: undecodable bytes as ``\\xNN``, and control and
    bidi characters escaped (``printable``)."""
    parts = _UNDECODED.split(path)
    # split() puts the runs of undecodable bytes (as surrogateescape decodes them) at odd indexes.
    return "".join(
        "".join(f"\\x{ord(char) - 0xDC00:02x}" for char in part) if index % 2 else printable(part)
        for index, part in enumerate(parts)
    )


_ERRNO_OF = {FileNotFoundError: errno.ENOENT, PermissionError: errno.EACCES, IsADirectoryError: errno.EISDIR}


def _reason(error: OSError) -> str:
    """Why ``error`` happened, as a report line says it: the system's words for a missing file or a
    refusal even where a storage library raised one naming only the path (fsspec does)."""
    if error.strerror:
        return error.strerror
    number = _ERRNO_OF.get(type(error))
    return os.strerror(number) if number is not None else str(error) or type(error).__name__


def _io_record(name: str, error: OSError) -> Record:
    return Record(shown_path(name), None, None, (), io_error=_reason(error))


def _mode_for(path: str) -> Mode:
    lowered = without_compression(path.lower())
    if lowered.endswith(DOCUMENT_EXTENSIONS):
        return "document"
    if lowered.endswith(LINES_EXTENSIONS):
        return "lines"
    return "sniff"


def _link_record(entry: os.DirEntry[str]) -> Record | None:
    """The I/O error of a symbolic link whose target cannot be read (missing, a loop), or None."""
    try:
        os.stat(entry.path)
    except OSError as error:
        if error.errno == errno.ENOENT:
            reason = f"a dangling symbolic link (its target {os.readlink(entry.path)!r} does not exist)"
            return Record(shown_path(entry.path), None, None, (), io_error=printable(reason))
        return _io_record(entry.path, error)
    return None


def _walk(directory: str) -> Iterator[Source | Record]:
    """The response files under ``directory``, in name order, depth first, without recursion;
    an I/O error for each link that leads nowhere, and for a directory with nothing to read."""
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
    found = 0
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
            elif without_compression(entry.name.lower()).endswith(extensions):
                if entry.is_file():
                    yield Source(
                        entry.path, shown_path(entry.path), _mode_for(entry.name), entry.stat().st_size
                    )
                    found += 1
                elif entry.is_symlink():
                    broken = _link_record(entry)
                    if broken is not None:
                        found += 1
                        yield broken
        except OSError as error:
            found += 1
            yield _io_record(entry.path, error)
    if not found:
        *others, last = DOCUMENT_EXTENSIONS + LINES_EXTENSIONS
        reason = f"nothing to check: no {', '.join(others)} or {last} file under it"
        yield Record(shown_path(directory), None, None, (), io_error=reason)


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


def _located(name: str, number: int, error: IJsonError) -> Record:
    failure = _ijson_violation(error, number)
    return Record(name, number, failure.column, (failure,))


def _refusal(name: str, number: int, line: bytes) -> Record | None:
    """The record of a line orjson accepted that I-JSON refuses (a noncharacter, a repeated member
    name: the native scans flagged it), or None if it holds neither."""
    found = noncharacter_error(line) or duplicate_error(line)
    return None if found is None else _located(name, number, found)


def _is_blank(line: bytes) -> bool:
    """Nothing but JSON white space (space, tab, CR, LF): not ``bytes.isspace``, which takes a
    vertical tab or a form feed for space as well."""
    return not line.strip(b" \t\r\n")


class Decoded(NamedTuple):
    """Records read together from one input: those decoded, and those that could not be."""

    source: str
    lines: list[int | None]
    """The line of each decoded record (None: a document that is the whole input; one of several
    documents in one input has the line it starts on)."""
    values: list[Any]
    problems: list[Record]
    """Records that are not I-JSON and inputs that could not be read, in input order."""
    size: int
    """Bytes of input consumed."""


def decode_lines(name: str, lines: list[bytes], first_line: int) -> Decoded:
    """JSON lines ``lines`` decoded, the first being line ``first_line`` of ``name``: each value
    with its line, and a located record for each line that is not I-JSON (blank lines skipped)."""
    numbers: list[int | None] = []
    values: list[Any] = []
    problems: list[Record] = []
    _, entries = triage(lines, orjson.loads, orjson.JSONDecodeError, None, MAX_NESTING, True)
    for number, value, _ in _second_look(name, lines, first_line, entries, problems.append):
        numbers.append(number)
        values.append(value)
    return Decoded(name, numbers, values, problems, sum(map(len, lines)) + len(lines))


def _second_look(
    name: str,
    lines: list[bytes],
    first_line: int,
    entries: list[tuple[int, int, Any]],
    refused: Callable[[Record], None],
) -> Iterator[tuple[int, Any, bool | None]]:
    """The lines ``triage`` set aside, as (line number, value, verdict) in order: the verdict is
    None for a line a scan flagged that the strict I-JSON reader then cleared (nobody judged it
    yet). The located record of a line that is not I-JSON goes to ``refused`` instead, before the
    next line comes."""
    for index, kind, found in entries:
        number = first_line + index
        if kind == UNREADABLE:
            refused(_located(name, number, _line_error(lines[index], found)))
        elif kind != SUSPECT:
            yield number, found, kind == PASSED
        else:
            refusal = _refusal(name, number, lines[index])
            if refusal is None:
                yield number, found, None
            else:
                refused(refusal)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Decoded JSON holds no reference cycles, and reference counting frees it: while one batch
    is checked the cyclic garbage collector, which would otherwise walk the batch's values over
    and over as they are made, is paused (and left as it was found)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# The per-line fast path: one orjson.loads and one verdict (jsonschema-rs is_valid for a
# ToolResponse); nothing else happens to a valid line. The functions are bound to locals and
# the loops are written out: a call per line is measurable.


def check_lines(name: str, lines: list[bytes], first_line: int, options: Options) -> Batch:
    """The verdicts on JSON lines ``lines``, the first of which is line ``first_line`` of ``name``."""
    with _collector_paused():
        return _check_lines(name, lines, first_line, options)


def _check_lines(name: str, lines: list[bytes], first_line: int, options: Options) -> Batch:
    judge = options.judge
    is_valid = judge.verdict()
    keep_valid = options.keep_valid and options.explain
    valid, entries = triage(lines, orjson.loads, orjson.JSONDecodeError, is_valid, MAX_NESTING, keep_valid)
    size = sum(map(len, lines)) + len(lines)
    if not options.explain:
        # Verdicts only (``--quiet``): a line a scan flagged counts as invalid unread.
        return Batch(valid, len(entries), [], size)
    explain = judge.explainer(first=options.first)
    records: list[Record] = []
    append = records.append
    # A line that is not I-JSON is appended to the records as it is met: they stay in line order.
    for number, value, accepted in _second_look(name, lines, first_line, entries, append):
        if accepted is None:
            accepted = is_valid(value)
            valid += accepted
        if accepted:
            if keep_valid:
                append(Record(name, number, None, ()))
            continue
        append(Record.invalid(name, number, explain(value)))
    invalid = len(records) - valid if keep_valid else len(records)
    return Batch(valid, invalid, records, size)


def check_document(name: str, data: bytes, options: Options) -> Batch:
    """The verdict on one JSON document: I-JSON rules, then the judge (by default the schema, each
    violation located); with ``options.explain`` off, the verdict alone: nothing is explained. A
    text of several documents one after another (``document_spans``) gets a verdict on each."""
    with _collector_paused():
        return _check_document(name, data, options)


def _check_document(name: str, data: bytes, options: Options) -> Batch:
    batch = _check_one(name, data, options)
    if batch.invalid:
        spans = document_spans(data)
        if spans is not None:
            return _check_several(name, data, spans, options)
    return batch


def _check_several(name: str, data: bytes, spans: list[tuple[int, int]], options: Options) -> Batch:
    """The verdicts on the documents of ``data`` at ``spans``, each located in the whole text."""
    valid = invalid = 0
    records: list[Record] = []
    for start, end, line, column in _located_spans(data, spans):
        batch = _check_one(name, data[start:end], options)
        valid += batch.valid
        invalid += batch.invalid
        records.extend(_moved(record, line, column) for record in batch.records)
    return Batch(valid, invalid, records, len(data))


def _check_one(name: str, data: bytes, options: Options) -> Batch:
    if not options.explain:
        try:
            good = options.judge.verdict()(parse_ijson(data))
        except IJsonError:
            good = False
        return Batch(int(good), int(not good), [], len(data))
    errors = options.judge.explain_document(data)
    if not errors:
        records = [Record(name, None, None, ())] if options.keep_valid else []
        return Batch(1, 0, records, len(data))
    best = best_match(errors)
    assert best is not None  # an invalid response has a violation
    if options.first:
        return Batch(0, 1, [Record(name, best.line, best.column, (best,))], len(data))
    kept = Record.invalid(name, best.line, errors)
    return Batch(0, 1, [kept._replace(column=best.column)], len(data))


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


def check_range(task: LineRange, options: Options, *, max_records: int | None = None) -> RangeResult[Batch]:
    """Check the lines of one byte range, read where this runs; lines numbered from 1 in the range.

    ``RangeResult.parts`` is one ``Batch``; ``renumber`` it by the lines of the ranges before.
    With ``max_records`` (at least 1) it holds at most that many records: it stops at the line
    where they would be more, and ``RangeResult.rest`` is the range of the lines after."""
    room = sys.maxsize if max_records is None else max_records
    if room < 1:
        raise ValueError(f"max_records must be at least 1, not {max_records}")
    parts: list[Batch] = []
    number = 1
    try:
        with open_input(task.path) as stream:
            for lines in read_range(stream, task.start, task.end, LOCAL_BATCH_BYTES):
                while lines:
                    # A line gives one record at most: no more lines are checked than there is room for.
                    piece, lines = (lines, []) if len(lines) <= room else (lines[:room], lines[room:])
                    batch = check_lines(task.name, piece, number, options)
                    parts.append(batch)
                    number += len(piece)
                    room -= len(batch.records)
                    if room <= 0:
                        rest = task._replace(start=stream.tell() - sum(map(len, lines)))
                        return RangeResult([merged(parts)], number - 1, rest)
    except OSError as error:
        return RangeResult([Batch(0, 0, [_io_record(task.name, error)], 0)], 0)
    return RangeResult([merged(parts)], number - 1)


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


class InputReader:
    """One input's responses checked a bounded number at a time, in order, as ``check`` reads them:
    a reader can stop after any line and go on later (``read`` again), or be started again at
    ``from_line`` in another process, which reads and passes over the lines before it unchecked
    (no parse). ``close`` (or the end of the input) closes the input."""

    def __init__(
        self, source: Source | Record, options: Options, *, stdin: IO[bytes], from_line: int = 1
    ) -> None:
        self._tasks = tasks(source, stdin, LOCAL_BATCH_BYTES)
        self._options = options
        self._from = from_line
        self._held: Task | None = None
        self.next_line: int | None = from_line
        """The line the next ``read`` starts at; None once the input is read to its end."""

    def read(self, max_records: int, max_bytes: int | None = None) -> Batch:
        """The next lines' batch, holding at most ``max_records`` records (at least 1), besides the
        record of an input that could not be read; with ``max_bytes``, it stops after the batch of
        about ``LOCAL_BATCH_BYTES`` that reaches that many bytes of input too."""
        if max_records < 1:
            raise ValueError(f"max_records must be at least 1, not {max_records}")
        parts: list[Batch] = []
        room = max_records
        size = 0
        while room > 0 and (max_bytes is None or size < max_bytes) and (task := self._next()) is not None:
            if isinstance(task, LinesTask) and len(task.lines) > room:
                # A line gives one record at most: the lines past the room wait for the next read.
                self._held = task._replace(first_line=task.first_line + room, lines=task.lines[room:])
                task = task._replace(lines=task.lines[:room])
            batch = run_task(task, self._options)
            parts.append(batch)
            room -= sum(record.io_error is None for record in batch.records)
            size += batch.size
            self.next_line = _line_after(task)
        if self.next_line is not None and self._held is None:
            self._held = self._next()  # the end is known now, not by a read that finds nothing
            if self._held is None:
                self.next_line = None
        return merged(parts) if parts else Batch(0, 0, [], 0)

    def close(self) -> None:
        self._tasks.close()

    def _next(self) -> Task | None:
        if self._held is not None:
            task, self._held = self._held, None
            return task
        for task in self._tasks:
            if self._from > 1:
                if isinstance(task, LinesTask):
                    if task.first_line + len(task.lines) <= self._from:
                        continue
                    if task.first_line < self._from:
                        task = task._replace(
                            first_line=self._from, lines=task.lines[self._from - task.first_line :]
                        )
                elif isinstance(task, DocumentTask):
                    continue  # one response, read before
                elif task.record.line is not None and task.record.line < self._from:
                    continue  # a line too long to read, before
                self._from = 1  # passed: the tasks after this one come after it
            return task
        self.next_line = None
        return None


def _line_after(task: Task) -> int | None:
    """The line after a unit of work, or None when the input ends with it (a document, an input
    that could not be read)."""
    if isinstance(task, LinesTask):
        return task.first_line + len(task.lines)
    if isinstance(task, DoneTask) and task.record.line is not None:
        return task.record.line + 1
    return None


def renumber(batch: Batch, offset: int) -> Batch:
    """``batch`` with its line numbers moved by ``offset``: the lines of the ranges before it."""
    if not offset:
        return batch
    moved: list[Record] = []
    append = moved.append
    make = tuple.__new__  # a Record, without the keyword handling of _replace (this runs per record)
    for source, line, column, errors, io_error, more in batch.records:
        for violation in errors:
            if violation.line is not None:  # a parse or duplicate-name error: located in the text
                errors = tuple(
                    item if item.line is None else replace(item, line=item.line + offset) for item in errors
                )
                break
        append(
            make(Record, (source, None if line is None else line + offset, column, errors, io_error, more))
        )
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
        refused = unsplittable(source)
        if isinstance(refused, Record):
            yield DoneTask(refused)
        elif refused is not None:
            yield from tasks(refused, stdin, size)
        else:
            yield from split_ranges(source.path, source.name, source.size, size)
        return
    for task in tasks(source, stdin, size):
        if isinstance(task, LinesTask) and len(task.lines) > UNIT_RECORDS:
            # A line gives one record at most: a unit of no more lines holds no more records.
            for start in range(0, len(task.lines), UNIT_RECORDS):
                yield task._replace(
                    first_line=task.first_line + start, lines=task.lines[start : start + UNIT_RECORDS]
                )
        else:
            yield task


def unsplittable(source: Source) -> Record | Source | None:
    """Why a JSON-lines file cannot be cut into byte ranges for other processes to check: a
    ``Record``, the verdict on the whole file, when it cannot be opened or its first bytes hold a
    NUL (binary data, as one process would report it whole); the ``Source`` to read whole instead
    when it holds pretty-printed documents (``pretty_printed``: a range would begin inside one);
    None when it can be cut. ``--jobs`` and a Dask cluster both ask this first, so that they
    report what one process does."""
    try:
        with open_input(source.path) as stream:
            head = stream.read(BINARY_SNIFF_BYTES)
    except OSError as error:
        return _io_record(source.name, error)
    if b"\x00" in head:
        return _binary_record(source.name, head)
    return source._replace(mode="document") if pretty_printed(head) else None


def _limit_phrase(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 and limit % (1 << 20) == 0 else f"{limit:,} bytes"


def _too_long(name: str, number: int, size: int) -> DoneTask:
    reason = (
        f"line {number} is longer than {_limit_phrase(MAX_LINE_BYTES)} (MAX_LINE_BYTES, the longest line"
        f" read); skipped after {size:,} bytes"
    )
    return DoneTask(Record(name, number, None, (), io_error=reason))


def _split_long(name: str, number: int, lines: list[bytes]) -> Iterator[Task]:
    """``lines`` in batches, each line longer than ``MAX_LINE_BYTES`` an I/O error between them."""
    start = 0
    for index, line in enumerate(lines):
        if len(line) > MAX_LINE_BYTES:
            if index > start:
                yield LinesTask(name, number + start, lines[start:index])
            yield _too_long(name, number + index, len(line))
            start = index + 1
    if start < len(lines):
        yield LinesTask(name, number + start, lines[start:])


def _read_some(stream: IO[bytes], size: int) -> bytes:
    """Up to ``size`` bytes, as soon as some are there (a pipe's output is checked as it comes)."""
    read1 = getattr(stream, "read1", None)
    return read1(size) if read1 is not None else stream.read(size)


def _line_batches(name: str, stream: IO[bytes], first_line: int, head: bytes, size: int) -> Iterator[Task]:
    """The lines of ``stream`` (after ``head``, the start of its first line) in batches of about
    ``size`` bytes. No line is held beyond ``MAX_LINE_BYTES``: a longer one is reported and
    skipped, and the lines after it are read on."""
    number = first_line
    if head.endswith(b"\n"):
        yield LinesTask(name, number, [head])
        number += 1
        head = b""
    partial: list[bytes] = [head] if head else []
    partial_size = len(head)
    skipping = False
    while True:
        chunk = _read_some(stream, size)
        if not chunk:
            break
        # Lines without their line feed (orjson needs none; a blank line is then b"" or b"\r"):
        # bytes.split is the cheapest way to cut a chunk, cheaper than readlines.
        lines = chunk.split(b"\n")
        rest = lines.pop()
        if not lines:
            if skipping:
                partial_size += len(chunk)
                continue
            partial.append(chunk)
            partial_size += len(chunk)
            if partial_size > MAX_LINE_BYTES:
                partial.clear()
                skipping = True
            continue
        if skipping:
            yield _too_long(name, number, partial_size + len(lines[0]))
            number += 1
            del lines[0]
            skipping = False
        elif partial:
            partial.append(lines[0])
            if partial_size + len(lines[0]) > MAX_LINE_BYTES:
                yield _too_long(name, number, partial_size + len(lines[0]))
                number += 1
                del lines[0]
            else:
                lines[0] = b"".join(partial)
        partial = [rest] if rest else []
        partial_size = len(rest)
        if len(chunk) > MAX_LINE_BYTES:
            # Only a chunk longer than the limit can hold a whole line longer than it.
            for task in _split_long(name, number, lines):
                yield task
                number += len(task.lines) if isinstance(task, LinesTask) else 1
        elif lines:
            yield LinesTask(name, number, lines)
            number += len(lines)
    if skipping:
        yield _too_long(name, number, partial_size)
    elif partial:
        yield LinesTask(name, number, [b"".join(partial)])


def _peek(stream: IO[bytes]) -> bytes:
    peek = getattr(stream, "peek", None)
    head: bytes = peek(BINARY_SNIFF_BYTES)[:BINARY_SNIFF_BYTES] if peek is not None else b""
    return head


def _document(name: str, stream: IO[bytes], start: bytes) -> Task:
    """One document: ``start`` and the rest of ``stream``, or an I/O error past ``MAX_DOCUMENT_BYTES``."""
    rest = stream.read(MAX_DOCUMENT_BYTES + 1 - len(start)) if len(start) <= MAX_DOCUMENT_BYTES else b""
    if len(start) + len(rest) > MAX_DOCUMENT_BYTES:
        reason = (
            f"more than {_limit_phrase(MAX_DOCUMENT_BYTES)} in one JSON document (MAX_DOCUMENT_BYTES, the"
            " largest read whole); input of many responses goes one per line in JSON lines, which has no"
            " such limit"
        )
        return DoneTask(Record(name, None, None, (), io_error=reason))
    return DocumentTask(name, start + rest)


_PRETTY_START = re.compile(rb"\A[ \t\r\n]*[{\[][ \t\r]*\n")
_NOT_SPACE = re.compile(rb"[^ \t\r\n]")
# What decides where a document ends: its brackets, outside its strings (matched whole, so that
# nothing in a string is read as structure).
_STRUCTURE = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}]')
_OPENING = b"{["


def pretty_printed(head: bytes) -> bool:
    """Whether text beginning with ``head`` holds pretty-printed JSON, not JSON lines: its first line
    that is not blank is ``{`` or ``[`` alone (as ``json.dumps(..., indent=2)`` begins), which no
    line of JSON lines can be."""
    return _PRETTY_START.match(head) is not None


def _skip_space(data: bytes, position: int) -> int:
    found = _NOT_SPACE.search(data, position)
    return len(data) if found is None else found.start()


def _closing(data: bytes, start: int) -> int | None:
    """The end of the object or array that begins at ``start``, by its brackets; None when it does
    not end (the parser then says why)."""
    depth = 0
    for token in _STRUCTURE.finditer(data, start):
        first = data[token.start()]
        if first == 0x22:  # a string
            continue
        depth += 1 if first in _OPENING else -1
        if depth == 0:
            return token.end()
    return None


def document_spans(data: bytes) -> list[tuple[int, int]] | None:
    """Where each document starts and ends when ``data`` holds two or more objects or arrays one
    after another (separated by JSON white space or nothing), and whatever follows the last, as
    one more span that its parse then refuses; None for anything else (one document, valid or
    not, or text that is not JSON). It is asked of documents found invalid: one that parses
    whole is one document, and its text is not scanned."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    else:
        return None
    spans: list[tuple[int, int]] = []
    start = _skip_space(data, 0)
    while start < len(data) and data[start] in _OPENING:
        end = _closing(data, start)
        if end is None:
            break
        spans.append((start, end))
        start = _skip_space(data, end)
    if len(spans) < 2:
        return None
    if start < len(data):
        spans.append((start, len(data)))
    return spans


def _located_spans(data: bytes, spans: list[tuple[int, int]]) -> Iterator[tuple[int, int, int, int]]:
    """Each span with the 1-based line and column (in characters) where it starts in ``data``."""
    line, counted, line_start = 1, 0, 0
    for start, end in spans:
        line += data.count(b"\n", counted, start)
        newline = data.rfind(b"\n", counted, start)
        if newline >= 0:
            line_start = newline + 1
        counted = start
        yield start, end, line, len(data[line_start:start].decode("utf-8", "replace")) + 1


def _moved(record: Record, line: int, column: int) -> Record:
    """``record`` of a document that starts at ``line`` and ``column`` of a longer text, located in
    that text (a record without a line, as a dialect's, gets the document's first line)."""

    def place(at_line: int, at_column: int | None) -> tuple[int, int | None]:
        shifted = at_column + column - 1 if at_line == 1 and at_column is not None else at_column
        return at_line + line - 1, shifted

    def moved(violation: SchemaViolation) -> SchemaViolation:
        if violation.line is None:
            return violation
        at_line, at_column = place(violation.line, violation.column)
        return replace(violation, line=at_line, column=at_column)

    errors = tuple(map(moved, record.errors))
    if record.line is None:
        return record._replace(line=line, errors=errors)
    at_line, at_column = place(record.line, record.column)
    return record._replace(line=at_line, column=at_column, errors=errors)


def _stream_tasks(name: str, stream: IO[bytes], mode: Mode, size: int) -> Iterator[Task]:
    if mode == "document":
        yield _document(name, stream, b"")
        return
    head = _peek(stream)
    if b"\x00" in head:
        yield DoneTask(_binary_record(name, head))
        return
    if mode == "lines":
        if pretty_printed(head):
            yield _document(name, stream, b"")
        else:
            yield from _line_batches(name, stream, 1, b"", size)
        return
    # Sniffing: blank lines are only counted (an endless run of them holds no memory), and the
    # first other line is read up to the longest line there may be.
    blank = 0
    line = stream.readline(MAX_LINE_BYTES + 1)
    while line and line.endswith(b"\n") and _is_blank(line):
        blank += 1
        line = stream.readline(MAX_LINE_BYTES + 1)
    if not line or _is_blank(line):
        return
    if len(line) <= MAX_LINE_BYTES:
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
        else:
            yield from _line_batches(name, stream, blank + 1, line, size)
            return
    # Blank lines before a document change no column, only line numbers: each one is kept as "\n".
    yield _document(name, stream, b"\n" * blank + line if blank <= MAX_DOCUMENT_BYTES else line + b"\n")


def tasks(source: Source | Record, stdin: IO[bytes], batch_bytes: int | None = None) -> Generator[Task]:
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


def decode_task(task: Task) -> Decoded:
    """What one unit of work holds, decoded (``decode_lines`` for a batch of lines)."""
    if isinstance(task, LinesTask):
        return decode_lines(task.name, task.lines, task.first_line)
    if isinstance(task, DocumentTask):
        decoded = _decode_one(task.name, task.data)
        spans = document_spans(task.data) if decoded.problems else None
        if spans is None:
            return decoded
        several = Decoded(task.name, [], [], [], len(task.data))
        for start, end, line, column in _located_spans(task.data, spans):
            one = _decode_one(task.name, task.data[start:end])
            several.lines.extend(line for _ in one.values)
            several.values.extend(one.values)
            several.problems.extend(_moved(record, line, column) for record in one.problems)
        return several
    return Decoded(task.record.source, [], [], [task.record], 0)


def _decode_one(name: str, data: bytes) -> Decoded:
    try:
        value = parse_ijson(data)
    except IJsonError as error:
        failure = _ijson_violation(error)
        unread = Record(name, failure.line, failure.column, (failure,))
        return Decoded(name, [], [], [unread], len(data))
    return Decoded(name, [None], [value], [], len(data))


def decoded_records(sources: Iterable[Source | Record], *, stdin: IO[bytes]) -> Iterator[Decoded]:
    """The records of every input decoded, in input order, in batches, read as ``check`` reads
    them: for work on the records themselves (``toolresponse convert``)."""
    for source in sources:
        for task in tasks(source, stdin, LOCAL_BATCH_BYTES):
            yield decode_task(task)


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
    yield from _check_in_processes(sources, options, stdin, jobs, size)


IN_FLIGHT_PER_WORKER = 2
"""With ``--jobs``, how many units of work wait for each worker process (one checked, one next):
a worker never waits for this process to hand it the next."""
UNIT_RECORDS = 10_000
"""With ``--jobs``, the most records a unit of work holds (some 5 MB): a batch of lines has no
more lines, and a byte range stops there and goes on in a unit of its own, so that no process
holds more however tiny and invalid the lines (a 4 MiB range can hold two million)."""


def _check_in_processes(
    sources: Iterable[Source | Record], options: Options, stdin: IO[bytes], jobs: int, size: int
) -> Iterator[Batch]:
    """``check`` with ``jobs`` processes: this one and ``jobs - 1`` workers. Each unit of work goes
    to the workers while fewer than ``IN_FLIGHT_PER_WORKER`` each are waiting, and is otherwise
    checked here (the caller runs it), so that every process checks and none only waits; the
    results are put back in input order. A worker that dies (killed, out of memory) loses
    nothing: what it held, and all the work after it, is checked here."""
    import multiprocessing  # only for --jobs: a single process never pays for importing it
    import threading
    from concurrent.futures import Future, ProcessPoolExecutor
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
        # Each unit in input order: its work, how it is checked, where its result will be, and
        # what it is: a byte range and whether it is its file's first (its lines are numbered
        # from there), or None for a batch numbered already.
        window: deque[tuple[Any, Callable[[Any, Options], Any], Future[Any], bool | None]] = deque()
        offset = 0

        def ready() -> Batch:
            nonlocal offset, broken
            work, function, pending, first = window.popleft()
            try:
                result = pending.result()
            except BrokenProcessPool:
                broken = True
                result = function(work, options)
            if first is None:
                batch: Batch = result
                return batch
            offset = 0 if first else offset
            batch = renumber(result.parts[0], offset)
            offset += result.lines
            if result.rest is not None:  # the range stopped at UNIT_RECORDS: the rest is next
                window.appendleft((result.rest, function, dispatch(result.rest, function), False))
            return batch

        def here(work: Any, function: Callable[[Any, Options], Any]) -> Future[Any]:
            done: Future[Any] = Future()
            done.set_result(function(work, options))
            return done

        def pool_is_full() -> bool:
            waiting = sum(1 for *_, pending, _ in window if not pending.done())
            return broken or waiting >= IN_FLIGHT_PER_WORKER * workers

        def dispatch(work: Any, function: Callable[[Any, Options], Any]) -> Future[Any]:
            nonlocal broken
            if isinstance(work, DoneTask) or pool_is_full():  # a verdict reached already, or no room
                return here(work, function)
            try:
                return pool.submit(function, work, options)
            except BrokenProcessPool:
                broken = True
                return here(work, function)

        check_bounded_range = partial(check_range, max_records=UNIT_RECORDS)
        for source in sources:
            for work in _ranges(source, stdin, size):
                function: Callable[[Any, Options], Any] = run_task
                first: bool | None = None
                if isinstance(work, LineRange):
                    function, first = check_bounded_range, work.start == 0
                window.append((work, function, dispatch(work, function), first))
                while window and (window[0][2].done() or len(window) > 2 * IN_FLIGHT_PER_WORKER * jobs):
                    yield ready()
        while window:
            yield ready()


@contextmanager
def _stdin_detached() -> Iterator[None]:
    """No ``sys.stdin`` while worker processes are forked: a worker reads none (this process reads
    standard input and sends the work), and a forked worker closes the one it inherits, which
    fails, and kills it, when ``sys.stdin`` is a stand-in without ``close``."""
    import sys

    saved = sys.stdin
    sys.stdin = None
    try:
        yield
    finally:
        sys.stdin = saved
