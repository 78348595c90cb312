"""Reports of a bulk validation run: text, JSON or JSON lines, streamed as the batches come.

- ``text`` (default): one line per violation,
  ``FILE:LINE[:COLUMN]: POINTER: MESSAGE [KEYWORD]`` (``(root)`` for the whole
  response), most relevant first, then ``N valid, M invalid``. Every part taken
  from the input (file names, pointers, member names in messages) goes through
  ``printable``: control and bidi characters reach no terminal raw;
- ``json``: one object, streamed: ``{"responses": [...invalid responses...],
  "io_errors": [...], "valid": N, "invalid": M, "unreadable": K}`` (the counts
  come last so that the report never has to be held in memory);
- ``jsonl``: one record per response, valid ones included, in input order
  (``{"source", "line", "valid", "errors"?, "more_errors"?}``; an unreadable input is
  ``{"source", "io_error"}``, with ``"line"`` for a line too long to read); the
  summary goes to standard error.

A response shows at most ``MAX_VIOLATIONS`` (100) violations, the most relevant;
past them the text report adds one line ``FILE:LINE: ... and N more violations``
and the JSON records a member ``"more_errors": N``.

With ``quiet`` nothing is written but the reasons for I/O errors: the exit
status is the answer. The progress bar is drawn on standard error only when it
is a terminal, not when quiet, and only once a run has lasted half a second.

Exit status (``report`` returns it): 0 every response valid; 1 some response
invalid; 2 an input that could not be read (each gets a one-line reason on
standard error, and the rest of the run goes on). When both happen, 2 wins: an
unreadable input means the verdict "all valid" could not be reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any, Literal, Protocol, TextIO

import orjson

from .._suggest import printable
from ._bulk import MAX_VIOLATIONS, RESPONSE_JUDGE, Batch, Judge, Options, Record, Source, check

__all__ = ["EXIT_ERROR", "EXIT_INVALID", "EXIT_VALID", "Format", "Progress", "is_terminal", "report"]

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_ERROR = 2
PROGRAM = "toolresponse validate"

Format = Literal["text", "json", "jsonl"]


class Checker(Protocol):
    """What gives the batches of a report: ``check`` itself (this process, or ``jobs`` of them),
    or another reader of the same inputs (``toolresponse.interop``'s dialect check, a Dask
    cluster through ``toolresponse.dask.check_on``)."""

    def __call__(
        self, sources: Sequence[Source | Record], options: Options, *, stdin: IO[bytes], jobs: int
    ) -> Iterable[Batch]: ...


class _Stream(Protocol):
    def write(self, text: str, /) -> Any: ...

    def flush(self) -> Any: ...


class Progress:
    """A one-line progress bar redrawn in place (``\\r``) on a terminal."""

    def __init__(
        self,
        stream: _Stream,
        total_bytes: int | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        delay: float = 0.5,
        interval: float = 0.2,
        width: int = 24,
    ) -> None:
        self._stream = stream
        self._total = total_bytes
        self._clock = clock
        self._start = clock()
        self._delay = delay
        self._interval = interval
        self._width = width
        self._next = self._start + delay
        self._drawn = 0
        self.done_bytes = 0
        self.responses = 0

    def advance(self, size: int, responses: int) -> None:
        self.done_bytes += size
        self.responses += responses
        now = self._clock()
        if now < self._next:
            return
        self._next = now + self._interval
        self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-9)
        rate = f"{self.responses / elapsed:,.0f}/s"
        if self._total:
            fraction = min(self.done_bytes / self._total, 1.0)
            filled = round(fraction * self._width)
            bar = "#" * filled + "-" * (self._width - filled)
            line = f"[{bar}] {fraction:4.0%}  {self.responses:,} responses  {rate}"
        else:
            line = f"{self.responses:,} responses, {self.done_bytes / 1e6:,.1f} MB  {rate}"
        self._stream.write("\r" + line.ljust(self._drawn))
        self._stream.flush()
        self._drawn = len(line)

    def close(self) -> None:
        if self._drawn:
            self._stream.write("\r" + " " * self._drawn + "\r")
            self._stream.flush()
            self._drawn = 0


def _location(record: Record, line: int | None, column: int | None) -> str:
    where = record.source
    if line is not None:
        where += f":{line}"
        if column is not None:
            where += f":{column}"
    return where


def _record_json(record: Record) -> dict[str, Any]:
    if record.io_error is not None:
        if record.line is not None:
            return {"source": record.source, "line": record.line, "io_error": record.io_error}
        return {"source": record.source, "io_error": record.io_error}
    out: dict[str, Any] = {"source": record.source, "line": record.line, "valid": record.valid}
    if record.errors:
        out["errors"] = [violation.to_dict() for violation in record.errors]
    if record.more:
        out["more_errors"] = record.more
    return out


def _more_line(where: str, more: int) -> str:
    return (
        f"{where}: ... and {more:,} more violation{'s' if more > 1 else ''}"
        f" (at most {MAX_VIOLATIONS} are shown per response)\n"
    )


OUTPUT_CHUNK = 1 << 16
"""Report text is written in pieces of about this many characters (a terminal gets it at once)."""


class _Report:
    """Writes the records of each batch as they come, in large pieces; ``close`` writes the summary."""

    keep_valid = False

    def __init__(self, out: TextIO, err: TextIO, *, immediate: bool = False) -> None:
        self.out = out
        self.err = err
        self.valid = 0
        self.invalid = 0
        self.unreadable = 0
        self._pending: list[str] = []
        self._pending_size = 0
        self._limit = 0 if immediate else OUTPUT_CHUNK

    def emit(self, text: str) -> None:
        """Write ``text`` to ``out`` soon: with the next piece, or now on a terminal."""
        self._pending.append(text)
        self._pending_size += len(text)
        if self._pending_size >= self._limit:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            self.out.write("".join(self._pending))
            self._pending.clear()
            self._pending_size = 0

    def io_error(self, record: Record) -> None:
        where = record.source if record.line is None else f"{record.source}:{record.line}"
        self.err.write(f"{PROGRAM}: cannot read {where}: {printable(record.io_error or '')}\n")

    def add(self, batch: Batch) -> None:
        self.valid += batch.valid
        self.invalid += batch.invalid
        for record in batch.records:
            if record.io_error is not None:
                self.unreadable += 1
                self.flush()
                self.io_error(record)
        self.write(batch)

    def write(self, batch: Batch) -> None:
        pass

    def summary(self) -> str:
        text = f"{self.valid:,} valid, {self.invalid:,} invalid"
        if self.unreadable:
            text += f", {self.unreadable:,} input{'s' if self.unreadable > 1 else ''} unreadable"
        return text

    def close(self) -> None:
        self.flush()


class _QuietReport(_Report):
    pass


_SUFFIX_CACHE_LIMIT = 4096


class _TextReport(_Report):
    def __init__(self, out: TextIO, err: TextIO, *, immediate: bool = False) -> None:
        super().__init__(out, err, immediate=immediate)
        # What each explanation looks like after "FILE:LINE", by the identity of its tuple (the
        # explanation cache gives the same tuple for the same mistakes); the tuple is kept with
        # its text, so that an id is never taken for another tuple's.
        self._suffixes: dict[int, tuple[tuple[Any, ...], tuple[str, ...]]] = {}

    def _suffix(self, errors: tuple[Any, ...]) -> tuple[str, ...] | None:
        known = self._suffixes.get(id(errors))
        if known is not None and known[0] is errors:
            return known[1]
        if any(violation.line is not None or violation.column is not None for violation in errors):
            return None
        text = tuple(
            f": {printable(violation.pointer) or '(root)'}: {printable(violation.message)}"
            f" [{printable(violation.keyword)}]\n"
            for violation in errors
        )
        if len(self._suffixes) >= _SUFFIX_CACHE_LIMIT:
            self._suffixes.clear()
        self._suffixes[id(errors)] = (errors, text)
        return text

    def write(self, batch: Batch) -> None:
        lines: list[str] = []
        add = lines.append
        suffix_of = self._suffix
        for record in batch.records:
            errors = record.errors
            if not errors:
                continue
            suffix = suffix_of(errors)
            if suffix is not None:
                where = record.source if record.line is None else f"{record.source}:{record.line}"
                for piece in suffix:
                    add(where + piece)
            else:
                for violation in errors:
                    line = violation.line if violation.line is not None else record.line
                    where = _location(record, line, violation.column)
                    pointer = printable(violation.pointer) or "(root)"
                    message = printable(violation.message)
                    add(f"{where}: {pointer}: {message} [{printable(violation.keyword)}]\n")
            if record.more:
                add(_more_line(_location(record, record.line, None), record.more))
        if lines:
            self.emit("".join(lines))

    def close(self) -> None:
        self.emit(self.summary() + "\n")
        self.flush()


class _JsonReport(_Report):
    def __init__(self, out: TextIO, err: TextIO, *, immediate: bool = False) -> None:
        super().__init__(out, err, immediate=immediate)
        self._io_errors: list[dict[str, Any]] = []
        self._separator = "\n"
        self.emit('{"responses": [')

    def write(self, batch: Batch) -> None:
        parts = []
        for record in batch.records:
            if record.io_error is not None:
                self._io_errors.append(_record_json(record))
                continue
            parts.append(self._separator + orjson.dumps(_record_json(record)).decode("utf-8"))
            self._separator = ",\n"
        if parts:
            self.emit("".join(parts))

    def close(self) -> None:
        tail = {
            "io_errors": self._io_errors,
            "valid": self.valid,
            "invalid": self.invalid,
            "unreadable": self.unreadable,
        }
        body = orjson.dumps(tail).decode("utf-8")
        self.emit("\n], " + body[1:] + "\n")
        self.flush()


class _JsonlReport(_Report):
    keep_valid = True

    def write(self, batch: Batch) -> None:
        if batch.records:
            dumps = orjson.dumps
            self.emit("".join(dumps(_record_json(record)).decode("utf-8") + "\n" for record in batch.records))

    def close(self) -> None:
        self.flush()
        self.err.write(self.summary() + "\n")


_REPORTS: dict[str, type[_Report]] = {"text": _TextReport, "json": _JsonReport, "jsonl": _JsonlReport}


def is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


def report(
    sources: Iterable[Source | Record],
    *,
    out: TextIO,
    err: TextIO,
    stdin: IO[bytes],
    output_format: Format = "text",
    first: bool = False,
    quiet: bool = False,
    jobs: int = 1,
    progress: bool | None = None,
    clock: Callable[[], float] = time.monotonic,
    checker: Checker = check,
    judge: Judge = RESPONSE_JUDGE,
) -> int:
    """Check ``sources`` (from ``_bulk.expand``), write the report, and return the exit status.

    ``progress`` None means "on a terminal": drawn when ``err`` is one and not ``quiet``.
    ``checker`` gives the batches (see ``Checker``): another reader of the same inputs (a
    Dask cluster) reports through this one writer. ``judge`` says what each record must be (a
    ToolResponse, or a record of another dialect: ``toolresponse.interop``).
    """
    listed = list(sources)
    immediate = is_terminal(out)
    reporter = (_QuietReport if quiet else _REPORTS[output_format])(out, err, immediate=immediate)
    options = Options(first=first, keep_valid=reporter.keep_valid, explain=not quiet, judge=judge)
    show_progress = (not quiet and is_terminal(err)) if progress is None else progress
    bar: Progress | None = None
    if show_progress:
        sizes = [source.size for source in listed if isinstance(source, Source)]
        total = None if any(size is None for size in sizes) else sum(size or 0 for size in sizes)
        bar = Progress(err, total, clock=clock)
    try:
        clear_for_output = immediate
        for batch in checker(listed, options, stdin=stdin, jobs=jobs):
            if bar is not None and clear_for_output and batch.records:
                bar.close()
            reporter.add(batch)
            if bar is not None:
                bar.advance(batch.size, batch.valid + batch.invalid)
    finally:
        if bar is not None:
            bar.close()
    reporter.close()
    out.flush()
    if reporter.unreadable:
        return EXIT_ERROR
    return EXIT_INVALID if reporter.invalid else EXIT_VALID
