"""`make check-generated` fails, naming `make generate`, when schema/ and generated/ disagree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
COPIED = [
    "codegen",
    "schema",
    "generated",
    "docs",
    "pyproject.toml",
    "tests/conformance",
    "runtime/toolresponse/http/_refs.py",
]


def copy_checkout(target: Path) -> Path:
    """Copy into ``target`` the parts of the repository that the generator reads and writes."""
    for name in COPIED:
        source = ROOT / name
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the parts of the repository that the generator reads and writes."""
    return copy_checkout(tmp_path_factory.mktemp("checkout"))


@pytest.fixture
def fresh_checkout(tmp_path: Path) -> Path:
    """A copy of its own, for a test that edits it."""
    return copy_checkout(tmp_path)


def check(checkout: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(checkout / "codegen" / "generate.py"), "--check"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )


def test_check_passes_on_the_committed_tree(checkout: Path) -> None:
    """The generated files in the repository are exactly what the schema gives."""
    result = check(checkout)
    assert (0, "") == (result.returncode, result.stdout)


def test_editing_the_schema_without_regenerating_fails_with_a_diff_and_the_command(checkout: Path) -> None:
    """A new error-code meaning in the schema makes the check fail, show the diff and name `make generate`."""
    path = checkout / "schema" / "v1" / "error-code.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["x-enum-descriptions"][0] = "Nothing by that name exists (edited)."
    path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")

    result = check(checkout)

    assert 1 == result.returncode
    assert "+            description='Nothing by that name exists (edited).'," in result.stdout
    assert "Run `make generate`" in result.stderr
    assert "error_codes.py" in result.stderr


def test_generating_again_brings_the_copy_back_in_step(checkout: Path) -> None:
    """After `make generate` (the generator in write mode) the check passes again."""
    subprocess.run(
        [sys.executable, str(checkout / "codegen" / "generate.py")],
        cwd=checkout,
        capture_output=True,
        check=True,
    )
    assert 0 == check(checkout).returncode


GENERATED = "generated/python/toolresponse_generated"


def edit_json(path: Path, edit: Any) -> None:
    content = json.loads(path.read_text(encoding="utf-8"))
    edit(content)
    path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")


def set_limit(document: dict[str, Any]) -> None:
    invoke = document["paths"]["/tools/{name}/invoke"]["post"]
    invoke["requestBody"]["x-max-body-bytes"] = 2048
    too_large = document["components"]["schemas"]["BodyTooLargeResponse"]["allOf"][1]
    too_large["properties"]["error_info"]["properties"]["details"]["properties"]["limit_bytes"]["const"] = (
        2048
    )


def test_a_new_body_limit_in_the_binding_document_makes_the_check_fail(fresh_checkout: Path) -> None:
    """A new body limit in the OpenAPI document, not regenerated, shows in the diff of the constants, the
    copy and the resolved document."""
    edit_json(fresh_checkout / "schema" / "v1" / "http-binding.openapi.json", set_limit)

    result = check(fresh_checkout)

    assert 1 == result.returncode
    assert "+MAX_BODY_BYTES: Final = 2048" in result.stdout
    for name in ("http_binding.py", "http-binding.openapi.json", "http-binding.resolved.openapi.json"):
        assert f"{GENERATED}/{name}" in result.stderr
    assert "Run `make generate`" in result.stderr


def test_an_edited_http_fixture_makes_the_check_fail_until_generated(fresh_checkout: Path) -> None:
    """The shipped copy of an HTTP fixture file is drift-checked, and make generate brings it back."""
    fixture = fresh_checkout / "tests" / "conformance" / "v1" / "http" / "routing.json"
    text = fixture.read_text(encoding="utf-8")
    fixture.write_text(text.replace('"/conformance/no-such-path"', '"/conformance/edited"'), encoding="utf-8")

    result = check(fresh_checkout)

    assert 1 == result.returncode
    assert f"{GENERATED}/conformance/http/routing.json" in result.stderr
    assert '"path": "/conformance/edited"}' in result.stdout
    subprocess.run(
        [sys.executable, str(fresh_checkout / "codegen" / "generate.py")],
        cwd=fresh_checkout,
        capture_output=True,
        check=True,
    )
    assert 0 == check(fresh_checkout).returncode


def test_a_copied_fixture_whose_source_is_gone_is_stale(fresh_checkout: Path) -> None:
    """A fixture copy with no source in tests/conformance/v1/http fails the check, naming both."""
    (fresh_checkout / GENERATED / "conformance" / "http" / "gone.json").write_text("[]\n", encoding="utf-8")

    result = check(fresh_checkout)

    assert 1 == result.returncode
    assert f"{GENERATED}/conformance/http/gone.json: no longer in tests/conformance/v1/http" in result.stdout


