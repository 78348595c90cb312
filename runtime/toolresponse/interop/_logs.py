"""Logs in any dialect, judged through the validator's bulk API in two layers.

``DialectJudge`` checks each record against its dialect's shape (``<dialect> record: ...``, the
pointer into the record), then the ToolResponse it maps to against the v1 schema (``mapped
ToolResponse: ...``, the pointer into the response). A judge is all a dialect adds, so
``validate --from`` has every mode of ``validate`` (``--jobs``, Dask, every report format).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from .._errors import DialectError, ResponseValidationError
from .._violation import SchemaViolation, best_match
from ..validation import Judge, is_valid, validate
from ..validation._checks import RESPONSE_JUDGE
from ._dialects import RESPONSE, Dialect, dialect


def _layered(violations: Iterable[SchemaViolation], prefix: str) -> tuple[SchemaViolation, ...]:
    return tuple(dataclasses.replace(v, message=prefix + v.message) for v in violations)


def record_violations(chosen: Dialect, value: Any) -> tuple[SchemaViolation, ...]:
    """What is wrong with one decoded record of ``chosen``, layer by layer (empty: nothing)."""
    if chosen.name != RESPONSE:
        found = chosen.shape.violations(value)
        if found:
            return found
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
    return _layered(validate(wire).errors, "" if chosen.name == RESPONSE else "mapped ToolResponse: ")


@cache
def _verdict(name: str) -> Callable[[Any], bool]:
    """The per-record verdict of dialect ``name``, compiled once per process: its shape, then
    the ToolResponse it maps to; only a record found wrong goes on to be explained."""
    chosen = dialect(name)
    shape_ok, mapped, response_ok = chosen.shape.validator.verdict(), chosen.wire, RESPONSE_JUDGE.verdict()

    def verdict(value: Any) -> bool:
        if not shape_ok(value):
            return False
        try:
            return response_ok(mapped(value))
        except ResponseValidationError:  # the mapping found the record wrong on its own
            return False

    return verdict


@dataclass(frozen=True)
class DialectJudge(Judge):
    """Records of the dialect ``dialect_name`` (any but ``toolresponse``), judged in two layers.
    It holds only the name, so it travels to worker processes and Dask workers."""

    dialect_name: str

    def __post_init__(self) -> None:
        if dialect(self.dialect_name).name == RESPONSE:
            message = f"{self.dialect_name!r} records are ToolResponses: judge them with RESPONSE_JUDGE"
            raise ValueError(message)

    def verdict(self) -> Callable[[Any], bool]:
        return _verdict(self.dialect_name)

    def explain(self, value: Any, *, first: bool) -> tuple[SchemaViolation, ...]:
        errors = record_violations(dialect(self.dialect_name), value)
        best = best_match(errors) if first else None
        return errors if best is None else (best,)


def judge_of(name: str) -> Judge:
    """The judge of records of dialect ``name``; ``ValueError`` for an unknown name."""
    return RESPONSE_JUDGE if dialect(name).name == RESPONSE else DialectJudge(name)
