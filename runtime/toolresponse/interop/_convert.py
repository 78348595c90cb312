"""``convert``: records of one dialect to another, streamed, each bad record reported and skipped.

Inputs are read as ``validate`` reads them; each record goes through ToolResponse (``from_<source>``
then ``to_<target>``) and is written as a JSON line (``output_format="json"``: one array). A record
that cannot be converted (not I-JSON, not in its shape, mapping to an invalid response, a target
needing a call id or tool name the response's context lacks) is reported on ``err`` as
``FILE:LINE[:COLUMN]: POINTER: [layer] MESSAGE [KEYWORD]`` and left out. Exit status: 0 all
converted, 1 some record left out, 2 an input could not be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Literal, TextIO

import orjson

from .._errors import ResponseValidationError
from .._violation import SchemaViolation
from ..validation import expand
from ..validation._checks import decoded_records
from ..validation._report import EXIT_ERROR, EXIT_INVALID, EXIT_VALID, unreadable_line, violation_lines
from ._dialects import dialect
from ._logs import record_violations

OutputFormat = Literal["jsonl", "json"]


@dataclass
class ConvertReport:
    """What a conversion did: records converted, left out, and inputs that could not be read."""

    converted: int = 0
    invalid: int = 0
    unreadable: int = 0

    @property
    def exit_status(self) -> int:
        if self.unreadable:
            return EXIT_ERROR
        return EXIT_INVALID if self.invalid else EXIT_VALID

    def summary(self) -> str:
        text = f"{self.converted:,} converted, {self.invalid:,} invalid"
        if self.unreadable:
            text += f", {self.unreadable:,} input{'s' if self.unreadable > 1 else ''} unreadable"
        return text


def convert(
    source_dialect: str,
    target_dialect: str,
    paths: Sequence[str],
    *,
    out: TextIO,
    err: TextIO,
    stdin: IO[bytes],
    output_format: OutputFormat = "jsonl",
    quiet: bool = False,
) -> ConvertReport:
    """Convert every record of ``paths`` from one dialect to another (see the module docstring);
    ``ValueError`` for an unknown dialect name. ``quiet``: no summary on ``err``."""
    source, target = dialect(source_dialect), dialect(target_dialect)
    result = ConvertReport()
    separator = "[\n" if output_format == "json" else ""
    for chunk in decoded_records(expand(paths), stdin=stdin):
        written: list[str] = []
        for line, value in zip(chunk.lines, chunk.values, strict=True):
            errors: Sequence[SchemaViolation]
            try:
                text = orjson.dumps(target.to(source.from_(value))).decode("utf-8")
            except ResponseValidationError as error:
                errors = record_violations(source, value) or error.errors
            except orjson.JSONEncodeError as error:  # a value I-JSON cannot hold (an integer past 64 bits)
                message = f"the converted record cannot be written as JSON: {error}"
                errors = (SchemaViolation(pointer="", keyword="json", message=message),)
            else:
                written.append(separator + text if output_format == "json" else text + "\n")
                separator = ",\n" if output_format == "json" else ""
                result.converted += 1
                continue
            result.invalid += 1
            err.write(violation_lines(chunk.source, line, errors))
        if written:
            out.write("".join(written))
        for problem in chunk.problems:
            if problem.io_error is not None:
                result.unreadable += 1
                err.write(
                    unreadable_line("toolresponse convert", problem.source, problem.line, problem.io_error)
                )
            else:
                result.invalid += 1
                err.write(violation_lines(problem.source, problem.line, problem.errors))
    if output_format == "json":
        out.write("[]\n" if separator == "[\n" else "\n]\n")
    out.flush()
    if not quiet:
        err.write(result.summary() + "\n")
    return result
