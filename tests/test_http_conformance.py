"""The conformance runner: zero failures against the reference server, and it fails broken servers,
naming the check that caught them, so that the run can never go quiet."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from toolresponse import ErrorCode, ToolResponse
from toolresponse._errors import ConformanceError
from toolresponse.cli import main as cli_main
from toolresponse.http import create_app, run_conformance, serve_in_background
from toolresponse.http._conformance import BINDING_CHECK, add_tool_operations, resolved_binding_document
from toolresponse.http._fixtures import load_fixtures, request_body

ROOT = Path(__file__).resolve().parent.parent
HTTP_FIXTURE_DIR = ROOT / "tests" / "conformance" / "v1" / "http"
BINDING_DOCUMENT = ROOT / "schema" / "v1" / "http-binding.openapi.json"

SMALL_BUDGET = 10
"""Enough cases per operation to catch a broken server (the reference run has the default budget)."""


def free_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def reference_registry() -> Any:
    from toolresponse.demo.calculator import build_registry

    return build_registry()


@pytest.fixture(scope="module")
def reference_url() -> Iterator[str]:
    with serve_in_background(create_app(reference_registry())) as url:
        yield url


def test_the_reference_server_conforms(reference_url: str) -> None:
    """The reference server with the demo tools passes every check: the document, the binding's own
    checks and schemathesis's, response-schema conformance among them."""
    report = run_conformance(reference_url)
    assert [] == [result.name for result in report.failures]
    sections = {result.section for result in report.results}
    assert {"document", "binding", "schemathesis"} == sections
    run = next(result for result in report.results if result.name.startswith("the run completes"))
    assert "response_schema_conformance" in run.note
    assert BINDING_CHECK in run.note
    operations = {result.name for result in report.results if result.section == "schemathesis"}
    assert {"GET /tools", "POST /tools/{name}/invoke"} <= operations
    ran = {result.name for result in report.results if result.section == "binding" and not result.skipped}
    assert set() == {test["description"] for test in load_fixtures()} - ran


class Rewrite:
    """ASGI middleware that breaks an answer: every answer with HTTP status ``status`` gets
    ``new_status`` and the body ``new_body`` instead."""

    def __init__(self, app: Any, *, status: int, new_status: int, new_body: bytes | None = None) -> None:
        self.app = app
        self.status = status
        self.new_status = new_status
        self.new_body = new_body

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rewriting = False

        async def rewriting_send(message: Any) -> None:
            nonlocal rewriting
            if message["type"] == "http.response.start" and message["status"] == self.status:
                rewriting = True
                headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-length"]
                if self.new_body is not None:
                    headers.append((b"content-length", str(len(self.new_body)).encode()))
                message = {**message, "status": self.new_status, "headers": headers}
            elif message["type"] == "http.response.body" and rewriting and self.new_body is not None:
                message = {**message, "body": self.new_body if not message.get("more_body") else b""}
            await send(message)

        await self.app(scope, receive, rewriting_send)


class BareToolList:
    """ASGI middleware that answers GET /tools as the binding once did: the bare ``{"tools": [...]}``,
    not a ToolResponse."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or (scope["method"], scope["path"]) != ("GET", "/tools"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def capturing_send(message: Any) -> None:
            if message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    body = json.dumps(json.loads(b"".join(chunks))["data"]).encode()
                    headers = [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ]
                    await send({"type": "http.response.start", "status": 200, "headers": headers})
                    await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, capturing_send)


class RefusingAsNotFound:
    """A registry that answers parameters its tool refuses (INVALID_PARAM) with NOT_FOUND (404)."""

    def __init__(self) -> None:
        self.registry = reference_registry()

    def list_tools(self) -> Any:
        return self.registry.list_tools()

    async def aexecute(self, name: str, params: Any, *, call_id: str | None = None) -> ToolResponse:
        response: ToolResponse = await self.registry.aexecute(name, params, call_id=call_id)
        if response.code is ErrorCode.INVALID_PARAM:
            return ToolResponse.error(ErrorCode.NOT_FOUND, "refused", context=response.context)
        return response


async def always_ok(scope: Any, receive: Any, send: Any) -> None:
    """The simplest broken server: every request answers 200 {"status": "ok"}."""
    if scope["type"] != "http":
        return
    body = b'{"status": "ok"}'
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.mark.parametrize(
    ("broken", "section", "check"),
    [
        pytest.param(
            lambda: Rewrite(
                create_app(reference_registry()), status=404, new_status=404, new_body=b'{"status": "ok"}'
            ),
            "schemathesis",
            "response_schema_conformance",
            id="404 with a body that is not a ToolResponse",
        ),
        pytest.param(
            lambda: Rewrite(create_app(reference_registry()), status=200, new_status=500),
            "schemathesis",
            BINDING_CHECK,
            id="success answered with HTTP 500",
        ),
        pytest.param(
            lambda: Rewrite(create_app(reference_registry()), status=413, new_status=400),
            "binding",
            "1 MiB + 1 byte is 413",
            id="a body over 1 MiB answered 400",
        ),
        pytest.param(
            lambda: BareToolList(create_app(reference_registry())),
            "binding",
            "GET /tools is a success ToolResponse",
            id="tool list as a bare ToolList, not a ToolResponse",
        ),
        pytest.param(
            lambda: BareToolList(create_app(reference_registry())),
            "schemathesis",
            "response_schema_conformance",
            id="tool list as a bare ToolList, caught by its response schema",
        ),
        pytest.param(
            lambda: always_ok, "schemathesis", "response_schema_conformance", id="always 200 status ok"
        ),
        pytest.param(
            lambda: create_app(RefusingAsNotFound()),
            "schemathesis",
            "negative_data_rejection",
            id="parameters against the tool's schema answered 404, not 400",
        ),
    ],
)
def test_a_broken_server_fails_and_the_check_is_named(
    broken: Any, section: str, check: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server that breaks the binding fails the run, and the report names the check that caught it."""
    with serve_in_background(broken()) as url:
        status = cli_main(["conformance", url, "--max-examples", str(SMALL_BUDGET), "--seed", "1"])
    report = capsys.readouterr().out
    assert 1 == status
    assert "FAIL:" in report
    assert any(check in line for line in report.splitlines() if "FAIL" in line or "- " in line), report
    assert f"[{section}]" in report


