"""The HTTP binding's ASGI application: every route and every error path, every body a ToolResponse."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

import httpx
import pytest
from jsonschema import Draft202012Validator
from starlette.testclient import TestClient

from toolresponse import ERROR_CODE_INFO, ErrorCode, ToolResponse, validate
from toolresponse.http import create_app, http_status
from toolresponse.http._conformance import resolved_binding_document
from toolresponse.http._fixtures import status_problem
from toolresponse.http._serve import serve_in_background
from toolresponse.tools._prepared import ToolSpec
from toolresponse_generated.http_binding import CALL_ID_HEADER, MAX_BODY_BYTES

ECHO_SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
    "additionalProperties": False,
}
LOCAL = "http://localhost"
"""The test client's base URL: a loopback name, which the default access rules accept."""
FAIL_SCHEMA = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "retry_after_ms": {"type": "integer"}},
}


class FakeRegistry:
    """A registry-like object: ``echo`` succeeds, ``partial`` is partial, ``fail`` answers the code it is
    given, ``boom`` raises (a bug), ``odd`` answers something that is not a ToolResponse."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, str | None]] = []

    def list_tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                name="echo",
                description="Echo the text.",
                parameters=ECHO_SCHEMA,
                output_schema=None,
                timeout_s=None,
                is_async=False,
            ),
            ToolSpec(
                name="fail",
                description="Fail with a code.",
                parameters=FAIL_SCHEMA,
                output_schema={"type": "object"},
                timeout_s=1.0,
                is_async=True,
            ),
        ]

    async def aexecute(self, name: str, params: Any, *, call_id: str | None = None) -> ToolResponse:
        self.calls.append((name, params, call_id))
        context: dict[str, Any] = {"tool_name": name, "params_input": params}
        if call_id is not None:
            context["call_id"] = call_id
        if name == "echo":
            return ToolResponse.success(
                str(params.get("text")), {"text": params.get("text")}, context=context
            )
        if name == "partial":
            return ToolResponse.partial("First 1 of 2.", {"returned": 1, "total": 2}, context=context)
        if name == "fail":
            return ToolResponse.error(
                params["code"], "It failed.", retry_after_ms=params.get("retry_after_ms"), context=context
            )
        if name == "boom":
            raise RuntimeError("a bug in the registry")
        if name == "odd":
            return {"status": "success", "text": "not a ToolResponse"}  # type: ignore[return-value]
        return ToolResponse.error(ErrorCode.NOT_FOUND, f"No tool {name!r}.", context=context)


class ListingRegistry(FakeRegistry):
    """A registry that serves tools of the given names, each without parameters."""

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names

    def list_tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                name=name,
                description=f"The tool {name}.",
                parameters={"type": "object"},
                output_schema=None,
                timeout_s=None,
                is_async=False,
            )
            for name in self.names
        ]


class ExplodingListRegistry(FakeRegistry):
    """A registry whose tool list raises."""

    def list_tools(self) -> list[ToolSpec]:
        raise RuntimeError("cannot list")


@pytest.fixture
def registry() -> FakeRegistry:
    return FakeRegistry()


@pytest.fixture
def client(registry: FakeRegistry) -> Iterator[TestClient]:
    with TestClient(create_app(registry), base_url=LOCAL, raise_server_exceptions=False) as test_client:
        yield test_client


class Answer(Protocol):
    """An HTTP response, from the test client or from httpx."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def json(self) -> Any: ...


def assert_binding_answer(response: Answer) -> dict[str, Any]:
    """The body of an answer that is a valid ToolResponse, served as JSON, with the binding's status."""
    assert "application/json" == response.headers["content-type"]
    body: dict[str, Any] = response.json()
    assert () == validate(body).errors
    code = ErrorCode(body["error_info"]["code"]) if body.get("error_info") else None
    assert None is status_problem(body["status"], code, response.status_code)
    return body


def invoke(client: TestClient, name: str, content: bytes, headers: Mapping[str, str] | None = None) -> Answer:
    return client.post(f"/tools/{name}/invoke", content=content, headers=dict(headers or {}))


