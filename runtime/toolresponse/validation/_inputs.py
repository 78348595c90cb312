"""What the bulk API reads: inputs listed (``expand``) and read into units of work (``tasks``).

A ``.json`` file is a document (or several one after another), a ``.jsonl``/``.ndjson`` file JSON
lines, among which a pretty-printed document is one unit; standard input and other files are JSON
lines when their first line that is not blank is a JSON value or opens a pretty-printed document.
A NUL byte in the first 8 KiB makes a file binary. Every failure to read (README: a FIFO without a
writer, a dangling link, a size limit, a damaged compressed file) is a ``Record``, never a wait.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Generator, Iterable, Iterator
from functools import lru_cache
from typing import IO, Literal, NamedTuple

import orjson

from .._errors import IJsonRule
from .._suggest import printable
from .._violation import SchemaViolation
from ._ijson import BINARY_SNIFF_BYTES, positions
from ._open import compression_of, is_url, open_input
from ._validate import MAX_VIOLATIONS, ValidationResult

LOCAL_BATCH_BYTES = 1 << 16
"""Bytes of JSON lines in one batch checked here: they stay in the processor's cache."""
MAX_DOCUMENT_BYTES = 64 << 20
MAX_LINE_BYTES = 64 << 20
DOCUMENT_EXTENSIONS = (".json",)
LINES_EXTENSIONS = (".jsonl", ".ndjson")
STDIN = "-"

Mode = Literal["document", "lines", "sniff"]


class Record(NamedTuple):
    """The verdict on one response (``errors`` empty: valid), or why an input could not be read
    (``io_error``); ``more`` counts the violations past the ``MAX_VIOLATIONS`` in ``errors``.
    ``source`` is the input's name as given (a report shows it with ``shown_path``)."""

    source: str
    line: int | None
    column: int | None
    errors: tuple[SchemaViolation, ...]
    io_error: str | None = None
    more: int = 0

    @classmethod
    def invalid(
        cls, source: str, line: int | None, found: ValidationResult, column: int | None = None
    ) -> Record:
        """The record of an invalid response, keeping at most ``MAX_VIOLATIONS`` of its violations."""
        more = max(len(found.errors) - MAX_VIOLATIONS, 0) + found.more
        return cls(source, line, column, found.errors[:MAX_VIOLATIONS], more=more)

    @property
    def valid(self) -> bool:
        return not self.errors and self.io_error is None


class Source(NamedTuple):
    """One input to read: ``path`` to open (``-``: standard input), named ``name`` in its records."""

    path: str
    name: str
    mode: Mode
    size: int | None


_UNDECODED = re.compile("([\udc80-\udcff]+)")


def _undecoded(run: str) -> str:
    return "".join(f"\\x{ord(char) - 0xDC00:02x}" for char in run)


@lru_cache(maxsize=1024)
def shown_path(path: str) -> str:
    """A path as a report line can show it: undecodable bytes as ``\\xNN``, and control and
    bidi characters escaped (``printable``)."""
    return "".join(  # split() puts the runs of undecodable bytes at odd indexes
        _undecoded(part) if index % 2 else printable(part)
        for index, part in enumerate(_UNDECODED.split(path))
    )


def carried_path(path: str) -> str:
    """A path (or a text naming one) as JSON can carry it: exactly, but for the bytes that are not
    UTF-8, which no JSON string holds, as ``\\xNN``."""
    return _UNDECODED.sub(lambda run: _undecoded(run.group()), path)


_ERRNO_OF = {FileNotFoundError: errno.ENOENT, PermissionError: errno.EACCES, IsADirectoryError: errno.EISDIR}


def io_record(name: str, error: OSError) -> Record:
    """The I/O error of input ``name``, in the system's words (fsspec's errors name only the path)."""
    number = _ERRNO_OF.get(type(error))
    reason = error.strerror or (os.strerror(number) if number else str(error) or type(error).__name__)
    return Record(name, None, None, (), io_error=reason)


def _without_compression(path: str) -> str:
    """``logs.jsonl.gz`` is read as ``logs.jsonl``."""
    return os.path.splitext(path)[0] if compression_of(path) else path


def _mode_for(path: str) -> Mode:
    lowered = _without_compression(path.lower())
    if lowered.endswith(DOCUMENT_EXTENSIONS):
        return "document"
    return "lines" if lowered.endswith(LINES_EXTENSIONS) else "sniff"


def splittable(path: str) -> bool:
    """Whether a file can be cut into byte ranges: not compressed, and not standard input."""
    return path != STDIN and compression_of(path) is None


