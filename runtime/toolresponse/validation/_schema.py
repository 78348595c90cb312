"""The ToolResponse v1 schema as shipped in the package."""

from __future__ import annotations

import json
import pkgutil
from functools import cache
from typing import Any

from toolresponse_generated import BUNDLED_SCHEMA_NAME


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
