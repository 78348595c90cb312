"""Validate the example responses shipped with the schema and print a verdict for each."""

from __future__ import annotations

import json
from importlib import resources
from typing import TextIO

from ..validation import validate


def main(out: TextIO) -> int:
    examples = resources.files("toolresponse_generated").joinpath("examples")
    names = sorted(entry.name for entry in examples.iterdir() if entry.name.endswith(".json"))
    invalid = 0
    for name in names:
        response = json.loads(examples.joinpath(name).read_text("utf-8"))
        result = validate(response)
        status = response.get("status", "?") if isinstance(response, dict) else "?"
        verdict = "valid" if result.valid else "INVALID"
        print(f"  {name:<26} {status:<8} {verdict}", file=out)
        for error in result.errors:
            print(f"      {error.pointer or '/'}: {error.message} [{error.keyword}]", file=out)
        invalid += not result.valid
    print(f"  {len(names) - invalid} valid, {invalid} invalid", file=out)
    return 1 if invalid else 0