def _link_record(entry: os.DirEntry[str]) -> Record | None:
    """The I/O error of a symbolic link whose target cannot be read (missing, a loop), or None."""
    try:
        os.stat(entry.path)
    except OSError as error:
        if error.errno == errno.ENOENT:
            reason = f"a dangling symbolic link (its target '{os.readlink(entry.path)}' does not exist)"
            return Record(entry.path, None, None, (), io_error=reason)
        return io_record(entry.path, error)
    return None


def _listing(path: str) -> Iterator[os.DirEntry[str]] | Record:
    try:
        with os.scandir(path) as entries:
            return iter(sorted(entries, key=lambda entry: entry.name))
    except OSError as error:
        return io_record(path, error)


def _walk(directory: str) -> Iterator[Source | Record]:
    """The response files under ``directory``, in name order, depth first, without recursion."""
    first = _listing(directory)
    if isinstance(first, Record):
        yield first
        return
    pending = [first]
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
                below = _listing(entry.path)
                if isinstance(below, Record):
                    yield below
                else:
                    pending.append(below)
            elif _without_compression(entry.name.lower()).endswith(DOCUMENT_EXTENSIONS + LINES_EXTENSIONS):
                if entry.is_file():
                    found += 1
                    yield Source(entry.path, entry.path, _mode_for(entry.name), entry.stat().st_size)
                elif entry.is_symlink() and (broken := _link_record(entry)) is not None:
                    found += 1
                    yield broken
                elif not entry.is_dir():  # a FIFO, a device (or a link to one): read as when named
                    found += 1
                    yield Source(entry.path, entry.path, _mode_for(entry.name), None)
        except OSError as error:
            found += 1
            yield io_record(entry.path, error)
    if not found:
        *others, last = DOCUMENT_EXTENSIONS + LINES_EXTENSIONS
        reason = f"nothing to check: no {', '.join(others)} or {last} file under it"
        yield Record(directory, None, None, (), io_error=reason)


def expand(paths: Iterable[str]) -> Iterator[Source | Record]:
    """Every input named by ``paths`` (files, directories, ``-``), or the I/O error that stops one."""
    for path in paths:
        if path == STDIN:
            yield Source(STDIN, "<stdin>", "sniff", None)
            continue
        if is_url(path):
            yield Source(path, path, _mode_for(path), None)
            continue
        try:
            status = os.stat(path)
        except OSError as error:
            yield io_record(path, error)
            continue
        if stat.S_ISDIR(status.st_mode):
            yield from _walk(path)
        else:
            size = status.st_size if stat.S_ISREG(status.st_mode) else None
            yield Source(path, path, _mode_for(path), size)


# Reading: an input as units of work, read as they are needed.


class LinesTask(NamedTuple):
    """A batch of JSON lines to check, the first being line ``first_line``."""

    name: str
    first_line: int
    lines: list[bytes]


class DocumentTask(NamedTuple):
    """One JSON document to check (or several, one after another): the whole input, or a
    pretty-printed one among JSON lines that begins at line ``first_line``."""

    name: str
    data: bytes
    first_line: int | None = None


class DoneTask(NamedTuple):
    """A verdict reached while reading (an I/O error, a binary file), standing for ``size`` bytes
    of input (a line too long to read)."""

    record: Record
    size: int = 0


Task = LinesTask | DocumentTask | DoneTask


def binary_record(name: str, head: bytes) -> Record:
    offset = head.find(b"\x00")
    violation = SchemaViolation(
        pointer="",
        keyword=str(IJsonRule.BINARY),
        message=f"binary data (a NUL byte at byte {offset}), not JSON text",
    )
    return Record(name, None, None, (violation,))


def _is_blank(line: bytes) -> bool:
    """Nothing but JSON white space (not ``bytes.isspace``, which takes a vertical tab for space)."""
    return not line.strip(b" \t\r\n")


