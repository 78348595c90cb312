# The public API of ``toolresponse.validation``: one response, strict I-JSON, and the bulk API.
# Each name is declared here once; ``__init__.py`` reads these lines (lazy_loader).

from ._bulk import check as check
from ._checks import Judge as Judge
from ._checks import Options as Options
from ._checks import check_lines as check_lines
from ._ijson import parse_ijson as parse_ijson
from ._inputs import Record as Record
from ._inputs import Source as Source
from ._inputs import expand as expand
from ._jsondata import to_json_data as to_json_data
from ._report import report as report
from ._schema import bundled_schema as bundled_schema
from ._validate import ValidationResult as ValidationResult
from ._validate import is_valid as is_valid
from ._validate import iter_errors as iter_errors
from ._validate import validate as validate
from ._validate import validate_json as validate_json

__all__: list[str]