def test_a_document_that_contradicts_itself_fails_the_check_with_the_reason(fresh_checkout: Path) -> None:
    """x-max-body-bytes that differs from the 413 answer's limit_bytes stops the generator, saying so."""
    edit_json(
        fresh_checkout / "schema" / "v1" / "http-binding.openapi.json",
        lambda document: document["paths"]["/tools/{name}/invoke"]["post"]["requestBody"].update(
            {"x-max-body-bytes": 2048}
        ),
    )

    result = check(fresh_checkout)

    assert 1 == result.returncode
    assert "limit_bytes 1048576" in result.stderr
    assert "x-max-body-bytes is 2048" in result.stderr


@pytest.mark.parametrize(
    ("reference", "said"),
    [
        ({"$ref": "langchain.schema.json", "description": "x"}, "must stand alone"),
        ({"$ref": "langchain.schema.json#/properties/content"}, "must stand alone"),
        ({"$ref": "https://example.com/other.schema.json"}, "must stand alone"),
        ({"$ref": "langchain-dict.schema.json"}, "langchain-dict.schema.json -> langchain-dict.schema.json"),
    ],
    ids=["with siblings", "with a fragment", "another site", "to itself"],
)
def test_a_dialect_shape_the_runtime_could_not_compile_offline_stops_the_generator(
    fresh_checkout: Path, reference: dict[str, Any], said: str
) -> None:
    """A reference out of a dialect's document is one whole document of the folder, or the
    generator stops naming it (it would fail only when the dialect is first used)."""
    edit_json(
        fresh_checkout / "schema" / "v1" / "interop" / "langchain-dict.schema.json",
        lambda document: document["properties"].update({"data": reference}),
    )

    result = check(fresh_checkout)

    assert (1, True) == (result.returncode, said in result.stderr)


def test_a_document_referred_to_with_a_local_reference_stops_the_generator(fresh_checkout: Path) -> None:
    """A document another inlines may not refer within itself ("#/..."): copied into the other, the
    reference would be read against that one."""
    edit_json(
        fresh_checkout / "schema" / "v1" / "interop" / "langchain.schema.json",
        lambda document: document.update(
            {"$defs": {"text": {"type": "string"}}, "not": {"$ref": "#/$defs/text"}}
        ),
    )

    result = check(fresh_checkout)

    assert (1, True) == (result.returncode, "langchain.schema.json is referred to" in result.stderr)


TS_GENERATED = "packages/typescript/src/generated"


@pytest.fixture
def ts_checkout(tmp_path: Path) -> Path:
    """A copy of what the TypeScript generator reads and writes, with the repository's npm
    packages (the pinned generator tools) linked in."""
    checkout = copy_checkout(tmp_path)
    for name in ("package.json", "package-lock.json", "packages/typescript/package.json"):
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    shutil.copytree(ROOT / TS_GENERATED, checkout / TS_GENERATED)
    if not (ROOT / "node_modules" / "json-schema-to-typescript").is_dir():
        pytest.fail("node_modules is missing: run `make node-modules`")
    (checkout / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return checkout


def ts_check(checkout: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the TypeScript generator needs Node.js")
    return subprocess.run(
        [node, str(checkout / "codegen" / "typescript.mjs"), "--check"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_stale_bundle_in_the_typescript_package_fails_the_check(ts_checkout: Path) -> None:
    """The TypeScript package's schema.ts is the Python bundle's copy: a bundle changed (as `make
    generate` rewrites it after a schema edit) makes the TypeScript check fail on schema.ts."""
    edit_json(
        ts_checkout / GENERATED / "tool-response.v1.schema.json",
        lambda bundle: bundle["properties"]["text"].update({"description": "Edited."}),
    )

    result = ts_check(ts_checkout)

    assert 1 == result.returncode, result.stderr
    assert '+    text: { type: "string", description: "Edited." },' in result.stdout
    assert f"{TS_GENERATED}/schema.ts" in result.stderr
    assert "Run `make generate`" in result.stderr


def test_a_typescript_package_version_other_than_pyprojects_fails_the_check(ts_checkout: Path) -> None:
    """packages/typescript/package.json must carry pyproject.toml's version, and so must its lock entry."""
    manifest = ts_checkout / "packages" / "typescript" / "package.json"
    edit_json(manifest, lambda content: content.update(version="1.0.1"))

    result = ts_check(ts_checkout)

    assert 1 == result.returncode
    assert 'packages/typescript/package.json: version "1.0.1", not pyproject.toml\'s "1.0.0"' in result.stderr
    assert "package-lock.json" not in result.stderr
