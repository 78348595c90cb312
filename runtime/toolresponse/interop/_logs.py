"""Logs in any dialect: reading their records, checking them in two layers, and the report.

Inputs are those of ``toolresponse validate`` (``validation.expand``): a
``.json`` file is one record, a ``.jsonl``/``.ndjson`` file one per line (blank
lines skipped), ``-`` and other files are sniffed, a directory is walked; a
file with a NUL byte in its first 8 KiB is binary. Each record is read as
I-JSON (a syntax error, a duplicate name, NaN: its line, column and rule).

``check_dialect`` judges each record in two layers, and every violation's
message says which layer it comes from:

1. ``<dialect> record: ...``: the record against the dialect's own shape (the
   pointer is into the record, the keyword the shape's rule that failed);
2. ``mapped ToolResponse: ...``: the ToolResponse the record maps to, against
   the v1 schema (the pointer is into that response: ``/error_info/code``).

It gives the ``Batch``\\ es of the bulk API, so ``validate_dialect`` writes them
with the validator's own reports (text, JSON, JSON lines, exit statuses).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import IO, Any, NamedTuple, TextIO

import orjson

from .._errors import DialectError, IJsonError, ResponseValidationError
from .._violation import SchemaViolation, best_match
from ..validation import (
    MAX_NESTING,
    Batch,
    Format,
    Options,
    Record,
    Source,
    expand,
    is_valid,
    parse_ijson,
    report,
    validate,
)
from ..validation.native import lines_with_duplicates, lines_with_noncharacters
from ._dialects import Dialect, dialect

__all__ = ["Chunk", "Item", "check_dialect", "read_records", "record_violations", "validate_dialect"]

BATCH_BYTES = 1 << 16
"""About how many bytes of JSON lines are read and checked at a time."""
_SNIFF_BYTES = 8192
_STDIN = "-"
NUL = b"\x00"


class Item(NamedTuple):
    """One record read from an input: its decoded value, or why it could not be read."""

    source: str
    line: int | None
    value: Any
    errors: tuple[SchemaViolation, ...] = ()
    """The I-JSON violations of a record that is not I-JSON (then ``value`` is None)."""
    io_error: str | None = None
    column: int | None = None

    @property
    def readable(self) -> bool:
        return not self.errors and self.io_error is None


def _ijson_item(source: str, line: int | None, error: IJsonError) -> Item:
    where = line if line is not None else error.line
    violation = SchemaViolation(
        pointer=error.pointer or "",
        keyword=str(error.rule),
        message=error.detail,
        line=where,
        column=error.column,
    )
    return Item(source, where, None, (violation,), column=error.column)


class Chunk(NamedTuple):
    """Records read together from one input: the decoded ones, and those that could not be read."""

    source: str
    lines: list[int | None]
    """The line of each decoded record (None: a whole document)."""
    values: list[Any]
    problems: list[Item]
    """Records that are not I-JSON, and inputs that could not be read."""
    size: int
    """Bytes of input consumed."""


def _decoded(source: str, line: int | None, text: bytes, size: int) -> Chunk:
    try:
        return Chunk(source, [line], [parse_ijson(text)], [], size)
    except IJsonError as error:
        return Chunk(source, [], [], [_ijson_item(source, line, error)], size)


def _lines(name: str, stream: IO[bytes], first: int, head: list[bytes]) -> Iterator[Chunk]:
    number = first
    lines = head + stream.readlines(BATCH_BYTES)
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    while lines:
        # Lines the fast decoder would let through wrongly (repeated names, noncharacters) go to the
        # strict I-JSON reader, which says why.
        flagged = {number + index for index in lines_with_duplicates(lines, MAX_NESTING)}
        flagged.update(number + index for index in lines_with_noncharacters(lines))
        numbers: list[int | None] = []
        values: list[Any] = []
        problems: list[Item] = []
        for line in lines:
            blank = not line.strip(b" \t\r\n")  # JSON white space only: a vertical tab is not blank
            if number in flagged or blank:
                if not blank:
                    problems.extend(_decoded(name, number, line.rstrip(b"\r\n"), 0).problems)
            else:
                try:
                    values.append(loads(line))
                    numbers.append(number)
                except decode_error:
                    chunk = _decoded(name, number, line.rstrip(b"\r\n"), 0)
                    problems.extend(chunk.problems)
                    values.extend(chunk.values)  # a big integer orjson refuses is I-JSON all the same
                    numbers.extend(chunk.lines)
            number += 1
        yield Chunk(name, numbers, values, problems, sum(map(len, lines)))
        lines = stream.readlines(BATCH_BYTES)


def _stream_records(name: str, stream: IO[bytes], mode: str) -> Iterator[Chunk]:
    if mode == "document":
        data = stream.read()
        yield _decoded(name, None, data, len(data))
        return
    peek = getattr(stream, "peek", None)
    head = peek(_SNIFF_BYTES)[:_SNIFF_BYTES] if peek is not None else b""
    if NUL in head:
        message = f"binary data (a NUL byte at byte {head.find(NUL)}), not JSON text"
        binary = Item(name, None, None, (SchemaViolation(pointer="", keyword="binary", message=message),))
        yield Chunk(name, [], [], [binary], 0)
        return
    if mode == "lines":
        yield from _lines(name, stream, 1, [])
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
        data = b"".join(blank) + line + stream.read()
        yield _decoded(name, None, data, len(data))
        return
    yield from _lines(name, stream, len(blank) + 1, [line])


def read_records(sources: Iterable[Source | Record], stdin: IO[bytes]) -> Iterator[Chunk]:
    """The records of every input in input order, in chunks."""
    for source in sources:
        if isinstance(source, Record):
            unread = Item(source.source, None, None, source.errors, source.io_error)
            yield Chunk(source.source, [], [], [unread], 0)
            continue
        try:
            if source.path == _STDIN:
                yield from _stream_records(source.name, stdin, source.mode)
                continue
            with open(source.path, "rb") as stream:
                yield from _stream_records(source.name, stream, source.mode)
        except OSError as error:
            reason = error.strerror or str(error) or type(error).__name__
            yield Chunk(source.name, [], [], [Item(source.name, None, None, (), reason)], 0)


def _layered(violations: Iterable[SchemaViolation], prefix: str) -> tuple[SchemaViolation, ...]:
    return tuple(dataclasses.replace(v, message=prefix + v.message) for v in violations)


def record_violations(chosen: Dialect, value: Any) -> tuple[SchemaViolation, ...]:
    """What is wrong with one decoded record of ``chosen``, layer by layer (empty: nothing)."""
    if chosen.shape_name is not None:
        shape = chosen.shape
        if not shape.is_valid(value):
            return shape.violations(value)
        try:
            wire = chosen.wire(value)
        except DialectError as error:  # a mapping that checks the record on its own (from_)
            return error.errors
        except ResponseValidationError as error:
            return _layered(error.errors, "mapped ToolResponse: ")
    else:
        wire = value
    if is_valid(wire):
        return ()
    return _layered(validate(wire).errors, "" if chosen.shape_name is None else "mapped ToolResponse: ")


def check_dialect(
    chosen: Dialect,
    sources: Sequence[Source | Record],
    options: Options,
    *,
    stdin: IO[bytes],
    jobs: int = 1,
) -> Iterator[Batch]:
    """The bulk API's batches for records of ``chosen`` (``jobs`` is not used: one process)."""
    del jobs
    # The fast path, written out: one shape verdict, one mapping, one ToolResponse verdict per
    # record; only a record found wrong goes on to be explained, layer by layer.
    if chosen.shape_name is None:
        shape_ok: Callable[[Any], bool] = _always
        mapped: Callable[[Any], Any] = _same
    else:
        shape_ok, mapped = chosen.shape.verdict(), chosen.wire
    keep_valid, explain, first = options.keep_valid, options.explain, options.first
    for chunk in read_records(sources, stdin):
        source = chunk.source
        records: list[Record] = []
        append = records.append
        valid = invalid = 0
        for line, value in zip(chunk.lines, chunk.values, strict=True):
            try:
                good = shape_ok(value) and is_valid(mapped(value))
            except ResponseValidationError:
                good = False
            if good:
                valid += 1
                if keep_valid:
                    append(Record(source, line, None, ()))
                continue
            invalid += 1
            if explain:
                append(Record.invalid(source, line, _shown(record_violations(chosen, value), first)))
        for item in chunk.problems:
            if item.io_error is not None:
                append(Record(item.source, None, None, (), io_error=item.io_error))
                continue
            invalid += 1
            if explain:
                append(Record.invalid(item.source, item.line, _shown(item.errors, first), item.column))
        if chunk.problems and chunk.values and len(records) > 1:
            records.sort(key=lambda record: record.line or 0)
        yield Batch(valid, invalid, records, chunk.size)


def _shown(errors: tuple[SchemaViolation, ...], first: bool) -> tuple[SchemaViolation, ...]:
    best = best_match(errors) if first else None
    return errors if best is None else (best,)


def _always(value: Any) -> bool:
    return True


def _same(value: Any) -> Any:
    return value


def validate_dialect(
    name: str,
    paths: Sequence[str],
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stdin: IO[bytes] | None = None,
    output_format: Format = "text",
    first: bool = False,
    quiet: bool = False,
) -> int:
    """``toolresponse validate --from NAME PATH...``: check logs of dialect ``name``, write the
    validator's report, return its exit status. ``ValueError`` for an unknown dialect."""
    chosen = dialect(name)
    return report(
        expand(paths),
        out=sys.stdout if out is None else out,
        err=sys.stderr if err is None else err,
        stdin=sys.stdin.buffer if stdin is None else stdin,
        output_format=output_format,
        first=first,
        quiet=quiet,
        checker=partial(check_dialect, chosen),
    )
