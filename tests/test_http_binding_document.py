"""The HTTP binding document, ``schema/v1/http-binding.openapi.json``, says what the schema says.

It references the v1 schema instead of copying it; every response of every
operation, the tool list included, is a ToolResponse; its invoke operation answers
200, 413, ``default`` and exactly the HTTP statuses of the error codes; each error
status admits exactly the codes whose ``http_status`` it is (read from
``error-code.schema.json``); and schemathesis, loading it from its path (the only
way its relative references resolve), rejects responses that break it, so that a
conformance run can never pass a non-conforming server in silence.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from schemathesis.core.result import Ok
from schemathesis.schemas import APIOperation as GenericAPIOperation
from schemathesis.schemas import BaseSchema

APIOperation = GenericAPIOperation[Any, Any, Any, Any]

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schema" / "v1"
DOCUMENT_PATH = SCHEMA_DIR / "http-binding.openapi.json"
ERROR_CODE_SCHEMA = json.loads((SCHEMA_DIR / "error-code.schema.json").read_text(encoding="utf-8"))
HTTP_STATUS: dict[str, int] = {
    code: entry["http_status"] for code, entry in ERROR_CODE_SCHEMA["x-error-codes"].items()
}
LIMIT_BYTES = 1048576
INVOKE_URL = "http://127.0.0.1/tools/echo/invoke"
LIST_URL = "http://127.0.0.1/tools"


def load_document() -> dict[str, Any]:
    """The binding document as JSON."""
    document: dict[str, Any] = json.loads(DOCUMENT_PATH.read_text(encoding="utf-8"))
    return document


def walk(node: Any) -> Iterator[tuple[str, Any]]:
    """Every (member name, value) pair of a JSON value, depth first."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item)


def error(code: str, **members: Any) -> dict[str, Any]:
    """An error ToolResponse with ``code``."""
    return {
        "status": "error",
        "text": "Failed.",
        "error_info": {"code": code, "message": "Failed.", **members},
    }


def response(status: int, body: Any, url: str = INVOKE_URL) -> httpx.Response:
    """A read httpx response with a JSON body, as a client would hold it."""
    method = "GET" if url == LIST_URL else "POST"
    answer = httpx.Response(status, json=body, request=httpx.Request(method, url))
    answer.elapsed = timedelta(0)
    return answer


def accepts(operation: APIOperation, answer: httpx.Response) -> bool:
    """Whether schemathesis finds the response conforming to the document."""
    return operation.is_valid_response(answer)


@pytest.fixture(scope="module")
def binding() -> BaseSchema:
    """The document loaded by schemathesis from its path."""
    return schemathesis.openapi.from_path(str(DOCUMENT_PATH))


@pytest.fixture(scope="module")
def invoke(binding: BaseSchema) -> APIOperation:
    """The invoke operation."""
    return binding["/tools/{name}/invoke"]["POST"]


@pytest.fixture(scope="module")
def list_tools(binding: BaseSchema) -> APIOperation:
    """The tool list operation."""
    return binding["/tools"]["GET"]


def test_document_is_valid_openapi_3_1() -> None:
    """openapi-spec-validator finds the document valid, its relative references resolved."""
    validator = pytest.importorskip(
        "openapi_spec_validator", reason="openapi-spec-validator is not installed (requirements/dev.txt)"
    )
    validator.validate(load_document(), base_uri=DOCUMENT_PATH.as_uri())


def test_schemathesis_loads_both_operations(binding: BaseSchema) -> None:
    """schemathesis finds the two operations of the binding."""
    expected = ["GET /tools", "POST /tools/{name}/invoke"]
    actual = sorted(
        result.ok().label if isinstance(result, Ok) else f"unloadable: {result.err()}"
        for result in binding.get_all_operations()
    )
    assert expected == actual


