"""What ``make generate`` derives from the HTTP binding document, and what the runtime takes from it.

The runtime's binding constants equal what ``schema/v1/http-binding.openapi.json`` says, read here
straight from the document by JSON pointer; the generator refuses a document that contradicts
itself or the per-code metadata, and a reference it cannot place; and the code base has one
``$ref`` rewriter.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from toolresponse import ErrorCode
from toolresponse.http import _app, _conformance
from toolresponse.http._refs import rewrite_refs
from toolresponse_generated import ERROR_CODE_INFO, http_binding

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schema" / "v1"
DOCUMENT: dict[str, Any] = json.loads((SCHEMA_DIR / "http-binding.openapi.json").read_text(encoding="utf-8"))
ERROR_CODES: dict[str, Any] = json.loads((SCHEMA_DIR / "error-code.schema.json").read_text(encoding="utf-8"))


def load_generator() -> ModuleType:
    """codegen/generate.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location(
        "toolresponse_codegen_generate", ROOT / "codegen" / "generate.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


GENERATOR = load_generator()


def at(pointer: str, document: Any = DOCUMENT) -> Any:
    """The value at an RFC 6901 JSON pointer."""
    node = document
    for token in pointer.removeprefix("/").split("/"):
        key = token.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


INVOKE = "/paths/~1tools~1{name}~1invoke/post"
CALL_ID = "/components/parameters/CallId"

DOCUMENT_STATES: list[tuple[str, Any, Any]] = [
    ("body limit", http_binding.MAX_BODY_BYTES, at(f"{INVOKE}/requestBody/x-max-body-bytes")),
    (
        "body limit in the 413 answer",
        http_binding.MAX_BODY_BYTES,
        at(
            "/components/schemas/BodyTooLargeResponse/allOf/1/properties/error_info/properties/details"
            "/properties/limit_bytes/const"
        ),
    ),
    (
        "413 code",
        http_binding.BODY_TOO_LARGE_CODE.value,
        at("/components/schemas/BodyTooLargeResponse/allOf/1/properties/error_info/properties/code/const"),
    ),
    ("413 status", http_binding.BODY_TOO_LARGE_STATUS, 413 if f"{INVOKE}/responses/413" else None),
    ("call id header", http_binding.CALL_ID_HEADER, at(f"{CALL_ID}/name")),
    ("call id pattern", http_binding.CALL_ID_PATTERN, at(f"{CALL_ID}/schema/pattern")),
    ("call id min length", http_binding.CALL_ID_MIN_LENGTH, at(f"{CALL_ID}/schema/minLength")),
    ("call id max length", http_binding.CALL_ID_MAX_LENGTH, at(f"{CALL_ID}/schema/maxLength")),
    ("tool name pattern", http_binding.TOOL_NAME_PATTERN, at("/components/schemas/ToolName/pattern")),
    ("list path", http_binding.LIST_TOOLS_PATH, "/tools" if at("/paths/~1tools/get") else None),
    ("invoke path", http_binding.INVOKE_PATH, "/tools/{name}/invoke" if at(INVOKE) else None),
    ("tool name parameter", http_binding.TOOL_NAME_PARAMETER, at("/components/parameters/ToolName/name")),
    ("405 status", http_binding.METHOD_NOT_ALLOWED_STATUS, at("/x-method-not-allowed/status")),
    ("405 code", http_binding.METHOD_NOT_ALLOWED_CODE.value, at("/x-method-not-allowed/code")),
    ("405 header", http_binding.ALLOW_HEADER, at("/x-method-not-allowed/header")),
    ("401 status", http_binding.UNAUTHORIZED_STATUS, at("/x-unauthorized/status")),
    ("401 code", http_binding.UNAUTHORIZED_CODE.value, at("/x-unauthorized/code")),
    ("401 header", http_binding.AUTHENTICATE_HEADER, at("/x-unauthorized/header")),
    ("security scheme", http_binding.SECURITY_SCHEME, at("/x-unauthorized/scheme")),
    (
        "bearer scheme",
        http_binding.BEARER_SCHEME.lower(),
        at(f"/components/securitySchemes/{http_binding.SECURITY_SCHEME}/scheme"),
    ),
    (
        "401 code in its response schema",
        http_binding.UNAUTHORIZED_CODE.value,
        at("/components/schemas/UnauthorizedResponse/allOf/1/properties/error_info/properties/code/const"),
    ),
    ("408 status", http_binding.REQUEST_TIMEOUT_STATUS, at("/x-request-timeout/status")),
    ("408 code", http_binding.REQUEST_TIMEOUT_CODE.value, at("/x-request-timeout/code")),
    (
        "408 code in its response schema",
        http_binding.REQUEST_TIMEOUT_CODE.value,
        at("/components/schemas/RequestTimeoutResponse/allOf/1/properties/error_info/properties/code/const"),
    ),
    (
        "Retry-After statuses",
        sorted(http_binding.RETRY_AFTER_STATUSES),
        sorted(
            int(status)
            for status, response in at(f"{INVOKE}/responses").items()
            if "Retry-After" in at(response["$ref"].removeprefix("#")).get("headers", {})
        ),
    ),
    (
        "each code's status",
        {code.value: status for code, status in http_binding.HTTP_STATUS.items()},
        {code: entry["http_status"] for code, entry in ERROR_CODES["x-error-codes"].items()},
    ),
]


@pytest.mark.parametrize(
    ("runtime", "document"), [case[1:] for case in DOCUMENT_STATES], ids=[case[0] for case in DOCUMENT_STATES]
)
def test_the_runtime_constant_is_what_the_document_says(runtime: Any, document: Any) -> None:
    """Each binding constant the runtime uses equals the value at its place in the document."""
    assert document == runtime


def test_each_code_status_agrees_with_the_error_code_metadata() -> None:
    """The binding's status of each code is the one ERROR_CODE_INFO gives (both from x-error-codes)."""
    assert {code: info.http_status for code, info in ERROR_CODE_INFO.items()} == dict(
        http_binding.HTTP_STATUS
    )


def test_the_status_exceptions_are_the_413_405_401_and_408() -> None:
    """The only statuses that are not their code's: the body limit, the missing method, the missing
    bearer token and the body that did not arrive in time."""
    assert {
        413: ErrorCode.INVALID_PARAM,
        405: ErrorCode.NOT_FOUND,
        401: ErrorCode.ACCESS_DENIED,
        408: ErrorCode.TIMEOUT,
    } == dict(http_binding.STATUS_EXCEPTIONS)


HAND_WRITTEN = [
    *sorted((ROOT / "runtime" / "toolresponse" / "http").glob("*.py")),
    ROOT / "codegen" / "generate.py",
]


BINDING_VALUES = {
    http_binding.MAX_BODY_BYTES,
    http_binding.CALL_ID_HEADER,
    http_binding.CALL_ID_PATTERN,
    http_binding.CALL_ID_MAX_LENGTH,
    http_binding.TOOL_NAME_PATTERN,
    http_binding.LIST_TOOLS_PATH,
    http_binding.INVOKE_PATH,
    http_binding.MEDIA_TYPE,
    http_binding.RETRY_AFTER_HEADER,
    http_binding.BODY_TOO_LARGE_STATUS,
    http_binding.METHOD_NOT_ALLOWED_STATUS,
    *http_binding.RETRY_AFTER_STATUSES,
    http_binding.UNAUTHORIZED_STATUS,
    http_binding.AUTHENTICATE_HEADER,
    http_binding.BEARER_SCHEME,
    http_binding.REQUEST_TIMEOUT_STATUS,
}


def literals(path: Path) -> list[Any]:
    """The constants of a module's code, docstrings left out (comments are not in the tree)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and id(node) not in docstrings and not isinstance(node.value, bool)
    ]


@pytest.mark.parametrize("path", HAND_WRITTEN, ids=lambda path: path.name)
def test_no_hand_written_http_module_restates_a_binding_value(path: Path) -> None:
    """No binding value is a literal in the code of the HTTP runtime or the generator (docstrings
    aside): the runtime imports it, the generator reads it from the document."""
    assert [] == [value for value in literals(path) if value in BINDING_VALUES]


def rewriters(path: Path) -> list[str]:
    """The lines of ``path`` that assign a ``$ref``."""
    return [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"\[\"\$ref\"\]\s*=", line)
    ]


def test_the_code_base_has_one_ref_rewriter() -> None:
    """Only toolresponse/http/_refs.py assigns a $ref: the generator and the runner call it."""
    sources = [*sorted((ROOT / "runtime").rglob("*.py")), *sorted((ROOT / "codegen").glob("*.py"))]
    expected = {"runtime/toolresponse/http/_refs.py": ['out["$ref"] = target(ref)']}
    actual = {path.relative_to(ROOT).as_posix(): found for path in sources if (found := rewriters(path))}
    assert expected == actual
    assert GENERATOR.rewrite_refs.__code__.co_filename.endswith("_refs.py")
    assert _conformance.__dict__["rewrite_refs"] is rewrite_refs


# -- the generator's reading of the document ------------------------------------------------


def bundled() -> dict[str, Any]:
    schema: dict[str, Any] = GENERATOR.bundled_schema()
    return schema


def with_extra(ref: str) -> dict[str, Any]:
    document = copy.deepcopy(DOCUMENT)
    document["components"]["schemas"]["Extra"] = {"$ref": ref}
    return document


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("other.schema.json", "only the v1 schema"),
        ("tool-response.schema.json#/$defs/Nothing", "has no '#/\\$defs/Nothing'"),
        ("https://example.com/tool-response.schema.json", "only the v1 schema"),
    ],
)
def test_a_reference_that_cannot_be_placed_stops_the_generator(ref: str, message: str) -> None:
    """A $ref the generator cannot place in the resolved document stops it, rather than leave a schema
    unchecked."""
    with pytest.raises(SystemExit, match=message):
        GENERATOR.resolve_document(with_extra(ref), bundled())


@pytest.mark.parametrize(
    ("ref", "placed"),
    [
        ("tool-response.schema.json", "#/components/schemas/ToolResponseV1"),
        ("./tool-response.schema.json", "#/components/schemas/ToolResponseV1"),
        (
            "https://toolresponse.dev/schema/v1/tool-response.schema.json",
            "#/components/schemas/ToolResponseV1",
        ),
        ("tool-response.schema.json#/$defs/ErrorInfo", "#/components/schemas/ToolResponseV1.ErrorInfo"),
    ],
)
def test_references_to_the_v1_schema_are_placed(ref: str, placed: str) -> None:
    """Each way of naming the v1 schema (or one of its $defs) points into components/schemas."""
    resolved = GENERATOR.resolve_document(with_extra(ref), bundled())
    assert placed == resolved["components"]["schemas"]["Extra"]["$ref"]


def test_the_resolved_document_is_written_from_the_document_and_the_bundle() -> None:
    """The shipped resolved document is the generator's resolution of the document as it is now."""
    assert GENERATOR.resolve_document(DOCUMENT, bundled()) == _conformance.resolved_binding_document()


def constants(document: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = GENERATOR.BindingReader(document, ERROR_CODES).constants()
    return found


def edited(pointer: str, value: Any) -> dict[str, Any]:
    document = copy.deepcopy(DOCUMENT)
    parent, _, last = pointer.rpartition("/")
    container = at(parent, document)
    container[int(last) if isinstance(container, list) else last] = value
    return document


@pytest.mark.parametrize(
    ("pointer", "value", "message"),
    [
        pytest.param(
            f"{INVOKE}/requestBody/x-max-body-bytes", 2048, "limit_bytes 1048576", id="two body limits"
        ),
        pytest.param(
            f"{INVOKE}/requestBody/x-max-body-bytes", "1 MiB", "not a size", id="limit not a number"
        ),
        pytest.param(
            "/components/schemas/ErrorResponse400/allOf/1/properties/error_info/properties/code/enum",
            ["INVALID_PARAM", "INVALID_FORMAT"],
            "response 400 admits",
            id="a 400 code left out",
        ),
        pytest.param("/x-method-not-allowed/code", "NO_METHOD", "not a code", id="405 with an unknown code"),
        pytest.param(
            "/x-unauthorized/code", "TIMEOUT", "it admits ACCESS_DENIED", id="401 with another code"
        ),
        pytest.param("/x-unauthorized/scheme", "apiKey", "not an http security scheme", id="unknown scheme"),
        pytest.param("/security/1", {}, "does not name", id="security without the scheme"),
        pytest.param(
            "/x-request-timeout/status", 409, "admits the codes of its status", id="408 at another status"
        ),
        pytest.param(
            "/paths/~1tools/get/responses",
            {key: value for key, value in at("/paths/~1tools/get/responses").items() if key != "401"},
            "does not document the x-unauthorized",
            id="list without 401",
        ),
        pytest.param(f"{CALL_ID}/schema/pattern", "[!-~]+", "not anchored", id="unanchored call id pattern"),
    ],
)
def test_a_document_that_contradicts_itself_stops_the_generator(
    pointer: str, value: Any, message: str
) -> None:
    """The generator refuses a document that states a fact twice differently, or against the metadata."""
    with pytest.raises(SystemExit, match=message):
        constants(edited(pointer, value))


def test_the_generator_reads_a_changed_limit_everywhere() -> None:
    """A new limit, stated in x-max-body-bytes and in the 413 answer, becomes the generated limit."""
    document = edited(f"{INVOKE}/requestBody/x-max-body-bytes", 2048)
    at(
        "/components/schemas/BodyTooLargeResponse/allOf/1/properties/error_info/properties/details/properties/limit_bytes",
        document,
    )["const"] = 2048
    assert 2048 == constants(document)["MAX_BODY_BYTES"]


def test_the_app_checks_call_ids_with_the_generated_pattern() -> None:
    """The app's call-id check is the generated pattern, matched whole."""
    assert http_binding.CALL_ID_PATTERN == _app._CALL_ID.pattern
    assert "is 129 characters long, over 128" == _app._call_id_problem("c" * 129)
    assert _app._call_id_problem("call-1\n") is not None
