"""Checking one unit of work, a batch of JSON lines or a document, by a ``Judge``: per line orjson
decodes, the I-JSON screens run (``_ijson.refusal``), the judge decides, and only a line found wrong
is explained.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from typing import IO, Any, Final, NamedTuple

import orjson

from .._errors import IJsonError
from .._violation import SchemaViolation, best_match
from ._engine import engine
from ._ijson import parse_error, parse_ijson, refusal, violation_of
from ._inputs import (
    DocumentTask,
    DoneTask,
    LinesTask,
    Record,
    Source,
    Task,
    document_spans,
    handed_over_tasks,
    tasks,
)
from ._validate import ValidationResult, cached_explanation, validate_json


class Batch(NamedTuple):
    """What one unit of work found: counts, the records (every invalid response and I/O error, and
    the valid responses with ``Options.keep_valid``) and the bytes of input consumed."""

    valid: int
    invalid: int
    records: list[Record]
    size: int


class Judge:
    """What every record must be, and why one is not: by default a ToolResponse v1
    (``RESPONSE_JUDGE``). It is pickled to workers: it holds a name, and compiles on first use."""

    def verdict(self) -> Callable[[Any], bool]:
        """The verdict on one decoded record (called once per line)."""
        raise NotImplementedError

    def explain(self, value: Any, *, first: bool) -> tuple[SchemaViolation, ...]:
        """The violations of a record the verdict refused, most relevant first (with ``first``, one)."""
        raise NotImplementedError

    def explainer(self, *, first: bool) -> Callable[[Any], ValidationResult]:
        """``explain`` with ``first`` given (called once per invalid line)."""
        return lambda value: ValidationResult(errors=self.explain(value, first=first))

    def explain_document(self, data: bytes) -> ValidationResult:
        """The violations of one JSON document, I-JSON rules first (none: it is valid)."""
        try:
            value = parse_ijson(data)
        except IJsonError as error:
            return ValidationResult(errors=(violation_of(error),))
        return ValidationResult(errors=() if self.verdict()(value) else self.explain(value, first=False))


class ResponseJudge(Judge):
    """Records are ToolResponses v1: jsonschema-rs decides, cached explanations say why not."""

    def verdict(self) -> Callable[[Any], bool]:
        return engine("fast").is_valid

    def explain(self, value: Any, *, first: bool) -> tuple[SchemaViolation, ...]:
        return cached_explanation(value, first=first).errors

    def explainer(self, *, first: bool) -> Callable[[Any], ValidationResult]:
        return partial(cached_explanation, first=first)

    def explain_document(self, data: bytes) -> ValidationResult:
        return validate_json(data)  # each violation located in the text

    def __repr__(self) -> str:
        return "RESPONSE_JUDGE"


RESPONSE_JUDGE: Final = ResponseJudge()
"""The judge of ToolResponse v1 records: what ``Options`` uses unless told otherwise."""


class Options(NamedTuple):
    """How responses are checked: only the most relevant violation of each (``first``), a record for
    each valid one too (``keep_valid``), invalid ones explained or only counted, and by which judge."""

    first: bool = False
    keep_valid: bool = False
    explain: bool = True
    judge: Judge = RESPONSE_JUDGE


def _line_error(line: bytes, error: orjson.JSONDecodeError) -> IJsonError:
    """The error of a JSON line without its line end (which orjson read as part of it)."""
    content = line.rstrip(b"\r\n")
    # Only an error at the line end can change without it; orjson's positions count characters.
    if content != line and (error.pos >= len(content) or not content.isascii()):
        try:
            orjson.loads(content)
        except orjson.JSONDecodeError as without_end:
            # Returned inside the handler: no frame keeps the traceback (and the batch) alive.
            return parse_error(content, without_end)
    return parse_error(content, error)


def _unread(name: str, number: int, line: bytes, error: Exception) -> Record:
    """The located record of a line that is no I-JSON: ``error`` is orjson's, or the refusal."""
    if isinstance(error, orjson.JSONDecodeError):
        error = _line_error(line, error)
    assert isinstance(error, IJsonError)
    failure = replace(violation_of(error), line=number)
    return Record(name, number, failure.column, (failure,))


def _read(lines: list[bytes], first_line: int) -> Iterator[tuple[int, bytes, Any, Exception | None]]:
    """Each line that is not blank: its number, the line, its value, and why it is no I-JSON or None."""
    loads = orjson.loads  # looked up now, not at import: a test counts its calls
    for number, line in enumerate(lines, first_line):
        if not line.strip(b" \t\r\n"):
            continue
        try:
            value = loads(line)
        except orjson.JSONDecodeError as error:
            yield number, line, None, error
            continue
        yield number, line, value, refusal(line, value)


def check_lines(name: str, lines: list[bytes], first_line: int, options: Options) -> Batch:
    """The verdicts on JSON lines ``lines``, the first of which is line ``first_line`` of ``name``,
    read as ``toolresponse validate`` reads a file's: a pretty-printed document among them one
    response, a line longer than ``MAX_LINE_BYTES`` skipped and reported."""
    return merged([run_task(task, options) for task in handed_over_tasks(name, [lines], first_line)])


