"""The MCP ToolFailure member (``_meta["io.modelcontextprotocol/toolFailure"]``, an open MCP proposal)
between real peers, both ways:

- our server (``toolresponse mcp serve``, stdio and streamable HTTP) writes it on every error, and
  the official Python SDK client and the official TypeScript SDK client see it, with the class and
  code of the schema's table and the call's id as correlation id; an error of a tool with an output
  schema reaches them as an error, never as a failure of their output-schema check;
- a third-party server written with the official Python SDK alone (``tests/mcp/tool_failure_server.py``)
  writes it, and our client (``toolresponse mcp call`` and ``attach``) takes the code, retryability
  and time to wait from it, before its text; an error with structured content that breaks the tool's
  output schema is still that error.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_peers import serve_http_in_background
from test_mcp_typescript import _run, node  # noqa: F401  (node: the fixture, for the TypeScript tests)

from toolresponse import ErrorCode, ToolRegistry, ToolResponse, validate
from toolresponse.interop import from_mcp
from toolresponse.interop._mcp import MCP_META_KEY, TOOL_FAILURE_KEY
from toolresponse.mcp import attach, http_app
from toolresponse.tools import load_registry

HERE = Path(__file__).resolve().parent / "mcp"
FACTORY = "failure_registry:build_registry"
SERVE = [sys.executable, "-m", "toolresponse", "mcp", "serve", FACTORY, "--app-dir", str(HERE)]
THIRD_PARTY = [sys.executable, str(HERE / "tool_failure_server.py")]

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "forecast": ("forecast", {"city": "Atlantis"}),
    "busy": ("busy", {"city": "Oslo"}),
    "approve": ("approve", {}),
    "invalid": ("forecast", {"town": "Oslo"}),
    "unknown": ("forcast", {"city": "Oslo"}),
    "echo": ("echo", {"text": "hi"}),
}
"""What the SDK clients call on our server, by label."""

FAILURES: dict[str, dict[str, Any]] = {
    "forecast": {"class": "capability", "code": "resource_not_found"},
    "busy": {"class": "reliability", "code": "CIRCUIT_OPEN", "retryable": True},
    "approve": {"class": "governance", "code": "auth_required"},
    "invalid": {"class": "capability", "code": "invalid_input"},
    "unknown": {"class": "capability", "code": "resource_not_found"},
}
"""The class and code (and retryability) each error's ToolFailure member says: the schema's table."""

CODES = {
    "forecast": ErrorCode.NOT_FOUND,
    "busy": ErrorCode.CIRCUIT_OPEN,
    "approve": ErrorCode.ACCESS_DENIED,
    "invalid": ErrorCode.INVALID_PARAM,
    "unknown": ErrorCode.NOT_FOUND,
}


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with serve_http_in_background(http_app(load_registry(FACTORY, app_dir=str(HERE)))) as url:
        yield url


def _check_our_results(results: dict[str, dict[str, Any]]) -> None:
    """Each error result (wire JSON, as an SDK client got it) carries the ToolFailure member its code's
    row of the table says, the call's id as correlation id, and no structured content; the member
    alone gives the code back; the success carries none."""
    assert set(CALLS) == set(results)
    for label, record in results.items():
        meta = record.get("_meta", {})
        if label not in FAILURES:
            assert False is record["isError"]
            assert TOOL_FAILURE_KEY not in meta
            continue
        assert True is record["isError"], label
        assert "structuredContent" not in record, label
        failure, ours = meta[TOOL_FAILURE_KEY], meta[MCP_META_KEY]
        assert FAILURES[label] == {name: failure[name] for name in FAILURES[label]}, label
        assert ours["context"]["call_id"] == failure["correlationId"], label
        assert failure["correlationId"], label
        alone = {**record, "_meta": {TOOL_FAILURE_KEY: failure}}
        read = from_mcp(alone)
        assert CODES[label] is read.code, label
        assert validate(from_mcp(record).to_dict()).valid
    busy, ours = (results["busy"]["_meta"][key] for key in (TOOL_FAILURE_KEY, MCP_META_KEY))
    assert isinstance(busy["retryNotBefore"], int)
    left = from_mcp({**results["busy"], "_meta": {TOOL_FAILURE_KEY: busy}}).retry_after_ms
    assert left is not None
    assert 0 <= left <= ours["error_info"]["retry_after_ms"]


def _sdk_record(result: Any) -> dict[str, Any]:
    record: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    return record


# -- our server, the official Python SDK's client -------------------------------------------


@pytest.fixture(params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Any:
    if request.param == "stdio":
        return StdioServerParameters(command=SERVE[0], args=SERVE[1:])
    return request.getfixturevalue("http_url")


async def test_the_python_sdk_client_sees_a_tool_failure_on_each_of_our_errors(server: Any) -> None:
    async with Client(server, read_timeout_seconds=30) as client:
        listing = {tool.name: tool for tool in (await client.list_tools()).tools}
        results = {label: _sdk_record(await client.call_tool(*call)) for label, call in CALLS.items()}
    assert listing["forecast"].output_schema is not None
    assert listing["busy"].output_schema is not None
    _check_our_results(results)


async def test_an_error_of_a_tool_with_an_output_schema_keeps_its_data_out_of_structured_content(
    server: Any,
) -> None:
    """The SDK client checks structured content against the tool's output schema; our error's data
    (which breaks that schema) rides in our own member, so the client takes the error as it is."""
    async with Client(server, read_timeout_seconds=30) as client:
        result = await client.call_tool("forecast", {"city": "Atlantis"})
    assert result.structured_content is None
    response = from_mcp(_sdk_record(result))
    assert (ErrorCode.NOT_FOUND, {"known_cities": 0}) == (response.code, response.data)


# -- our server, the official TypeScript SDK's client ---------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_typescript_sdk_client_sees_a_tool_failure_on_each_of_our_errors(
    node: str,  # noqa: F811
    transport: str,
    request: pytest.FixtureRequest,
) -> None:
    """It lists the tools (caching their output schemas), makes every call, and exits 0: no error
    was taken for a result that breaks its output schema."""
    target = SERVE if transport == "stdio" else [request.getfixturevalue("http_url")]
    answers = _run(
        node, transport, *map(str, target), calls={label: list(call) for label, call in CALLS.items()}
    )
    _check_our_results(answers["results"])


# -- a third-party server that writes ToolFailure, our client ------------------------------


@pytest.fixture(scope="module")
def third_party() -> Iterator[ToolRegistry]:
    registry = ToolRegistry()
    with attach(registry, THIRD_PARTY, timeout_s=60.0):
        yield registry


def _details(response: ToolResponse) -> dict[str, Any]:
    assert validate(response.to_dict()).valid
    assert response.error_info is not None
    assert response.error_info.details is not None
    return response.error_info.details


def test_a_governance_failure_is_read_as_its_code_with_its_guidance_kept(third_party: ToolRegistry) -> None:
    response = third_party.execute("reconnect", {})
    details = _details(response)
    assert (ErrorCode.ACCESS_DENIED, False) == (response.code, response.is_retryable)
    assert "Policy blocked: account not connected" == response.text
    assert "tool_failure.code" == details["code_from"]
    assert "req_8f2c1a-attempt-3" == details["tool_failure"]["correlationId"]
    assert details["tool_failure"]["agentGuidance"].startswith("Ask the user to reconnect")


def test_a_retryable_failure_past_its_time_is_retryable_now(third_party: ToolRegistry) -> None:
    past = int(time.time() * 1000) - 5_000
    response = third_party.execute("busy", {"not_before_ms": past})
    assert (ErrorCode.NETWORK_ERROR, True, 0) == (
        response.code,
        response.is_retryable,
        response.retry_after_ms,
    )


def test_a_retryable_failure_says_how_long_to_wait(third_party: ToolRegistry) -> None:
    wait_ms = 600_000
    response = third_party.execute("busy", {"not_before_ms": int(time.time() * 1000) + wait_ms})
    assert (ErrorCode.NETWORK_ERROR, True) == (response.code, response.is_retryable)
    assert response.retry_after_ms is not None
    assert 0 < response.retry_after_ms <= wait_ms


def test_a_reliability_failure_of_its_own_code_is_a_retryable_execution_error(
    third_party: ToolRegistry,
) -> None:
    response = third_party.execute("quota", {})
    details = _details(response)
    assert (ErrorCode.EXECUTION_ERROR, True) == (response.code, response.is_retryable)
    assert "tool_failure.class" == details["code_from"]


def test_a_malformed_tool_failure_leaves_the_code_to_the_text(third_party: ToolRegistry) -> None:
    response = third_party.execute("garbled", {})
    details = _details(response)
    assert ErrorCode.NOT_FOUND is response.code
    assert ("text", "ENOENT") == (details["code_from"], details["signal"])
    assert [("/_meta/io.modelcontextprotocol~1toolFailure", "required")] == [
        (violation["pointer"], violation["keyword"]) for violation in details["tool_failure_ignored"]
    ]


def test_an_error_whose_structured_content_breaks_the_output_schema_is_that_error(
    third_party: ToolRegistry,
) -> None:
    """The SDK checks no error against the tool's output schema, nor does our client."""
    response = third_party.execute("forecast", {"city": "Atlantis"})
    assert ErrorCode.NOT_FOUND is response.code
    assert {"error": "unknown city", "city": "Atlantis"} == response.data
    assert "tool_failure.code" == _details(response)["code_from"]


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("reconnect", "{}", "ACCESS_DENIED"),
        ("forecast", '{"city": "Atlantis"}', "NOT_FOUND"),
    ],
)
def test_mcp_call_prints_the_code_the_tool_failure_gives(tool: str, arguments: str, code: str) -> None:
    command = [sys.executable, "-m", "toolresponse", "mcp", "call", "--stdio", " ".join(THIRD_PARTY)]
    done = subprocess.run(
        [*command, tool, arguments], capture_output=True, text=True, timeout=120, check=False
    )
    assert 1 == done.returncode, done.stderr
    answer = json.loads(done.stdout)
    assert code == answer["error_info"]["code"]
    assert "tool_failure.code" == answer["error_info"]["details"]["code_from"]