def test_document_references_the_schema_file_without_copying_it() -> None:
    """The only external reference is tool-response.schema.json, and nothing of the schema is copied."""
    members = list(walk(load_document()))
    expected: tuple[list[str], list[str]] = (["tool-response.schema.json"], [])
    actual = (
        sorted({value for key, value in members if key == "$ref" and not value.startswith("#")}),
        sorted(
            {key for key, _ in members if key in ("$id", "$defs", "x-error-codes", "x-enum-descriptions")}
        ),
    )
    assert expected == actual


def response_schema_chain(document: dict[str, Any], response: dict[str, Any]) -> list[str]:
    """The component schemas a documented response is built on: its schema, then each first member
    of ``allOf`` (or plain ``$ref``), down to the first schema that refers to another file."""
    if "$ref" in response:
        response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]]
    schema = response["content"]["application/json"]["schema"]
    chain: list[str] = []
    while True:
        ref = schema.get("$ref") or schema.get("allOf", [{}])[0].get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/components/schemas/"):
            return [*chain, str(ref)]
        name = ref.rsplit("/", 1)[-1]
        chain.append(name)
        schema = document["components"]["schemas"][name]


def test_every_response_of_every_operation_is_a_tool_response() -> None:
    """Every documented response, GET /tools's included, is built on the ToolResponse schema file."""
    document = load_document()
    chains = {
        f"{method.upper()} {path} {status}": response_schema_chain(document, response)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        for status, response in operation["responses"].items()
    }
    expected = {label: ["ToolResponse", "tool-response.schema.json"] for label in chains}
    actual = {label: chain[-2:] for label, chain in chains.items()}
    assert expected == actual
    assert ["ToolListResponse", "ToolResponse", "tool-response.schema.json"] == chains["GET /tools 200"]


def test_invoke_answers_the_status_of_every_code() -> None:
    """The invoke operation documents 200, 401, 408, 413, default and each code's status, nothing else."""
    responses = load_document()["paths"]["/tools/{name}/invoke"]["post"]["responses"]
    expected = sorted(
        {"200", "401", "408", "413", "default", *(str(status) for status in HTTP_STATUS.values())}
    )
    actual = sorted(responses)
    assert expected == actual


def test_every_invoke_response_is_json() -> None:
    """Every documented invoke response, default included, has an application/json body."""
    document = load_document()
    responses = document["paths"]["/tools/{name}/invoke"]["post"]["responses"]
    named = document["components"]["responses"]
    actual = {
        status: sorted(named[entry["$ref"].rsplit("/", 1)[-1]]["content"])
        for status, entry in responses.items()
    }
    expected: dict[str, list[str]] = {status: ["application/json"] for status in responses}
    assert expected == actual


STATUSES = sorted({200, 413, 418, *HTTP_STATUS.values()})


@pytest.mark.parametrize("code", sorted(HTTP_STATUS))
def test_an_error_is_accepted_only_with_its_code_status(code: str, invoke: APIOperation) -> None:
    """An error ToolResponse conforms under its code's HTTP status (or an undocumented one), never another."""
    expected = sorted({HTTP_STATUS[code], 418})
    actual = [status for status in STATUSES if accepts(invoke, response(status, error(code)))]
    assert expected == actual


def tool(name: str = "add", parameters: Any = None, **members: Any) -> dict[str, Any]:
    """One entry of a tool list."""
    return {
        "name": name,
        "description": "Add.",
        "parameters": {"type": "object"} if parameters is None else parameters,
        "output_schema": None,
        **members,
    }


def tool_list(*tools: dict[str, Any], **members: Any) -> dict[str, Any]:
    """A tool list answer: a success ToolResponse whose data has the tools."""
    return {"status": "success", "text": f"{len(tools)} tools", "data": {"tools": list(tools)}, **members}