def tool_list_violations(body: Any) -> list[str]:
    """What the document's tool list answer (ToolListResponse, the v1 schema placed) finds wrong."""
    document = resolved_binding_document()
    schema = {"$ref": "#/components/schemas/ToolListResponse", "components": document["components"]}
    return [error.message for error in Draft202012Validator(schema).iter_errors(body)]


def test_tool_list_follows_the_document(client: TestClient) -> None:
    """GET /tools answers 200 with a success ToolResponse whose data.tools has each tool's name,
    description, parameters and output schema, and whose text names them."""
    response = client.get("/tools")
    body = assert_binding_answer(response)
    assert 200 == response.status_code
    assert [] == tool_list_violations(body)
    assert ("success", "2 tools: echo, fail") == (body["status"], body["text"])
    assert ["echo", "fail"] == [tool["name"] for tool in body["data"]["tools"]]
    assert ECHO_SCHEMA == body["data"]["tools"][0]["parameters"]
    assert [None, {"type": "object"}] == [tool["output_schema"] for tool in body["data"]["tools"]]


@pytest.mark.parametrize(
    ("names", "text"),
    [([], "0 tools"), (["add"], "1 tool: add"), (["add", "div", "mul"], "3 tools: add, div, mul")],
)
def test_the_tool_list_text_counts_and_names_the_tools(names: list[str], text: str) -> None:
    """The tool list's text says how many tools there are and names them; an empty list is valid too."""
    with TestClient(create_app(ListingRegistry(names)), base_url=LOCAL) as listing:
        body = assert_binding_answer(listing.get("/tools"))
    assert (text, names) == (body["text"], [tool["name"] for tool in body["data"]["tools"]])
    assert [] == tool_list_violations(body)


def test_success_is_200_with_the_registry_response(client: TestClient, registry: FakeRegistry) -> None:
    """A successful call answers 200 with the registry's ToolResponse and passes the parameters on."""
    response = invoke(client, "echo", b'{"text": "hi"}', {"Content-Type": "application/json"})
    body = assert_binding_answer(response)
    assert 200 == response.status_code
    assert {"text": "hi"} == body["data"]
    assert [("echo", {"text": "hi"}, None)] == registry.calls


def test_partial_is_200(client: TestClient) -> None:
    """A partial result answers 200."""
    response = invoke(client, "partial", b"{}")
    assert "partial" == assert_binding_answer(response)["status"]
    assert 200 == response.status_code


@pytest.mark.parametrize("code", list(ErrorCode), ids=str)
def test_an_error_answers_its_code_s_http_status(client: TestClient, code: ErrorCode) -> None:
    """A tool's error answers the HTTP status the schema gives its code."""
    response = invoke(client, "fail", f'{{"code": "{code.value}"}}'.encode())
    body = assert_binding_answer(response)
    assert ERROR_CODE_INFO[code].http_status == response.status_code
    assert code.value == body["error_info"]["code"]


@pytest.mark.parametrize(
    ("code", "retry_after_ms", "expected"),
    [
        (ErrorCode.RATE_LIMIT, 1500, "2"),
        (ErrorCode.CIRCUIT_OPEN, 30000, "30"),
        (ErrorCode.CIRCUIT_OPEN, 0, "0"),
        (ErrorCode.TIMEOUT, 1000, None),
        (ErrorCode.RATE_LIMIT, None, None),
    ],
)
def test_retry_after_goes_with_429_and_503(
    client: TestClient, code: ErrorCode, retry_after_ms: int | None, expected: str | None
) -> None:
    """A 429 or 503 with retry_after_ms has Retry-After in whole seconds, rounded up; others have none."""
    params = (
        {"code": code.value}
        if retry_after_ms is None
        else {"code": code.value, "retry_after_ms": retry_after_ms}
    )
    response = client.post("/tools/fail/invoke", json=params)
    assert_binding_answer(response)
    assert expected == response.headers.get("retry-after")


