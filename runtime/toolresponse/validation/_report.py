"""Reports of a bulk validation run, streamed as the batches come: ``text`` (a line
``FILE:LINE[:COLUMN]: POINTER: MESSAGE [KEYWORD]`` per violation, then ``N valid, M invalid``);
``json`` (``{"responses": [...], "io_errors": [...], "valid": N, "invalid": M, "unreadable": K}``,
the counts last: never held in memory); ``jsonl`` (a record per response, the summary on standard
error). Exit status: 0 all valid, 1 some invalid, 2 some input unreadable (2 wins).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any, Literal, Protocol, TextIO

import orjson

from .._suggest import printable
from .._violation import SchemaViolation
from ._bulk import check
from ._checks import RESPONSE_JUDGE, Batch, Judge, Options
from ._inputs import Record, Source, carried_path, shown_path
from ._validate import MAX_VIOLATIONS

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_ERROR = 2
PROGRAM = "toolresponse validate"

Format = Literal["text", "json", "jsonl"]


class Checker(Protocol):
    """What gives the batches of a report: ``check``, or another reader of the same inputs (Dask)."""

    def __call__(
        self, sources: Sequence[Source | Record], options: Options, *, stdin: IO[bytes], jobs: int
    ) -> Iterable[Batch]: ...


class Progress:
    """A one-line progress bar redrawn in place (``\\r``) on a terminal, from half a second on."""

    _INTERVAL = 0.2
    _WIDTH = 24

    def __init__(self, stream: TextIO, total_bytes: int | None, *, clock: Callable[[], float]) -> None:
        self._stream = stream
        self._total = total_bytes
        self._clock = clock
        self._start = clock()
        self._next = self._start + 0.5
        self._drawn = 0
        self.done_bytes = 0
        self.responses = 0

    def advance(self, size: int, responses: int) -> None:
        self.done_bytes += size
        self.responses += responses
        now = self._clock()
        if now < self._next:
            return
        self._next = now + self._INTERVAL
        rate = f"{self.responses / max(now - self._start, 1e-9):,.0f}/s"
        if self._total:
            fraction = min(self.done_bytes / self._total, 1.0)
            filled = round(fraction * self._WIDTH)
            bar = "#" * filled + "-" * (self._WIDTH - filled)
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


def _where(source: str, line: int | None, column: int | None = None) -> str:
    return (
        shown_path(source)
        + ("" if line is None else f":{line}")
        + ("" if line is None or column is None else f":{column}")
    )


def _record_json(record: Record) -> dict[str, Any]:
    if record.io_error is not None:
        line = {} if record.line is None else {"line": record.line}
        return {"source": carried_path(record.source), **line, "io_error": carried_path(record.io_error)}
    out: dict[str, Any] = {"source": carried_path(record.source), "line": record.line, "valid": record.valid}
    if record.errors:
        out["errors"] = [violation.to_dict() for violation in record.errors]
    if record.more:
        out["more_errors"] = record.more
    return out


class _Report:
    """Writes the records of each batch as they come; ``close`` ends the report. As it is, the quiet one."""

    keep_valid = False

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self.valid = self.invalid = self.unreadable = 0

    def add(self, batch: Batch) -> None:
        self.valid += batch.valid
        self.invalid += batch.invalid
        for record in batch.records:
            if record.io_error is not None:
                self.unreadable += 1
                self.err.write(unreadable_line(PROGRAM, record.source, record.line, record.io_error))
        self.out.write(self.write(batch.records))

    def write(self, records: list[Record]) -> str:
        """The report's text for ``records``."""
        return ""

    def summary(self) -> str:
        text = f"{self.valid:,} valid, {self.invalid:,} invalid"
        if self.unreadable:
            text += f", {self.unreadable:,} input{'s' if self.unreadable > 1 else ''} unreadable"
        return text

    def close(self) -> None:
        """End the report (the quiet one ends with nothing more)."""


def unreadable_line(program: str, source: str, line: int | None, io_error: str) -> str:
    """The line saying that ``source`` (at ``line``, when known) could not be read, and why."""
    return f"{program}: cannot read {_where(source, line)}: {printable(io_error)}\n"


def violation_lines(source: str, line: int | None, errors: Iterable[SchemaViolation]) -> str:
    """The text report's lines of ``errors``, found in the response at ``line`` of ``source``."""
    return "".join(
        f"{_where(source, line if v.line is None else v.line, v.column)}: {printable(v.pointer) or '(root)'}:"
        f" {printable(v.message, quoted=True)} [{printable(v.keyword)}]\n"
        for v in errors
    )


class _TextReport(_Report):
    def write(self, records: list[Record]) -> str:
        lines: list[str] = []
        for record in records:
            if not record.errors:
                continue
            lines.append(violation_lines(record.source, record.line, record.errors))
            if record.more:
                lines.append(
                    f"{_where(record.source, record.line)}: ... and {record.more:,} more violation"
                    f"{'s' if record.more > 1 else ''} (at most {MAX_VIOLATIONS} are shown per response)\n"
                )
        return "".join(lines)

    def close(self) -> None:
        self.out.write(self.summary() + "\n")


class _JsonReport(_Report):
    def __init__(self, out: TextIO, err: TextIO) -> None:
        super().__init__(out, err)
        self._io_errors: list[dict[str, Any]] = []
        self._separator = "\n"
        out.write('{"responses": [')

    def write(self, records: list[Record]) -> str:
        parts = []
        for record in records:
            if record.io_error is not None:
                self._io_errors.append(_record_json(record))
                continue
            parts.append(self._separator + orjson.dumps(_record_json(record)).decode("utf-8"))
            self._separator = ",\n"
        return "".join(parts)

    def close(self) -> None:
        tail = {"io_errors": self._io_errors, "valid": self.valid, "invalid": self.invalid}
        body = orjson.dumps({**tail, "unreadable": self.unreadable}).decode("utf-8")
        self.out.write("\n], " + body[1:] + "\n")


class _JsonlReport(_Report):
    keep_valid = True

    def write(self, records: list[Record]) -> str:
        return "".join(orjson.dumps(_record_json(record)).decode("utf-8") + "\n" for record in records)

    def close(self) -> None:
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
    """Check ``sources`` (from ``expand``), write the report, and return the exit status.

    ``progress`` None: drawn when ``err`` is a terminal and not ``quiet``. ``checker`` gives the
    batches (a Dask cluster's, say); ``judge`` says what each record must be."""
    listed = list(sources)
    immediate = is_terminal(out)
    reporter = (_Report if quiet else _REPORTS[output_format])(out, err)
    options = Options(first=first, keep_valid=reporter.keep_valid, explain=not quiet, judge=judge)
    bar: Progress | None = None
    if (not quiet and is_terminal(err)) if progress is None else progress:
        sizes = [source.size for source in listed if isinstance(source, Source)]
        bar = Progress(err, None if None in sizes else sum(size or 0 for size in sizes), clock=clock)
    try:
        for batch in checker(listed, options, stdin=stdin, jobs=jobs):
            if bar is not None and immediate and batch.records:
                bar.close()  # the report and the bar share a terminal
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
