"""The Node conformance runner (ajv, draft 2020-12) agrees with jsonschema on every fixture.

``node tests/conformance/node/run-fixtures.mjs --json`` gives ajv's verdict on each
test of the fixtures; ``jsonschema.Draft202012Validator`` over the files of
``schema/v1`` (registered by ``$id``) is the reference. Both read
``tests/conformance/v1``, or the directory named by ``TOOLRESPONSE_CONFORMANCE_DIR``.
Node.js and the npm packages of ``package-lock.json`` are required (``make test``
installs the packages with ``npm ci``): without them these tests fail, never skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schema" / "v1"
RUNNER = ROOT / "tests" / "conformance" / "node" / "run-fixtures.mjs"
AJV_MANIFEST = ROOT / "node_modules" / "ajv" / "package.json"
ENV_FIXTURE_DIR = "TOOLRESPONSE_CONFORMANCE_DIR"
FIXTURE_DIR = Path(os.environ.get(ENV_FIXTURE_DIR) or ROOT / "tests" / "conformance" / "v1")
ROOT_SCHEMA_NAME = "tool-response.schema.json"
RUNNER_TIMEOUT_S = 120


@dataclass(frozen=True)
class FixtureTest:
    """One test of a fixture file, named as the Node runner names it."""

    id: str
    data: Any


def reference_validator() -> Draft202012Validator:
    """jsonschema's validator for a whole ToolResponse, every schema registered by ``$id``."""
    schemas = {
        path.name: json.loads(path.read_text(encoding="utf-8")) for path in SCHEMA_DIR.glob("*.schema.json")
    }
    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], DRAFT202012.create_resource(schema)) for schema in schemas.values()
    )
    return Draft202012Validator(schemas[ROOT_SCHEMA_NAME], registry=registry)


def fixture_tests(fixture_dir: Path) -> list[FixtureTest]:
    """Every test of every fixture file, as ``<file>::<description>``."""
    tests: list[FixtureTest] = []
    for path in sorted(fixture_dir.glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            tests.extend(
                FixtureTest(f"{path.name}::{test['description']}", test["data"]) for test in group["tests"]
            )
    return tests


FIXTURE_TESTS = fixture_tests(FIXTURE_DIR)


def run_node_runner(*arguments: str, fixture_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the Node runner with a fixed argument list (no shell); fail the test if it cannot run."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: install Node.js 18 or later (`make test` runs the Node runner)")
    if not AJV_MANIFEST.is_file():
        pytest.fail("node_modules is missing: run `npm ci` at the repository root (`make test` does it)")
    environment = dict(os.environ)
    if fixture_dir is not None:
        environment[ENV_FIXTURE_DIR] = str(fixture_dir)
    return subprocess.run(
        [node, str(RUNNER), *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=RUNNER_TIMEOUT_S,
        check=False,
    )


@pytest.fixture(scope="module")
def ajv_verdicts() -> dict[str, bool]:
    """ajv's verdict on each fixture test, by id, from one run of the Node runner."""
    completed = run_node_runner("--json", fixture_dir=FIXTURE_DIR)
    assert completed.returncode in (0, 1), completed.stderr
    report: dict[str, Any] = json.loads(completed.stdout)
    return {result["id"]: result["valid"] for result in report["results"]}


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    """The reference validator."""
    return reference_validator()


def test_node_runner_reports_every_fixture_test(ajv_verdicts: dict[str, bool]) -> None:
    """The Node runner gives a verdict on exactly the fixture tests that exist."""
    expected = sorted(test.id for test in FIXTURE_TESTS)
    actual = sorted(ajv_verdicts)
    assert expected == actual


@pytest.mark.parametrize("test", FIXTURE_TESTS, ids=lambda test: test.id)
def test_ajv_verdict_equals_jsonschema_verdict(
    test: FixtureTest, ajv_verdicts: dict[str, bool], validator: Draft202012Validator
) -> None:
    """ajv and jsonschema give each fixture test the same verdict."""
    expected = validator.is_valid(test.data)
    actual = ajv_verdicts[test.id]
    assert expected == actual


def test_node_runner_passes_the_fixtures() -> None:
    """On the fixtures the Node runner exits 0 and closes with "N passed, 0 failed"."""
    completed = run_node_runner(fixture_dir=FIXTURE_DIR)
    expected = (0, f"{len(FIXTURE_TESTS)} passed, 0 failed")
    actual = (completed.returncode, completed.stdout.splitlines()[-1])
    assert expected == actual, completed.stdout + completed.stderr


BROKEN_FIXTURES: list[tuple[str, dict[str, str], tuple[int, str]]] = [
    (
        "a wrong verdict fails",
        {
            "wrong.json": json.dumps(
                [
                    {
                        "description": "one wrong verdict",
                        "tests": [
                            {
                                "description": "error without error_info labelled valid",
                                "data": {"status": "error", "text": "Failed."},
                                "valid": True,
                            },
                            {
                                "description": "plain success labelled valid",
                                "data": {"status": "success", "text": "Done."},
                                "valid": True,
                            },
                        ],
                    }
                ]
            )
        },
        (1, "1 passed, 1 failed"),
    ),
    (
        "a fixture file that is not JSON fails",
        {"broken.json": "[{"},
        (1, "0 passed, 1 failed"),
    ),
    (
        "a fixture file off the fixture schema fails",
        {"shapeless.json": json.dumps([{"description": "no tests member"}])},
        (1, "0 passed, 1 failed"),
    ),
]


@pytest.mark.parametrize(
    ("files", "expected"), [case[1:] for case in BROKEN_FIXTURES], ids=[c[0] for c in BROKEN_FIXTURES]
)
def test_node_runner_fails_on_broken_fixtures(
    files: dict[str, str], expected: tuple[int, str], tmp_path: Path
) -> None:
    """The Node runner exits 1 and counts the failure when a verdict or a fixture file is wrong."""
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    completed = run_node_runner(fixture_dir=tmp_path)
    actual = (completed.returncode, completed.stdout.splitlines()[-1])
    assert expected == actual


def test_node_runner_refuses_an_empty_fixture_directory(tmp_path: Path) -> None:
    """With no fixture file the Node runner exits 2, naming the directory, rather than passing on nothing."""
    completed = run_node_runner(fixture_dir=tmp_path)
    expected = (
        2,
        f"tests/conformance/node/run-fixtures.mjs: fixture directory {tmp_path} holds no .json file",
    )
    actual = (completed.returncode, completed.stderr.strip())
    assert expected == actual