def test_unknown_tool_is_the_registry_s_404(client: TestClient) -> None:
    """A tool that is not served answers the registry's 404 NOT_FOUND."""
    response = invoke(client, "nope", b"{}")
    assert "NOT_FOUND" == assert_binding_answer(response)["error_info"]["code"]
    assert 404 == response.status_code


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"text": ', "syntax error"),
        (b"", "empty"),
        (b"   \n", "only whitespace"),
        (b'{"text": "\xff"}', "not UTF-8"),
        (b'{"text": NaN}', "NaN"),
        (b'{"text": Infinity}', "Infinity"),
        (b'{"text": "a", "text": "b"}', "duplicate member name"),
        (b'\xef\xbb\xbf{"text": "a"}', "byte order mark"),
        (b"{'text': 'a'}", "single quotes"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_body_that_is_not_json_is_400_invalid_format(
    client: TestClient, registry: FakeRegistry, content: bytes, reason: str
) -> None:
    """A body that is not I-JSON answers 400 INVALID_FORMAT, and the tool is not run."""
    response = invoke(client, "echo", content, {"Content-Type": "application/json"})
    body = assert_binding_answer(response)
    assert (400, "INVALID_FORMAT") == (response.status_code, body["error_info"]["code"])
    assert {"tool_name": "echo"} == body["context"]
    assert [] == registry.calls


@pytest.mark.parametrize("content", [b"[]", b'"text"', b"42", b"null", b"true", b'[{"text": "a"}]'])
def test_json_that_is_not_an_object_is_400_invalid_param(
    client: TestClient, registry: FakeRegistry, content: bytes
) -> None:
    """A body that is JSON but not an object answers 400 INVALID_PARAM, and the tool is not run."""
    response = invoke(client, "echo", content)
    body = assert_binding_answer(response)
    assert (400, "INVALID_PARAM") == (response.status_code, body["error_info"]["code"])
    assert [] == registry.calls


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_the_content_type_is_not_looked_at(client: TestClient, content_type: str | None) -> None:
    """The body is read as JSON whatever the Content-Type says, as the binding requires."""
    headers = {} if content_type is None else {"Content-Type": content_type}
    response = invoke(client, "echo", b'{"text": "hi"}', headers)
    assert 200 == response.status_code
    assert "hi" == assert_binding_answer(response)["text"]


@pytest.mark.parametrize("call_id", ["c", "call-1", "!~" * 64, "0" * 128])
def test_a_valid_call_id_reaches_the_registry(
    client: TestClient, registry: FakeRegistry, call_id: str
) -> None:
    """A valid X-Call-Id (1 to 128 visible ASCII characters) is passed on as the call id."""
    response = invoke(client, "echo", b'{"text": "hi"}', {CALL_ID_HEADER: call_id})
    assert call_id == assert_binding_answer(response)["context"]["call_id"]
    assert [("echo", {"text": "hi"}, call_id)] == registry.calls


@pytest.mark.parametrize(
    "call_id",
    ["", "0" * 129, "call 1", "call\t1", "caf\u00e9"],
    ids=["empty", "129 characters", "a space", "a tab", "not ASCII"],
)
def test_an_invalid_call_id_is_400_invalid_param(
    client: TestClient, registry: FakeRegistry, call_id: str
) -> None:
    """An X-Call-Id that is empty, over 128 characters or not visible ASCII answers 400 INVALID_PARAM."""
    response = client.post(
        "/tools/echo/invoke",
        content=b'{"text": "hi"}',
        headers={CALL_ID_HEADER.encode(): call_id.encode("utf-8")},
    )
    body = assert_binding_answer(response)
    assert (400, "INVALID_PARAM") == (response.status_code, body["error_info"]["code"])
    assert {"header": CALL_ID_HEADER} == body["error_info"]["details"]
    assert [] == registry.calls


def padded_object(size: int) -> bytes:
    return b'{"text": "x"}' + b" " * (size - 13)


def test_a_body_of_exactly_the_limit_is_read(client: TestClient) -> None:
    """A body of exactly 1 MiB is read and passed on."""
    response = invoke(client, "echo", padded_object(MAX_BODY_BYTES))
    assert 200 == response.status_code
    assert "x" == assert_binding_answer(response)["text"]


def test_a_body_over_the_limit_is_413(client: TestClient, registry: FakeRegistry) -> None:
    """A body one byte over 1 MiB answers 413 INVALID_PARAM with details.limit_bytes, and no tool runs."""
    response = invoke(client, "echo", padded_object(MAX_BODY_BYTES + 1), {CALL_ID_HEADER: "c-1"})
    body = assert_binding_answer(response)
    assert (413, "INVALID_PARAM") == (response.status_code, body["error_info"]["code"])
    assert {"limit_bytes": MAX_BODY_BYTES} == body["error_info"]["details"]
    assert {"tool_name": "echo", "call_id": "c-1"} == body["context"]
    assert [] == registry.calls


def test_the_limit_can_be_set(registry: FakeRegistry) -> None:
    """max_body_bytes sets the limit."""
    with TestClient(create_app(registry, max_body_bytes=20), base_url=LOCAL) as small:
        assert 200 == invoke(small, "echo", padded_object(20)).status_code
        assert 413 == invoke(small, "echo", padded_object(21)).status_code


@pytest.mark.parametrize("limit", [-1, 1.5, True, "1"])
def test_a_bad_limit_is_refused(registry: FakeRegistry, limit: Any) -> None:
    """max_body_bytes must be an integer >= 0."""
    with pytest.raises(ValueError, match="max_body_bytes must be an integer >= 0"):
        create_app(registry, max_body_bytes=limit)


class Receiver:
    """An ASGI ``receive`` that hands out a body in chunks and counts what it handed out."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.handed_out = 0

    async def __call__(self) -> dict[str, Any]:
        if self.handed_out == len(self.chunks):
            return {"type": "http.disconnect"}
        chunk = self.chunks[self.handed_out]
        self.handed_out += 1
        return {"type": "http.request", "body": chunk, "more_body": self.handed_out < len(self.chunks)}


def call_asgi(
    app: Any, headers: list[tuple[bytes, bytes]], receive: Receiver
) -> tuple[int, dict[str, str], bytes]:
    """One POST to /tools/echo/invoke straight through ASGI: the status, headers and body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/tools/echo/invoke",
        "raw_path": b"/tools/echo/invoke",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost"), *headers],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = sent[0]
    body = b"".join(message.get("body", b"") for message in sent[1:])
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


def test_a_content_length_over_the_limit_is_refused_without_reading_when_the_client_waits() -> None:
    """With Expect: 100-continue and a Content-Length over the limit, 413 comes before any body is read."""
    receive = Receiver([b" " * 1024] * 4)
    headers = [(b"content-length", str(MAX_BODY_BYTES + 1).encode()), (b"expect", b"100-continue")]
    status, _, body = call_asgi(create_app(FakeRegistry()), headers, receive)
    assert (413, 0) == (status, receive.handed_out)
    assert "INVALID_PARAM" == ToolResponse.from_json(body).code


def test_a_streamed_body_is_kept_only_up_to_the_limit() -> None:
    """A streamed body (no Content-Length) is refused 413 once it passes the limit; the rest is dropped."""
    chunk = b" " * 65536
    receive = Receiver([b"{}", *[chunk] * 40])
    status, headers, body = call_asgi(create_app(FakeRegistry()), [], receive)
    assert 413 == status
    assert "close" == headers["connection"]
    assert {"limit_bytes": MAX_BODY_BYTES} == ToolResponse.from_json(body).to_dict()["error_info"]["details"]
    assert len(receive.chunks) == receive.handed_out


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("DELETE", "/tools", "GET, HEAD"),
        ("POST", "/tools", "GET, HEAD"),
        ("PUT", "/tools", "GET, HEAD"),
        ("OPTIONS", "/tools", "GET, HEAD"),
        ("GET", "/tools/echo/invoke", "POST"),
        ("DELETE", "/tools/echo/invoke", "POST"),
    ],
)
def test_a_method_a_path_lacks_is_405_not_found(
    client: TestClient, method: str, path: str, allow: str
) -> None:
    """A method the path does not have answers 405 NOT_FOUND with Allow, and a ToolResponse body."""
    response = client.request(method, path)
    body = assert_binding_answer(response)
    assert (405, "NOT_FOUND") == (response.status_code, body["error_info"]["code"])
    assert allow == response.headers["allow"]