def _limit_phrase(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 and limit % (1 << 20) == 0 else f"{limit:,} bytes"


def _too_long(name: str, number: int, size: int) -> DoneTask:
    reason = (
        f"the line is longer than {_limit_phrase(MAX_LINE_BYTES)} (MAX_LINE_BYTES, the longest line"
        f" read); skipped after {size:,} bytes"
    )
    return DoneTask(Record(name, number, None, (), io_error=reason), size + 1)


def limited_tasks(name: str, number: int, lines: list[bytes]) -> Iterator[Task]:
    """``lines`` as one task, or, around each line longer than ``MAX_LINE_BYTES``, several."""
    start = 0
    for index, line in enumerate(lines):
        if len(line) > MAX_LINE_BYTES:
            if index > start:
                yield LinesTask(name, number + start, lines[start:index])
            yield _too_long(name, number + index, len(line))
            start = index + 1
    if start < len(lines):
        yield LinesTask(name, number + start, lines[start:])


def _line_batches(
    name: str, stream: IO[bytes], first_line: int, head: bytes, size: int, limit: int | None
) -> Iterator[Task]:
    """The lines of ``stream`` (after ``head``, the start of its first line; its next ``limit`` bytes
    only) in batches of about ``size`` bytes, each read as soon as it is there (a pipe's output is
    checked as it comes). A line longer than ``MAX_LINE_BYTES`` is counted, not held, and reported."""
    number = first_line
    if head.endswith(b"\n"):
        yield LinesTask(name, number, [head[:-1]])
        number, head = number + 1, b""
    read = getattr(stream, "read1", stream.read)
    partial = [head] if head else []  # the start of a line that has not ended yet
    held = len(head)  # its length (its bytes are dropped past MAX_LINE_BYTES)
    while chunk := read(size if limit is None else min(size, limit)):
        limit = None if limit is None else limit - len(chunk)
        # Lines without their line feed (orjson needs none): bytes.split is the cheapest cut.
        lines = chunk.split(b"\n")
        rest = lines.pop()
        if not lines:
            held += len(chunk)
            if held <= MAX_LINE_BYTES:
                partial.append(chunk)
            else:
                partial.clear()
            continue
        if held:
            held += len(lines[0])
            if held > MAX_LINE_BYTES:
                yield _too_long(name, number, held)
                number += 1
                del lines[0]
            else:
                lines[0] = b"".join([*partial, lines[0]])
        yield from limited_tasks(name, number, lines)
        number += len(lines)
        partial, held = [rest] if rest else [], len(rest)
    if held > MAX_LINE_BYTES:
        yield _too_long(name, number, held)
    elif partial:
        yield LinesTask(name, number, [b"".join(partial)])


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


def pretty_printed(head: bytes) -> bool:
    """Whether text beginning with ``head`` holds pretty-printed JSON, not JSON lines: its first line
    that is not blank is ``{`` or ``[`` alone, which no line of JSON lines can be."""
    return re.match(rb"[ \t\r\n]*[{\[][ \t\r]*\n", head) is not None


_OPENERS = (b"{", b"[")


def documents_apart(name: str, units: Iterator[Task]) -> Iterator[Task]:
    """``units`` of JSON lines with each pretty-printed document among them (a line that is ``{``
    or ``[`` alone opens it, its brackets close it) taken out as a ``DocumentTask`` of its own,
    however many batches it spans. One still open after ``MAX_DOCUMENT_BYTES`` stays lines; one
    still open at the end of the input is a document that its parse then refuses."""
    held: list[bytes] = []  # the lines of an open document
    first = depth = size = 0
    for unit in units:
        if not isinstance(unit, LinesTask):
            if held:
                yield LinesTask(name, first, held)
                held = []
            yield unit
            continue
        lines, number, start = unit.lines, unit.first_line, 0
        for index, line in enumerate(lines):
            if held:
                held.append(line)
                size += len(line) + 1
                depth = _depth_after(line, depth)
                if depth <= 0:
                    yield DocumentTask(name, b"\n".join(held), first)
                elif size > MAX_DOCUMENT_BYTES:
                    yield LinesTask(name, first, held)
                else:
                    continue
                held, start = [], index + 1
            elif len(line) <= 64 and line.strip(b" \t\r\n") in _OPENERS:
                if index > start:
                    yield LinesTask(name, number + start, lines[start:index])
                held, first, depth, size = [line], number + index, 1, len(line) + 1
        if not held and start < len(lines):
            yield LinesTask(name, number + start, lines[start:]) if start else unit
    if held:
        yield DocumentTask(name, b"\n".join(held), first)


def handed_over_tasks(name: str, pieces: Iterable[list[bytes]], first_line: int) -> Iterator[Task]:
    """The units of work of JSON lines handed over in ``pieces`` (each line with or without its line
    feed), the first of which is line ``first_line``, read as a file's are: a pretty-printed document
    one unit however many pieces it spans, a line longer than ``MAX_LINE_BYTES`` a record."""

    def units() -> Iterator[Task]:
        number = first_line
        for piece in pieces:
            yield from limited_tasks(name, number, [line.removesuffix(b"\n") for line in piece])
            number += len(piece)

    return documents_apart(name, units())


def lines_tasks(
    name: str, stream: IO[bytes], size: int, first_line: int = 1, head: bytes = b"", limit: int | None = None
) -> Iterator[Task]:
    """The units of work of JSON lines read from ``stream`` (after ``head``, the start of line
    ``first_line``; its next ``limit`` bytes only): batches of about ``size`` bytes, each pretty-printed
    document one unit, each line longer than ``MAX_LINE_BYTES`` a record."""
    return documents_apart(name, _line_batches(name, stream, first_line, head, size, limit))


def _stream_tasks(name: str, stream: IO[bytes], mode: Mode, size: int) -> Iterator[Task]:
    if mode == "document":
        yield _document(name, stream, b"")
        return
    peek = getattr(stream, "peek", None)
    head: bytes = peek(BINARY_SNIFF_BYTES)[:BINARY_SNIFF_BYTES] if peek is not None else b""
    if b"\x00" in head:
        yield DoneTask(binary_record(name, head))
    elif mode == "lines":
        yield from lines_tasks(name, stream, size)
    else:
        yield from _sniffed(name, stream, size)


def _sniffed(name: str, stream: IO[bytes], size: int) -> Iterator[Task]:
    """Input of no known kind: JSON lines if its first line that is not blank is a JSON value, opens
    a pretty-printed document (``{`` or ``[`` alone) or is longer than ``MAX_LINE_BYTES`` (no
    document that long is read), else one document. Blank lines are only counted (an endless run
    of them holds no memory)."""
    blank = 0
    line = stream.readline(MAX_LINE_BYTES + 1)
    while line.endswith(b"\n") and _is_blank(line):
        blank += 1
        line = stream.readline(MAX_LINE_BYTES + 1)
    if _is_blank(line) and len(line) <= MAX_LINE_BYTES:
        return
    if len(line) > MAX_LINE_BYTES or line.strip(b" \t\r\n") in _OPENERS or _is_json(line):
        yield from lines_tasks(name, stream, size, blank + 1, line)
        return
    # Blank lines before a document change no column, only line numbers: each one is kept as "\n".
    yield _document(name, stream, b"\n" * blank + line if blank <= MAX_DOCUMENT_BYTES else line + b"\n")


def _is_json(line: bytes) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def tasks(source: Source | Record, stdin: IO[bytes], batch_bytes: int = LOCAL_BATCH_BYTES) -> Generator[Task]:
    """The units of work of one input, read as they are needed: JSON lines in batches of about
    ``batch_bytes``; an input that cannot be read gives its record."""
    if isinstance(source, Record):
        yield DoneTask(source)
        return
    try:
        if source.path == STDIN:
            yield from _stream_tasks(source.name, stdin, source.mode, batch_bytes)
            return
        with open_input(source.path) as stream:
            yield from _stream_tasks(source.name, stream, source.mode, batch_bytes)
    except OSError as error:
        yield DoneTask(io_record(source.name, error))


# Documents one after another in one text.

_NOT_SPACE = re.compile(rb"[^ \t\r\n]")
# What decides where a document ends: its brackets, outside its strings (matched whole, so that
# nothing in a string is read as structure).
_STRUCTURE = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}]')


