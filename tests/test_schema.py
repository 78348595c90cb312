"""The v1 schema files: well-formed, stable identifiers, annotations that agree with their enums."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schema" / "v1"
SCHEMA_FILES = sorted(SCHEMA_DIR.glob("*.schema.json"))
EXAMPLES = sorted((SCHEMA_DIR / "examples").glob("*.json"))
ID_PREFIX = "https://toolresponse.dev/schema/v1/"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def split_validator() -> Draft202012Validator:
    """The reference validator over the split files, resolved through their $ids."""
    resources = [(load(path)["$id"], Resource.from_contents(load(path))) for path in SCHEMA_FILES]
    registry: Registry[Any] = Registry().with_resources(resources)
    return Draft202012Validator(load(SCHEMA_DIR / "tool-response.schema.json"), registry=registry)


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda path: path.name)
def test_schema_file_is_a_valid_2020_12_schema(path: Path) -> None:
    """Every schema file is a valid JSON Schema draft 2020-12 document."""
    schema = load(path)
    assert "https://json-schema.org/draft/2020-12/schema" == schema["$schema"]
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda path: path.name)
def test_schema_id_is_stable_and_carries_the_major_version(path: Path) -> None:
    """Each $id is the v1 prefix followed by the file's own name."""
    assert ID_PREFIX + path.name == load(path)["$id"]


def test_there_are_exactly_15_error_codes_each_fully_annotated() -> None:
    """The error-code enum has 15 codes, each with category, retryability, HTTP status, meaning and
    MCP ToolFailure class and code."""
    schema = load(SCHEMA_DIR / "error-code.schema.json")
    codes = schema["enum"]
    assert 15 == len(codes) == len(set(codes))
    assert len(codes) == len(schema["x-enum-descriptions"])
    assert all(isinstance(meaning, str) and meaning for meaning in schema["x-enum-descriptions"])
    assert sorted(codes) == sorted(schema["x-error-codes"])
    for code in codes:
        entry = schema["x-error-codes"][code]
        assert {"category", "retryable", "http_status", "x-mcp-tool-failure"} == set(entry), code
        assert isinstance(entry["retryable"], bool), code
        assert isinstance(entry["http_status"], int), code
        assert 400 <= entry["http_status"] <= 599, code
        failure = entry["x-mcp-tool-failure"]
        assert {"class", "code"} == set(failure), code
        assert failure["class"] in {"capability", "reliability", "governance"}, code
        assert isinstance(failure["code"], str), code
        assert failure["code"], code


def test_status_enum_is_the_three_statuses_with_descriptions() -> None:
    """The status enum lists success, partial and error, each described."""
    schema = load(SCHEMA_DIR / "status.schema.json")
    assert ["success", "partial", "error"] == schema["enum"]
    assert 3 == len(schema["x-enum-descriptions"])


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_example_validates_against_the_split_schema(path: Path) -> None:
    """Each file of schema/v1/examples is a valid ToolResponse."""
    assert [] == [error.message for error in split_validator().iter_errors(load(path))]


def test_examples_cover_every_status() -> None:
    """The examples show a success, a partial and an error response."""
    assert {"success", "partial", "error"} == {load(path)["status"] for path in EXAMPLES}


def test_bundle_and_split_schema_agree_on_the_examples_and_their_mutations() -> None:
    """The shipped single-file bundle gives the split schema's verdict on examples and broken copies."""
    bundle = Draft202012Validator(
        load(ROOT / "generated/python/toolresponse_generated/tool-response.v1.schema.json")
    )
    split = split_validator()
    instances: list[Any] = []
    for path in EXAMPLES:
        example = load(path)
        instances.append(example)
        for member in example:
            instances.append({key: value for key, value in example.items() if key != member})
            instances.append({**example, member: None})
    instances += [{**load(EXAMPLES[0]), "error": {}}, {**load(EXAMPLES[0]), "x-trace": 1}]
    assert [split.is_valid(item) for item in instances] == [bundle.is_valid(item) for item in instances]
