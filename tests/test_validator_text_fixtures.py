"""The language-neutral I-JSON text fixtures (``tests/conformance/v1/ijson/``), run by every engine.

Each test is JSON text and its verdict. The text goes through ``validate_json``
with both engines and through the bulk path (``check_lines``: orjson, the I-JSON
screens and jsonschema-rs); all of them must give the verdict, and an invalid text
the expected pointer and rule.
``TOOLRESPONSE_CONFORMANCE_DIR`` points the loader at another copy, as for the
schema fixtures.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolresponse.validation import Options, check_lines, validate_json

TESTS_DIR = Path(__file__).resolve().parent
FIXTURE_DIR = Path(os.environ.get("TOOLRESPONSE_CONFORMANCE_DIR") or TESTS_DIR / "conformance" / "v1")
TEXT_DIR = FIXTURE_DIR / "ijson"
FIXTURE_SCHEMA = json.loads((TESTS_DIR / "conformance" / "fixture.schema.json").read_text(encoding="utf-8"))


def _files() -> list[Path]:
    return sorted(TEXT_DIR.glob("*.json"))


def _cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{path.name}::{test['description']}", test)
        for path in _files()
        for group in json.loads(path.read_text(encoding="utf-8"))
        for test in group["tests"]
    ]


CASES = _cases()


def test_there_are_text_fixtures() -> None:
    """The ijson/ directory holds fixtures, each file valid against the fixture schema."""
    validator = Draft202012Validator(FIXTURE_SCHEMA)
    assert _files()
    for path in _files():
        assert [] == [error.message for error in validator.iter_errors(json.loads(path.read_text("utf-8")))]
    assert all("json" in test for _, test in CASES)


def test_descriptions_are_unique_and_declarative() -> None:
    """No two text tests share a description, and none says "should" or "test that"."""
    descriptions = [test["description"] for _, test in CASES]
    assert len(descriptions) == len(set(descriptions))
    assert not [text for text in descriptions if "should" in text.lower() or "test that" in text.lower()]


@pytest.mark.parametrize(("case_id", "test"), CASES, ids=[case_id for case_id, _ in CASES])
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_validate_json_gives_the_verdict(case_id: str, test: dict[str, Any], engine: Any) -> None:
    """validate_json's verdict, pointer and rule are the fixture's."""
    result = validate_json(test["json"].encode("utf-8"), engine=engine)
    assert test["valid"] == result.valid
    if not test["valid"]:
        assert (test["error"]["pointer"], test["error"]["keyword"]) == (
            result.errors[0].pointer,
            result.errors[0].keyword,
        )


@pytest.mark.parametrize(("case_id", "test"), CASES, ids=[case_id for case_id, _ in CASES])
def test_the_bulk_path_gives_the_verdict(case_id: str, test: dict[str, Any]) -> None:
    """As a JSON line, the same verdict, and an invalid line the fixture's pointer and rule (a blank
    line, which JSON lines skip, has none)."""
    batch = check_lines("fixture", [test["json"].encode("utf-8") + b"\n"], 1, Options())
    assert test["valid"] == (batch.valid == 1)
    if not test["valid"] and test["json"].strip(" \t\r\n"):
        first = batch.records[0].errors[0]
        assert (test["error"]["pointer"], test["error"]["keyword"]) == (first.pointer, first.keyword)
