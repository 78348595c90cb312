"""Deciding whether a value is a ToolResponse v1, and explaining why not.

- ``validate(obj)`` / ``validate_json(text)`` / ``iter_errors(obj)``: one
  response, its violations as ``SchemaViolation`` values (JSON pointer, keyword,
  schema path, a message naming the nearest valid value), the 100 most relevant
  first (``ValidationResult.more`` counts the others).
- ``parse_ijson(text)``: strict I-JSON (RFC 7493) parsing with exact positions.
- ``to_json_data(value)``: Python values made JSON with documented conversions.
- The bulk API, for files, streams, directories and other engines' partitions:
  ``expand(paths)`` lists the inputs, ``check(sources, options)`` gives each
  batch's ``Record``\\ s in input order, ``check_lines(name, lines, first_line,
  options)`` checks one partition of JSON lines, and ``report(...)`` writes the
  text, JSON or JSON-lines report and returns the exit status. What records
  must be is ``Options.judge``: a ToolResponse (``RESPONSE_JUDGE``) unless a
  ``Judge`` of another dialect says otherwise; ``decoded_records(sources)``
  reads the records for work other than judging them.
Two engines give the same verdicts: jsonschema-rs (``fast``, the default) and
jsonschema (``reference``). Nothing here knows about tools, agents or servers;
the byte ranges and units of work that ``--jobs`` and Dask hand out are private
to the bulk API (``_bulk``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from ._bulk import LineRange as LineRange
    from ._bulk import check as check
    from ._bulk import check_range as check_range
    from ._bulk import split_ranges as split_ranges
    from ._checks import RESPONSE_JUDGE as RESPONSE_JUDGE
    from ._checks import Batch as Batch
    from ._checks import Decoded as Decoded
    from ._checks import Judge as Judge
    from ._checks import Options as Options
    from ._checks import ResponseJudge as ResponseJudge
    from ._checks import check_document as check_document
    from ._checks import check_lines as check_lines
    from ._checks import decode_lines as decode_lines
    from ._checks import decoded_records as decoded_records
    from ._checks import merged as merged
    from ._checks import renumber as renumber
    from ._engine import EngineName as EngineName
    from ._engine import json_pointer as json_pointer
    from ._ijson import MAX_NESTING as MAX_NESTING
    from ._ijson import parse_ijson as parse_ijson
    from ._ijson import position as position
    from ._inputs import Record as Record
    from ._inputs import Source as Source
    from ._inputs import expand as expand
    from ._inputs import input_size as input_size
    from ._inputs import is_url as is_url
    from ._inputs import open_input as open_input
    from ._inputs import shown_path as shown_path
    from ._inputs import splittable as splittable
    from ._jsondata import (
        MAX_VALUE_DEPTH as MAX_VALUE_DEPTH,
    )
    from ._jsondata import (
        NOT_PLAIN as NOT_PLAIN,
    )
    from ._jsondata import (
        is_json_data as is_json_data,
    )
    from ._jsondata import (
        is_plain as is_plain,
    )
    from ._jsondata import (
        is_unicode as is_unicode,
    )
    from ._jsondata import (
        plain_object_copy as plain_object_copy,
    )
    from ._jsondata import (
        to_json_data as to_json_data,
    )
    from ._report import (
        EXIT_ERROR as EXIT_ERROR,
    )
    from ._report import (
        EXIT_INVALID as EXIT_INVALID,
    )
    from ._report import (
        EXIT_VALID as EXIT_VALID,
    )
    from ._report import (
        Checker as Checker,
    )
    from ._report import (
        Format as Format,
    )
    from ._report import (
        Progress as Progress,
    )
    from ._report import (
        is_terminal as is_terminal,
    )
    from ._report import (
        report as report,
    )
    from ._schema import bundled_schema as bundled_schema
    from ._validate import (
        ValidationResult as ValidationResult,
    )
    from ._validate import (
        explain as explain,
    )
    from ._validate import (
        is_valid as is_valid,
    )
    from ._validate import (
        iter_errors as iter_errors,
    )
    from ._validate import (
        validate as validate,
    )
    from ._validate import (
        validate_json as validate_json,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._checks": (
        "RESPONSE_JUDGE",
        "Batch",
        "Decoded",
        "Judge",
        "Options",
        "ResponseJudge",
        "check_document",
        "check_lines",
        "decode_lines",
        "decoded_records",
        "merged",
        "renumber",
    ),
    "._inputs": (
        "Record",
        "Source",
        "expand",
        "input_size",
        "is_url",
        "open_input",
        "shown_path",
        "splittable",
    ),
    "._bulk": (
        "LineRange",
        "check",
        "check_range",
        "split_ranges",
    ),
    "._engine": ("EngineName", "json_pointer"),
    "._ijson": ("MAX_NESTING", "parse_ijson", "position"),
    "._jsondata": (
        "MAX_VALUE_DEPTH",
        "NOT_PLAIN",
        "is_json_data",
        "is_plain",
        "is_unicode",
        "plain_object_copy",
        "to_json_data",
    ),
    "._report": (
        "Checker",
        "EXIT_ERROR",
        "EXIT_INVALID",
        "EXIT_VALID",
        "Format",
        "Progress",
        "is_terminal",
        "report",
    ),
    "._schema": ("bundled_schema",),
    "._validate": ("ValidationResult", "explain", "is_valid", "iter_errors", "validate", "validate_json"),
}

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__, submod_attrs={m[1:]: n for m, n in _EXPORTS.items()}
)