def _check_lines(name: str, lines: list[bytes], first_line: int, options: Options) -> Batch:
    """The verdicts on lines of one JSON value each (a reader has taken the documents apart)."""
    judge = options.judge
    is_valid = judge.verdict()
    explain = judge.explainer(first=options.first) if options.explain else None
    keep_valid = options.keep_valid and explain is not None
    valid = invalid = 0
    records: list[Record] = []
    for number, line, value, problem in _read(lines, first_line):
        if problem is None and is_valid(value):
            valid += 1
            if keep_valid:
                records.append(Record(name, number, None, ()))
            continue
        invalid += 1
        if explain is not None and problem is not None:
            records.append(_unread(name, number, line, problem))
        elif explain is not None:
            records.append(Record.invalid(name, number, explain(value)))
    return Batch(valid, invalid, records, sum(map(len, lines)) + len(lines))


def _moved(record: Record, line: int, column: int) -> Record:
    """``record`` of a document that starts at ``line`` and ``column`` of a longer text, located there."""

    def place(at_line: int, at_column: int | None) -> dict[str, Any]:
        shifted = at_column + column - 1 if at_line == 1 and at_column is not None else at_column
        return {"line": at_line + line - 1, "column": shifted}

    errors = tuple(v if v.line is None else replace(v, **place(v.line, v.column)) for v in record.errors)
    # A record without a line (the whole document) starts where the document does.
    return record._replace(errors=errors, **place(record.line or 1, record.column))


def check_document(name: str, data: bytes, options: Options, first_line: int | None = None) -> Batch:
    """The verdict on one JSON document, or on each of several one after another (``document_spans``);
    with ``first_line``, located in the input it begins at that line of."""
    batch = _check_one(name, data, options)
    spans = document_spans(data) if batch.invalid else None
    if spans is None:
        spans = [(0, len(data), 1, 1)]
        if first_line is None:
            return batch
        parts = [batch]
    else:
        parts = [_check_one(name, data[start:end], options) for start, end, _, _ in spans]
    shift = 0 if first_line is None else first_line - 1
    parts = [
        part._replace(records=[_moved(record, line + shift, column) for record in part.records])
        for part, (_, _, line, column) in zip(parts, spans, strict=True)
    ]
    return merged(parts)._replace(size=len(data))


def _check_one(name: str, data: bytes, options: Options) -> Batch:
    if not options.explain:
        try:
            good = options.judge.verdict()(parse_ijson(data))
        except IJsonError:
            good = False
        return Batch(int(good), int(not good), [], len(data))
    found = options.judge.explain_document(data)
    if not found.errors:
        return Batch(1, 0, [Record(name, None, None, ())] if options.keep_valid else [], len(data))
    best = best_match(found.errors)
    assert best is not None  # an invalid response has a violation
    if options.first:
        found = ValidationResult(errors=(best,))
    return Batch(0, 1, [Record.invalid(name, best.line, found, best.column)], len(data))


def run_task(task: Task, options: Options) -> Batch:
    """Check one unit of work."""
    if isinstance(task, LinesTask):
        return _check_lines(task.name, task.lines, task.first_line, options)
    if isinstance(task, DocumentTask):  # its bytes with the line feed after it
        return check_document(task.name, task.data, options, task.first_line)._replace(
            size=len(task.data) + 1
        )
    return done_batch(task.record)._replace(size=task.size)


def done_batch(record: Record) -> Batch:
    """The batch of a verdict reached while reading: an I/O error, or an invalid input."""
    return Batch(0, 0 if record.io_error else 1, [record], 0)


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


def renumber(batch: Batch, offset: int) -> Batch:
    """``batch`` with its line numbers moved by ``offset``: the lines of the ranges before it."""
    if not offset:
        return batch
    moved = [
        record._replace(
            line=None if record.line is None else record.line + offset,
            errors=tuple(v if v.line is None else replace(v, line=v.line + offset) for v in record.errors),
        )
        for record in batch.records
    ]
    return batch._replace(records=moved)


class Decoded(NamedTuple):
    """Records read together from one input: their lines (None: a document that is the whole input)
    and values, and the records that are no I-JSON or inputs that could not be read."""

    source: str
    lines: list[int | None]
    values: list[Any]
    problems: list[Record]


class _Collector(Judge):
    """Takes every I-JSON record as valid and keeps its value: what ``decoded_records`` checks with."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def verdict(self) -> Callable[[Any], bool]:
        def keep(value: Any) -> bool:
            self.values.append(value)
            return True

        return keep


def decoded_records(sources: Iterable[Source | Record], *, stdin: IO[bytes]) -> Iterator[Decoded]:
    """The records of every input decoded, in input order, read as ``check`` reads them."""
    collector = _Collector()
    options = Options(keep_valid=True, judge=collector)
    for source in sources:
        for task in tasks(source, stdin):
            records = run_task(task, options).records
            name = task.record.source if isinstance(task, DoneTask) else task.name
            lines = [record.line for record in records if record.valid]
            yield Decoded(name, lines, collector.values, [record for record in records if not record.valid])
            collector.values = []