def test_a_document_that_still_refers_to_another_file_is_refused() -> None:
    """Given the document as written (its ToolResponse schemas in another file), the runner refuses to
    run rather than check nothing under those references, and names the resolved document."""
    with pytest.raises(ConformanceError, match=r"tool-response\.schema\.json.*resolved document"):
        run_conformance(
            f"http://127.0.0.1:{free_port()}",
            document=json.loads(BINDING_DOCUMENT.read_text(encoding="utf-8")),
        )


def test_the_shipped_resolved_document_refers_to_no_other_file() -> None:
    """Every $ref of the resolved document points inside it, at something it has."""
    document = resolved_binding_document()
    refs: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for item in node:
                collect(item)

    def target(ref: str) -> Any:
        node: Any = document
        for part in ref.removeprefix("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    collect(document)
    assert [] == [ref for ref in refs if not ref.startswith("#/")]
    assert all(isinstance(target(ref), dict) for ref in refs)
    assert "#/components/schemas/ToolResponseV1" in refs


def test_an_unreachable_server_fails(capsys: pytest.CaptureFixture[str]) -> None:
    """A server that cannot be reached fails the run (exit status 1), saying so."""
    url = f"http://127.0.0.1:{free_port()}"
    assert 1 == cli_main(["conformance", url, "--max-examples", str(SMALL_BUDGET), "--timeout", "2"])
    assert "the server answers" in capsys.readouterr().out


@pytest.mark.parametrize(
    "url", ["127.0.0.1:8000", "ftp://127.0.0.1", "http://", "http://h:port", "http://h/?q=1"]
)
def test_a_bad_url_is_a_usage_error(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A URL that is not an http(s) base URL exits 2 with a one-line reason."""
    assert 2 == cli_main(["conformance", url, "--max-examples", str(SMALL_BUDGET), "--timeout", "2"])
    captured = capsys.readouterr()
    assert ("", 1) == (captured.out, len(captured.err.strip().splitlines()))


@pytest.mark.parametrize("max_examples", [0, -1])
def test_a_bad_budget_is_refused(max_examples: int) -> None:
    """The budget must be at least one case per operation."""
    with pytest.raises(ValueError, match="max_examples must be an integer >= 1"):
        run_conformance(f"http://127.0.0.1:{free_port()}", max_examples=max_examples)


def test_each_served_tool_becomes_an_operation_with_its_own_body_schema() -> None:
    """A served tool becomes POST /tools/<name>/invoke with its parameter schema as the body (local
    references rewritten into components) and the generic operation's responses; the call id header
    stays, the path parameter goes."""
    parameters = {
        "type": "object",
        "properties": {"unit": {"$ref": "#/$defs/Unit"}},
        "$defs": {"Unit": {"enum": ["m", "s"]}},
    }
    resolved = resolved_binding_document()
    specialised, left_out = add_tool_operations(resolved, [{"name": "measure", "parameters": parameters}])
    operation = specialised["paths"]["/tools/measure/invoke"]["post"]
    component = specialised["components"]["schemas"]["ToolParameters.measure"]
    assert [] == left_out
    assert {"$ref": "#/components/schemas/ToolParameters.measure"} == (
        operation["requestBody"]["content"]["application/json"]["schema"]
    )
    assert "#/components/schemas/ToolParameters.measure/$defs/Unit" == component["properties"]["unit"]["$ref"]
    assert resolved["paths"]["/tools/{name}/invoke"]["post"]["responses"] == operation["responses"]
    assert [{"$ref": "#/components/parameters/CallId"}] == operation["parameters"]
    assert "/tools/measure/invoke" not in resolved["paths"]


@pytest.mark.parametrize(
    ("tool", "reason"),
    [
        ({"name": "has space", "parameters": {"type": "object"}}, "not a valid tool name"),
        ({"name": "t", "parameters": "object"}, "not a valid tool name and parameter schema"),
        ({"name": "t", "parameters": {"$ref": "other.json"}}, "refers to another document"),
        ({"name": "t", "parameters": {"$id": "https://example.com/t", "type": "object"}}, "has an $id"),
    ],
)
def test_a_tool_that_cannot_be_an_operation_is_left_out_saying_why(tool: dict[str, Any], reason: str) -> None:
    """A tool whose name or parameter schema cannot be placed in the document is left out, with a reason."""
    specialised, left_out = add_tool_operations(resolved_binding_document(), [tool])
    assert 1 == len(left_out)
    assert reason in left_out[0]
    assert ["/tools", "/tools/{name}/invoke"] == list(specialised["paths"])


def test_the_command_runs_through_the_cli(reference_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``toolresponse conformance URL`` runs the suite and exits 0 against the reference server."""
    assert 0 == cli_main(["conformance", reference_url, "--max-examples", "5", "--seed", "3"])
    out = capsys.readouterr().out
    assert "seed 3, at most 5 cases" in out
    assert "PASS:" in out.splitlines()[-1]


def source_fixture_tests() -> list[dict[str, Any]]:
    """Every test of tests/conformance/v1/http, in file order."""
    return [
        test
        for path in sorted(HTTP_FIXTURE_DIR.glob("*.json"))
        for group in json.loads(path.read_text(encoding="utf-8"))
        for test in group["tests"]
    ]


def test_the_runner_loads_exactly_the_http_fixtures_of_the_repository() -> None:
    """The fixtures the runner ships and runs are the tests of tests/conformance/v1/http, in order."""
    assert source_fixture_tests() == list(load_fixtures())


def fixture_named(description: str) -> Mapping[str, Any]:
    return next(test for test in load_fixtures() if test["description"] == description)


def test_a_padded_body_is_its_text_then_spaces_to_the_size() -> None:
    """{"text": "{}", "pad_to_bytes": 1048577} is {} followed by spaces, 1048577 bytes in all."""
    fixture = fixture_named("a body of 1 MiB + 1 byte is 413 INVALID_PARAM with details.limit_bytes")
    body = request_body(fixture["request"]["body"])
    assert body is not None
    assert (1048577, b"{}", b"") == (len(body), body[:2], body[2:].strip(b" "))
    expected = {"status": 413, "code": "INVALID_PARAM", "details": {"limit_bytes": 1048576}}
    assert expected == fixture["response"]


def test_a_base64_body_is_its_bytes() -> None:
    """A base64 body is sent as the bytes it encodes, which need not be UTF-8."""
    fixture = fixture_named("a body that is not UTF-8 is 400 INVALID_FORMAT")
    assert b'{"a": "\xff\xfe"}' == request_body(fixture["request"]["body"])


def test_a_server_serving_no_tool_skips_the_fixtures_that_need_one() -> None:
    """Against a server with no tools, each fixture whose path has {tool} is skipped, saying why,
    and the others (the unknown tool, the routing ones) run and pass."""
    from toolresponse import ToolRegistry

    with serve_in_background(create_app(ToolRegistry())) as url:
        report = run_conformance(url, max_examples=SMALL_BUDGET, seed=1)
    binding = [result for result in report.results if result.section == "binding"]
    needing = [test["description"] for test in load_fixtures() if "{tool}" in test["request"]["path"]]
    assert needing == [result.name for result in binding if result.skipped == "the server serves no tool"]
    assert "DELETE /tools is 405 NOT_FOUND, with Allow" in [
        result.name for result in binding if result.passed
    ]
    assert [] == [result.name for result in report.failures]


def test_an_installation_without_the_fixtures_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An installation that lacks the shipped HTTP fixtures exits 2 saying so, rather than pass on
    schemathesis alone."""
    monkeypatch.setattr("toolresponse.http._fixtures.CONFORMANCE_FIXTURE_DIR", "conformance/missing")
    assert 2 == cli_main(["conformance", f"http://127.0.0.1:{free_port()}"])
    captured = capsys.readouterr()
    assert ("", 1) == (captured.out, len(captured.err.strip().splitlines()))
    assert "are not in this installation" in captured.err
