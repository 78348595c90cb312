"""The language-neutral conformance fixtures, run against the reference validator.

The fixtures live in ``tests/conformance/v1`` (or in the directory named by the
environment variable ``TOOLRESPONSE_CONFORMANCE_DIR``). The reference validator
is ``jsonschema.Draft202012Validator`` over the files of ``schema/v1``,
registered by their ``$id``; ``tool-response.schema.json`` is the root.

The HTTP fixtures of ``v1/http`` are requests to a server and the answers they
must get; ``toolresponse conformance URL`` runs them. Here they are checked as
files: against the fixture schema, for unique declarative descriptions, for
codes the schema has, and for the body limit the binding document states. The
MCP mapping fixtures of ``v1/mcp`` are checked as files here too;
``tests/test_mcp_mapping.py`` runs them.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry
from referencing.jsonschema import DRAFT202012, Schema

TESTS_DIR = Path(__file__).resolve().parent
SCHEMA_DIR = TESTS_DIR.parent / "schema" / "v1"
EXAMPLES_DIR = SCHEMA_DIR / "examples"
ROOT_SCHEMA_ID = "https://toolresponse.dev/schema/v1/tool-response.schema.json"
ERROR_CODE_SCHEMA_ID = "https://toolresponse.dev/schema/v1/error-code.schema.json"
FIXTURE_SCHEMA_PATH = TESTS_DIR / "conformance" / "fixture.schema.json"
FIXTURE_DIR = Path(os.environ.get("TOOLRESPONSE_CONFORMANCE_DIR") or TESTS_DIR / "conformance" / "v1")
HTTP_FIXTURE_DIR = FIXTURE_DIR / "http"
MCP_FIXTURE_DIR = FIXTURE_DIR / "mcp"
BINDING_DOCUMENT_PATH = SCHEMA_DIR / "http-binding.openapi.json"
FORBIDDEN_WORDS = ("should", "test that")
MIN_TEST_COUNT = 100


@dataclass(frozen=True)
class ExpectedError:
    """Where an invalid instance fails: a JSON pointer and a schema keyword."""

    pointer: str
    keyword: str


@dataclass(frozen=True)
class ConformanceCase:
    """One test of a fixture file: an instance and the verdict it gets."""

    file_name: str
    description: str
    data: Any
    valid: bool
    error: ExpectedError | None

    @property
    def id(self) -> str:
        """A readable pytest id: ``<file>::<description>``."""
        return f"{self.file_name}::{self.description}"


def load_json(path: Path) -> Any:
    """The parsed JSON content of ``path``."""
    return json.loads(path.read_text(encoding="utf-8"))


def load_schemas() -> dict[str, dict[str, Any]]:
    """Every schema of schema/v1, keyed by its ``$id``."""
    schemas: dict[str, dict[str, Any]] = {}
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        contents: dict[str, Any] = load_json(path)
        schemas[contents["$id"]] = contents
    return schemas


def build_registry(schemas: dict[str, dict[str, Any]]) -> Registry[Schema]:
    """A registry holding every schema of schema/v1 under its ``$id``."""
    resources = [
        (schema_id, DRAFT202012.create_resource(contents)) for schema_id, contents in schemas.items()
    ]
    return Registry().with_resources(resources)


def fixture_paths() -> list[Path]:
    """The schema fixture files, sorted by name."""
    return sorted(FIXTURE_DIR.glob("*.json"))


def http_fixture_paths() -> list[Path]:
    """The HTTP fixture files, sorted by name."""
    return sorted(HTTP_FIXTURE_DIR.glob("*.json"))


def mcp_fixture_paths() -> list[Path]:
    """The MCP mapping fixture files, sorted by name."""
    return sorted(MCP_FIXTURE_DIR.glob("*.json"))


def all_fixture_paths() -> list[Path]:
    """Every fixture file, schema, HTTP and MCP mapping."""
    return [*fixture_paths(), *http_fixture_paths(), *mcp_fixture_paths()]


def fixture_id(path: Path) -> str:
    """``status.json``, ``http/invoke.json``."""
    return path.relative_to(FIXTURE_DIR).as_posix()


def fixture_groups(path: Path) -> list[dict[str, Any]]:
    """The groups of one fixture file, or none when it does not parse."""
    try:
        content: Any = load_json(path)
    except json.JSONDecodeError:
        return []
    groups: list[dict[str, Any]] = content if FIXTURE_VALIDATOR.is_valid(content) else []
    return groups


def conformance_cases() -> list[ConformanceCase]:
    """One case per test of every well-formed fixture file."""
    cases: list[ConformanceCase] = []
    for path in fixture_paths():
        for group in fixture_groups(path):
            for test in group["tests"]:
                error: dict[str, str] | None = test.get("error")
                cases.append(
                    ConformanceCase(
                        file_name=path.name,
                        description=test["description"],
                        data=test["data"],
                        valid=test["valid"],
                        error=None if error is None else ExpectedError(**error),
                    )
                )
    return cases


def all_descriptions() -> list[str]:
    """Every group and test description of every well-formed fixture file."""
    descriptions: list[str] = []
    for path in all_fixture_paths():
        for group in fixture_groups(path):
            descriptions.append(group["description"])
            descriptions.extend(test["description"] for test in group["tests"])
    return descriptions


def json_pointer(path: Iterable[str | int]) -> str:
    """The RFC 6901 JSON pointer of an instance path ("" for the root)."""
    tokens = [str(token).replace("~", "~0").replace("/", "~1") for token in path]
    return "/" + "/".join(tokens) if tokens else ""


def walk_errors(errors: Iterable[ValidationError]) -> Iterator[ValidationError]:
    """Every error of an error tree, descending into ``error.context``."""
    for error in errors:
        yield error
        yield from walk_errors(error.context)


SCHEMAS = load_schemas()
FIXTURE_SCHEMA: dict[str, Any] = load_json(FIXTURE_SCHEMA_PATH)
FIXTURE_VALIDATOR = Draft202012Validator(FIXTURE_SCHEMA)
CASES = conformance_cases()


def http_tests() -> list[dict[str, Any]]:
    """Every test of every well-formed HTTP fixture file."""
    return [
        test for path in http_fixture_paths() for group in fixture_groups(path) for test in group["tests"]
    ]


HTTP_TESTS = http_tests()


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    """The reference validator for a ToolResponse v1."""
    registry = build_registry(SCHEMAS)
    return Draft202012Validator(SCHEMAS[ROOT_SCHEMA_ID], registry=registry)


def test_fixture_schema_is_a_valid_draft_2020_12_schema() -> None:
    """fixture.schema.json is itself a valid JSON Schema 2020-12."""
    Draft202012Validator.check_schema(FIXTURE_SCHEMA)


def test_fixture_directory_holds_fixture_files() -> None:
    """The fixture directory holds at least one fixture file."""
    assert fixture_paths()


@pytest.mark.parametrize("path", all_fixture_paths(), ids=fixture_id)
def test_fixture_file_matches_fixture_schema(path: Path) -> None:
    """Every fixture file, schema or HTTP, is valid against fixture.schema.json."""
    content: Any = load_json(path)
    expected: list[str] = []
    actual = [
        f"{json_pointer(error.absolute_path)}: {error.message}"
        for error in FIXTURE_VALIDATOR.iter_errors(content)
    ]
    assert expected == actual


def test_descriptions_are_unique_across_all_files() -> None:
    """No two groups or tests share a description, across all fixture files."""
    expected: list[str] = []
    actual = sorted(description for description, count in Counter(all_descriptions()).items() if count > 1)
    assert expected == actual


def test_descriptions_are_declarative() -> None:
    """No description says "should" or "test that"."""
    expected: list[str] = []
    actual = [
        description
        for description in all_descriptions()
        if any(word in description.lower() for word in FORBIDDEN_WORDS)
    ]
    assert expected == actual


def test_fixtures_hold_at_least_the_minimum_number_of_tests() -> None:
    """The fixtures hold at least 100 tests in total."""
    assert len(CASES) >= MIN_TEST_COUNT


def test_every_error_code_has_a_valid_fixture() -> None:
    """Each code of error-code.schema.json appears in at least one valid test."""
    codes: list[str] = SCHEMAS[ERROR_CODE_SCHEMA_ID]["enum"]
    covered = {
        case.data["error_info"].get("code")
        for case in CASES
        if case.valid and isinstance(case.data, dict) and isinstance(case.data.get("error_info"), dict)
    }
    expected: list[str] = []
    actual = [code for code in codes if code not in covered]
    assert expected == actual


@pytest.mark.parametrize("path", sorted(EXAMPLES_DIR.glob("*.json")), ids=lambda path: path.name)
def test_schema_example_is_a_valid_fixture(path: Path) -> None:
    """Every file of schema/v1/examples is the data of some valid fixture test."""
    example: Any = load_json(path)
    valid_data = [case.data for case in CASES if case.valid]
    assert example in valid_data


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_conformance(case: ConformanceCase, validator: Draft202012Validator) -> None:
    """The reference validator gives each fixture its verdict and error location."""
    errors = list(walk_errors(validator.iter_errors(case.data)))
    expected_valid = case.valid
    actual_valid = not errors
    assert expected_valid == actual_valid
    if case.error is not None:
        actual_errors = {
            ExpectedError(json_pointer(error.absolute_path), str(error.validator)) for error in errors
        }
        assert case.error in actual_errors


def test_http_fixture_directory_holds_fixture_files() -> None:
    """The HTTP fixture directory holds at least one fixture file with tests."""
    assert http_fixture_paths()
    assert HTTP_TESTS


@pytest.mark.parametrize(
    ("paths", "kind"),
    [(fixture_paths, "data"), (http_fixture_paths, "request"), (mcp_fixture_paths, "direction")],
    ids=["schema files hold schema tests", "HTTP files hold HTTP tests", "MCP files hold MCP mapping tests"],
)
def test_each_fixture_file_holds_one_kind_of_test(paths: Any, kind: str) -> None:
    """v1/*.json holds only schema tests (data), v1/http/*.json only HTTP tests (request) and
    v1/mcp/*.json only MCP mapping tests (direction), so that a runner of each kind reads its
    directory without sorting tests."""
    expected: list[str] = []
    actual = [
        f"{fixture_id(path)}::{test['description']}"
        for path in paths()
        for group in fixture_groups(path)
        for test in group["tests"]
        if kind not in test
    ]
    assert expected == actual


def test_http_fixtures_name_codes_of_the_schema() -> None:
    """Every code an HTTP fixture expects or rules out is a code of error-code.schema.json."""
    codes = set(SCHEMAS[ERROR_CODE_SCHEMA_ID]["enum"])
    named = {test["response"].get(member) for test in HTTP_TESTS for member in ("code", "not_code")} - {None}
    assert set() == named - codes


def test_http_fixture_statuses_are_the_binding_statuses() -> None:
    """A status an HTTP fixture requires is the status error-code.schema.json gives its code, or one of
    the binding's two exceptions (the body limit's 413, the missing method's 405)."""
    document = load_json(BINDING_DOCUMENT_PATH)
    code_status = {
        code: entry["http_status"] for code, entry in SCHEMAS[ERROR_CODE_SCHEMA_ID]["x-error-codes"].items()
    }
    allowed = {
        (413, "INVALID_PARAM"),
        (document["x-method-not-allowed"]["status"], document["x-method-not-allowed"]["code"]),
    }
    expected: list[str] = []
    actual = [
        test["description"]
        for test in HTTP_TESTS
        if "status" in test["response"]
        and (test["response"]["status"], test["response"].get("code")) not in allowed
        and code_status.get(test["response"].get("code")) != test["response"]["status"]
    ]
    assert expected == actual


def test_http_body_limit_fixtures_sit_at_the_documented_limit() -> None:
    """The padded bodies are the document's x-max-body-bytes and one byte more, and a 413 fixture expects
    that limit in details.limit_bytes."""
    document = load_json(BINDING_DOCUMENT_PATH)
    limit = document["paths"]["/tools/{name}/invoke"]["post"]["requestBody"]["x-max-body-bytes"]
    sizes = sorted(
        {
            test["request"]["body"]["pad_to_bytes"]
            for test in HTTP_TESTS
            if "pad_to_bytes" in test["request"].get("body", {})
        }
    )
    refused = [
        test["response"].get("details") for test in HTTP_TESTS if test["response"].get("status") == 413
    ]
    assert [limit, limit + 1] == sizes
    assert refused
    assert all({"limit_bytes": limit} == details for details in refused)
