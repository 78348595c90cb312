"""The ToolResponse v1 schema as shipped in the package, and the reference validator over it."""

from __future__ import annotations

import json
import pkgutil
from functools import cache
from typing import TYPE_CHECKING, Any

from toolresponse_generated import BUNDLED_SCHEMA_NAME

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@cache
def bundled_schema() -> dict[str, Any]:
    """The single-file v1 schema (references inlined), read once from the package.

    ``pkgutil.get_data`` asks the package's own loader (a zip works too) and, unlike
    ``importlib.resources``, costs nothing to import: the CLI starts faster.
    """
    data = pkgutil.get_data("toolresponse_generated", BUNDLED_SCHEMA_NAME)
    if data is None:
        raise FileNotFoundError(f"the package toolresponse_generated has no {BUNDLED_SCHEMA_NAME}")
    schema: dict[str, Any] = json.loads(data)
    return schema


@cache
def reference_validator() -> Draft202012Validator:
    """The reference engine: jsonschema's Draft 2020-12 validator, built once and reused.

    jsonschema is imported here, on first use: the fast path never needs it.
    """
    from jsonschema import Draft202012Validator

    return Draft202012Validator(bundled_schema())