CANARIES: list[tuple[str, str, int, Any, bool]] = [
    ("success at 200", "invoke", 200, {"status": "success", "text": "Done."}, True),
    ("partial at 200", "invoke", 200, {"status": "partial", "text": "First 10 of 50."}, True),
    ("error at 200", "invoke", 200, error("NOT_FOUND"), False),
    ("success under an undocumented status", "invoke", 418, {"status": "success", "text": "Done."}, False),
    ("unknown status value", "invoke", 200, {"status": "done", "text": "Done."}, False),
    ("unknown error code", "invoke", 400, error("BAD_INPUT"), False),
    (
        "member that is neither defined nor x-",
        "invoke",
        200,
        {"status": "success", "text": "", "ok": 1},
        False,
    ),
    ("x- member", "invoke", 200, {"status": "success", "text": "", "x-trace": "a1"}, True),
    ("error without error_info", "invoke", 500, {"status": "error", "text": "Failed."}, False),
    ("framework error body", "invoke", 500, {"detail": "Internal Server Error"}, False),
    ("bare string body", "invoke", 400, "error: bad input", False),
    (
        "body over the limit",
        "invoke",
        413,
        error("INVALID_PARAM", details={"limit_bytes": LIMIT_BYTES}),
        True,
    ),
    ("body over the limit without limit_bytes", "invoke", 413, error("INVALID_PARAM"), False),
    (
        "body over the limit with another limit",
        "invoke",
        413,
        error("INVALID_PARAM", details={"limit_bytes": 1}),
        False,
    ),
    (
        "body over the limit as INVALID_FORMAT",
        "invoke",
        413,
        error("INVALID_FORMAT", details={"limit_bytes": LIMIT_BYTES}),
        False,
    ),
    ("wrong method answered NOT_FOUND", "invoke", 405, error("NOT_FOUND"), True),
    ("tool list", "list", 200, tool_list(tool()), True),
    ("empty tool list", "list", 200, tool_list(), True),
    (
        "tool list with stats, context and x- members",
        "list",
        200,
        tool_list(tool(**{"x-owner": "me"}), stats={"time_ms": 1}, context={"call_id": "c"}, **{"x-a": 1}),
        True,
    ),
    ("tool list as a bare ToolList", "list", 200, {"tools": [tool()]}, False),
    ("tool list as a bare array", "list", 200, [], False),
    ("tool list without text", "list", 200, {"status": "success", "data": {"tools": [tool()]}}, False),
    ("tool list with a member that is neither defined nor x-", "list", 200, tool_list(tool(), ok=1), False),
    ("tool list as partial", "list", 200, {**tool_list(tool()), "status": "partial"}, False),
    ("tool list as an error at 200", "list", 200, error("INTERNAL_ERROR"), False),
    ("tool list without data", "list", 200, {"status": "success", "text": "0 tools"}, False),
    ("tool list whose data has no tools", "list", 200, {"status": "success", "text": "", "data": {}}, False),
    (
        "tool list whose data has another member",
        "list",
        200,
        {**tool_list(tool()), "data": {"tools": [tool()], "count": 1}},
        False,
    ),
    ("tool list with a name no provider accepts", "list", 200, tool_list(tool("add two")), False),
    (
        "tool list whose parameters describe no object",
        "list",
        200,
        tool_list(tool(parameters={"type": "array"})),
        False,
    ),
    (
        "tool list entry without output_schema",
        "list",
        200,
        tool_list({k: v for k, v in tool().items() if k != "output_schema"}),
        False,
    ),
    ("tool list failing with a ToolResponse", "list", 500, error("INTERNAL_ERROR"), True),
]


@pytest.mark.parametrize(
    ("operation_name", "status", "body", "expected"),
    [case[1:] for case in CANARIES],
    ids=[case[0] for case in CANARIES],
)
def test_schemathesis_judges_responses_by_the_document(
    operation_name: str,
    status: int,
    body: Any,
    expected: bool,
    invoke: APIOperation,
    list_tools: APIOperation,
) -> None:
    """schemathesis accepts exactly the responses the binding allows (so its check is never silent)."""
    operation, url = (invoke, INVOKE_URL) if operation_name == "invoke" else (list_tools, LIST_URL)
    actual = accepts(operation, response(status, body, url))
    assert expected == actual