@pytest.mark.parametrize(
    "path", ["/", "/tools/", "/nothing", "/tools/echo", "/tools/echo/invoke/more", "/tools//invoke"]
)
def test_a_path_outside_the_binding_is_404_not_found(client: TestClient, path: str) -> None:
    """Any other path answers 404 NOT_FOUND with a ToolResponse body (no redirect, no HTML)."""
    response = client.get(path, follow_redirects=False)
    body = assert_binding_answer(response)
    assert (404, "NOT_FOUND") == (response.status_code, body["error_info"]["code"])
    assert path == body["error_info"]["details"]["path"]


@pytest.mark.parametrize("name", ["boom", "odd"])
def test_a_failure_in_the_server_is_500_internal_error(client: TestClient, name: str) -> None:
    """An exception below the application, or a registry answer that is not a ToolResponse, answers
    500 INTERNAL_ERROR with a ToolResponse body."""
    response = invoke(client, name, b"{}")
    body = assert_binding_answer(response)
    assert (500, "INTERNAL_ERROR") == (response.status_code, body["error_info"]["code"])


def test_a_failing_tool_list_is_500_internal_error() -> None:
    """A tool list that cannot be made answers 500 INTERNAL_ERROR with a ToolResponse body."""
    app = create_app(ExplodingListRegistry())
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as failing:
        response = failing.get("/tools")
    assert "INTERNAL_ERROR" == assert_binding_answer(response)["error_info"]["code"]


