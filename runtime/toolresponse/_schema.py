"""The ToolResponse v1 schema as shipped in the package, and the reference validator over it."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

from toolresponse_generated import BUNDLED_SCHEMA_NAME


@cache
def bundled_schema() -> dict[str, Any]:
    """The single-file v1 schema (references inlined), read once from the package."""
    text = resources.files("toolresponse_generated").joinpath(BUNDLED_SCHEMA_NAME).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def reference_validator() -> Draft202012Validator:
    """The reference engine: jsonschema's Draft 2020-12 validator, built once and reused."""
    return Draft202012Validator(bundled_schema())
