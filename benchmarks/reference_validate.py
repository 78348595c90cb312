"""The reference for ``validate_throughput.py``: stdlib ``json.loads`` and jsonschema, one line at a time.

One ``Draft202012Validator`` over the bundled v1 schema is built once and reused
for every line; ``is_valid`` gives the verdict and only an invalid line has its
errors listed (``iter_errors``), one output line per error, as ``toolresponse
validate`` does. It applies none of the I-JSON rules (stdlib ``json`` accepts
NaN and keeps the last of two equal member names), so it does less than the
validator it is compared with.

    python benchmarks/reference_validate.py FILE.jsonl
"""

from __future__ import annotations

import json
import sys
from importlib import resources

from jsonschema import Draft202012Validator

from toolresponse_generated import BUNDLED_SCHEMA_NAME


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: reference_validate.py FILE.jsonl", file=sys.stderr)
        return 2
    text = resources.files("toolresponse_generated").joinpath(BUNDLED_SCHEMA_NAME).read_text("utf-8")
    validator = Draft202012Validator(json.loads(text))
    valid = invalid = 0
    out = sys.stdout
    with open(argv[0], "rb") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                instance = json.loads(line)
            except ValueError as error:
                invalid += 1
                out.write(f"{number}: malformed JSON: {error}\n")
                continue
            if validator.is_valid(instance):
                valid += 1
                continue
            invalid += 1
            for failure in validator.iter_errors(instance):
                out.write(f"{number}: {failure.json_path}: {failure.message}\n")
    out.write(f"{valid} valid, {invalid} invalid\n")
    return 1 if invalid else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