@pytest.mark.parametrize(
    ("response", "status"),
    [
        (ToolResponse.success("ok"), 200),
        (ToolResponse.partial("some"), 200),
        (ToolResponse.error(ErrorCode.TIMEOUT, "slow"), 504),
        (ToolResponse.error(ErrorCode.BINARY_FILE, "binary"), 415),
    ],
)
def test_http_status_follows_the_code(response: ToolResponse, status: int) -> None:
    """http_status is 200 for success and partial, else the code's HTTP status."""
    assert status == http_status(response)


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with serve_in_background(create_app(FakeRegistry())) as url:
        yield url


@pytest.mark.parametrize("streamed", [False, True], ids=["content-length", "chunked"])
def test_over_a_real_server_a_body_over_the_limit_is_413(server_url: str, streamed: bool) -> None:
    """Over uvicorn on loopback, a 1 MiB + 1 body answers 413 (declared or streamed), and the next
    request on a new connection is served."""
    content = padded_object(MAX_BODY_BYTES + 1)
    body: bytes | Iterator[bytes] = iter([content[:65536], content[65536:]]) if streamed else content
    with httpx.Client(base_url=server_url) as http:
        response = http.post("/tools/echo/invoke", content=body)
        assert 413 == response.status_code
        assert "INVALID_PARAM" == assert_binding_answer(response)["error_info"]["code"]
        follow_up = http.post("/tools/echo/invoke", json={"text": "after"})
    assert "after" == assert_binding_answer(follow_up)["text"]


def test_over_a_real_server_every_answer_is_a_tool_response(server_url: str) -> None:
    """Over uvicorn on loopback, the tool list, success, bad JSON, a bad path and a bad method all
    answer ToolResponses."""
    with httpx.Client(base_url=server_url) as http:
        answers = [
            http.get("/tools"),
            http.post("/tools/echo/invoke", content=b'{"text": "hi"}'),
            http.post("/tools/echo/invoke", content=b"{"),
            http.get("/nowhere"),
            http.delete("/tools"),
        ]
    assert [200, 200, 400, 404, 405] == [answer.status_code for answer in answers]
    for answer in answers:
        assert_binding_answer(answer)
