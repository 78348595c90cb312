"""Our MCP server, met by the official Python SDK's client over stdio and streamable HTTP:
``tools/list`` from the registry, ``tools/call`` through it (parameter validation, timeout,
breaker), every result carrying its ToolResponse; and the HTTP endpoint's access checks."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp_peers import serve_http_in_background

from toolresponse import ErrorCode, ToolResponse, ToolStatus, validate
from toolresponse.http import AccessRules
from toolresponse.interop import from_mcp
from toolresponse.interop._mcp import MCP_META_KEY
from toolresponse.mcp import http_app
from toolresponse.tools import load_registry

HERE = Path(__file__).resolve().parent / "mcp"
FACTORY = "registry:build_registry"
TOKEN = "s3cret-token-for-tests"


def _stdio() -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolresponse", "mcp", "serve", FACTORY, "--app-dir", str(HERE)],
    )


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    app = http_app(load_registry(FACTORY, app_dir=str(HERE)))
    with serve_http_in_background(app) as url:
        yield url


@pytest.fixture(params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Any:
    """Where the SDK client finds our server: a command (stdio) or a URL (streamable HTTP).
    (The client is entered in each test: its task groups must be left by the task that
    entered them.)"""
    return _stdio() if request.param == "stdio" else request.getfixturevalue("http_url")


def _response(result: Any) -> ToolResponse:
    record = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    response: ToolResponse = from_mcp(record)
    assert validate(response.to_dict()).valid
    return response


async def test_tools_list_shows_every_tool_with_its_schemas(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        listing = await client.list_tools()
        tools = {tool.name: tool for tool in listing.tools}
        assert ["calculator", "flaky", "slow", "lookup", "truncated"] == list(tools)
        assert ["expression"] == tools["calculator"].input_schema["required"]
        assert tools["lookup"].output_schema is not None


async def test_a_success_carries_its_response(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        result = await client.call_tool("calculator", {"expression": "6 * 7"})
        assert False is result.is_error
        response = _response(result)
        assert ToolStatus.SUCCESS is response.status
        assert response.context is not None
        assert "calculator" == response.context["tool_name"]
        assert MCP_META_KEY in (result.meta or {})


async def test_structured_content_fits_the_output_schema(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        result = await client.call_tool("lookup", {"key": "abc"})
        assert {"key": "abc", "value": 3} == result.structured_content


async def test_a_partial_result_crosses_as_partial(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        response = _response(await client.call_tool("truncated", {}))
        assert ToolStatus.PARTIAL is response.status
        assert "First 2 of 5 rows." == response.text


async def test_invalid_arguments_are_a_tool_error_the_model_can_read(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        result = await client.call_tool("calculator", {"expr": "1"})
        assert True is result.is_error
        assert ErrorCode.INVALID_PARAM is _response(result).code


async def test_an_unknown_tool_is_a_not_found_result(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        result = await client.call_tool("calculater", {})
        assert True is result.is_error
        assert ErrorCode.NOT_FOUND is _response(result).code


async def test_a_tool_past_its_timeout_answers_timeout(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        response = _response(await client.call_tool("slow", {}))
        assert ErrorCode.TIMEOUT is response.code
        assert response.is_retryable


async def test_the_breaker_opens_and_answers_circuit_open(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        codes = [_response(await client.call_tool("flaky", {})).code for _ in range(3)]
        assert ErrorCode.CIRCUIT_OPEN in codes
        assert ErrorCode.EXECUTION_ERROR == codes[0]


# -- the streamable-HTTP endpoint's access checks --------------------------------------------

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def guarded_url() -> Iterator[str]:
    app = http_app(load_registry(FACTORY, app_dir=str(HERE)), access=AccessRules.of(token=TOKEN))
    with serve_http_in_background(app) as url:
        yield url


def _post(url: str, **headers: str) -> httpx2.Response:
    return httpx2.post(url, json=_INITIALIZE, headers={**_HEADERS, **headers}, timeout=30)


def _refusal(answer: httpx2.Response) -> ToolResponse:
    response = ToolResponse.from_json(answer.content)
    assert ErrorCode.ACCESS_DENIED is response.code
    return response


def test_a_foreign_host_is_refused(http_url: str) -> None:
    answer = _post(http_url, Host="evil.example")
    assert 403 == answer.status_code
    assert _refusal(answer).error_info is not None


def test_a_foreign_origin_is_refused(http_url: str) -> None:
    answer = _post(http_url, Origin="http://evil.example")
    assert 403 == answer.status_code
    _refusal(answer)


def test_a_loopback_origin_is_accepted(http_url: str) -> None:
    assert 200 == _post(http_url, Origin="http://localhost:5173").status_code


def test_no_token_is_refused(guarded_url: str) -> None:
    answer = _post(guarded_url)
    assert 401 == answer.status_code
    assert "missing_token" == (_refusal(answer).error_info.details or {})["reason"]  # type: ignore[union-attr]


def test_a_wrong_token_is_refused(guarded_url: str) -> None:
    answer = _post(guarded_url, Authorization="Bearer wrong")
    assert 401 == answer.status_code
    assert "invalid_token" == (_refusal(answer).error_info.details or {})["reason"]  # type: ignore[union-attr]


def test_the_right_token_is_accepted(guarded_url: str) -> None:
    assert 200 == _post(guarded_url, Authorization=f"Bearer {TOKEN}").status_code


async def test_our_client_sends_the_token(guarded_url: str) -> None:
    from toolresponse.mcp import connect

    with connect(guarded_url, token=TOKEN) as connection:
        response = await connection.aexecute("calculator", {"expression": "1 + 1"})
    assert ToolStatus.SUCCESS is response.status


@pytest.mark.parametrize(
    ("headers", "status", "reason"),
    [
        pytest.param({"Host": "evil.example"}, 403, "host", id="a foreign Host"),
        pytest.param({"Origin": "http://evil.example"}, 403, "origin", id="a foreign Origin"),
        pytest.param({}, 401, "missing_token", id="no token"),
        pytest.param({"Authorization": "Bearer " + "x" * 32}, 401, "invalid_token", id="a wrong token"),
    ],
)
def test_a_refusal_is_the_http_bindings_own(
    guarded_url: str, headers: dict[str, str], status: int, reason: str
) -> None:
    """The MCP endpoint refuses as the HTTP binding does (one set of rules, ``AccessGuard``): the
    same statuses, ToolResponse bodies and details, and ``WWW-Authenticate`` with a 401."""
    answer = _post(guarded_url, **headers)
    body = answer.json()
    assert () == validate(body).errors
    assert (status, "ACCESS_DENIED", reason) == (
        answer.status_code,
        body["error_info"]["code"],
        body["error_info"]["details"]["reason"],
    )
    assert (status == 401) == ("www-authenticate" in answer.headers)


def test_an_allowed_host_is_served_past_the_sdks_own_check() -> None:
    """A name the access rules allow (``--allow-host``) is answered: the guard is the one check of
    Host (the SDK's own DNS-rebinding check, which knows only loopback names, is off)."""
    app = http_app(load_registry(FACTORY, app_dir=str(HERE)), access=AccessRules.of(hosts=["tools.example"]))
    with serve_http_in_background(app) as url:
        assert 200 == _post(url, Host="tools.example").status_code


def test_the_server_stops_while_a_client_holds_its_event_stream_open() -> None:
    """A client's GET event stream never ends by itself, and a server in a thread gets no signal:
    the block's end tells each open request that its client left, so the server stops (it waited
    for as long as the client held the stream: forever, for a client that keeps it)."""
    app = http_app(load_registry(FACTORY, app_dir=str(HERE)))
    streaming = threading.Event()
    stopped = threading.Event()
    client = httpx2.Client(timeout=30)

    def serve_and_stop() -> None:
        with serve_http_in_background(app) as url:
            assert 200 == client.post(url, json=_INITIALIZE, headers=_HEADERS).status_code
            stream = client.stream("GET", url, headers={"Accept": "text/event-stream"})
            assert 200 == stream.__enter__().status_code
            streaming.set()
        stopped.set()

    threading.Thread(target=serve_and_stop, daemon=True).start()
    assert streaming.wait(30)
    assert stopped.wait(60), "the server still waits on the client's open stream"
    client.close()