_NEXT_OPENER = re.compile(rb"\n[ \t\r]*[{\[]")


def _skip_space(data: bytes, position: int) -> int:
    found = _NOT_SPACE.search(data, position)
    return len(data) if found is None else found.start()


def _scan(data: bytes, start: int, depth: int) -> tuple[int | None, int]:
    """Where the brackets open before ``start`` (``depth`` of them) close in ``data`` (None: not
    there), and how many are open at the end."""
    for token in _STRUCTURE.finditer(data, start):
        first = data[token.start()]
        if first != 0x22:  # not a string
            depth += 1 if first in b"{[" else -1
            if depth == 0:
                return token.end(), 0
    return None, depth


def _depth_after(line: bytes, depth: int) -> int:
    """How many brackets are open after ``line`` (a line holds whole strings), ``depth`` before it;
    0 once they close."""
    return _scan(line, 0, depth)[1]


def document_spans(data: bytes) -> list[tuple[int, int, int, int]] | None:
    """Where each document starts and ends, and the line and column (in characters) it starts at,
    when ``data`` begins with an object or array that other documents follow: an object or
    array ends at its closing bracket, anything else (a string, text that is not JSON) before the
    next line that opens one, so that one bad document loses none after it; an object or array
    that does not close is the last span, which its parse then refuses. None for anything else
    (one document, valid or not, or text that is not JSON). Asked of documents found invalid only."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    else:
        return None
    spans: list[tuple[int, int]] = []
    start = _skip_space(data, 0)
    while start < len(data):
        if data[start] in b"{[":
            end = _scan(data, start, 0)[0] or len(data)  # by its brackets; not closed: to the end
        elif spans:
            opener = _NEXT_OPENER.search(data, start)
            end = len(data) if opener is None else opener.start()
        else:
            return None
        spans.append((start, end))
        start = _skip_space(data, end)
    if len(spans) < 2 or (len(spans) == 2 and data[spans[1][0]] not in b"{["):
        return None  # one document, and what follows it begins no other: content after its end
    found = positions(data, [start for start, _ in spans])
    return [(start, end, *found[start]) for start, end in spans]
