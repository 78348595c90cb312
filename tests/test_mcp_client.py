"""Our MCP client against servers others wrote: ``mcp-server-time`` (PyPI), the official
``@modelcontextprotocol/server-everything`` (npm), and a server written with the SDK's own
``MCPServer`` that dies mid-call or never answers. Each remote tool is a registry tool: sync
and async calls, parameter validation from the remote ``inputSchema``, listeners, the agent's
view; every answer validates."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolresponse import ErrorCode, ToolCallEvent, ToolRegistry, ToolResponse, ToolStatus, validate
from toolresponse.interop import CONTENT_MEMBER
from toolresponse.mcp import McpConnectError, McpConnection, attach

ROOT = Path(__file__).resolve().parent.parent
EVERYTHING = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
TIME_SERVER = Path(sys.executable).parent / "mcp-server-time"
SDK_SERVER = Path(__file__).resolve().parent / "mcp" / "sdk_server.py"


def _valid(response: ToolResponse) -> ToolResponse:
    assert validate(response.to_dict()).valid
    return response


@pytest.fixture(scope="module")
def time_tools() -> Iterator[ToolRegistry]:
    registry = ToolRegistry()
    with attach(registry, [str(TIME_SERVER)]):
        yield registry


@pytest.fixture(scope="module")
def everything() -> Iterator[ToolRegistry]:
    node = shutil.which("node")
    if node is None or not EVERYTHING.exists():
        pytest.fail("server-everything needs Node and `make node-modules`")
    registry = ToolRegistry()
    with attach(registry, [node, str(EVERYTHING), "stdio"], prefix="e_"):
        yield registry


@pytest.fixture
def sdk_server() -> Iterator[tuple[ToolRegistry, McpConnection]]:
    registry = ToolRegistry()
    with attach(registry, [sys.executable, str(SDK_SERVER)], timeout_s=4.0) as connection:
        yield registry, connection


@pytest.fixture
def patient_sdk_server() -> Iterator[tuple[ToolRegistry, McpConnection]]:
    """The same server with a timeout long enough to start it again on a busy machine (no hang bound)."""
    registry = ToolRegistry()
    with attach(registry, [sys.executable, str(SDK_SERVER)], timeout_s=60.0) as connection:
        yield registry, connection


# -- mcp-server-time ---------------------------------------------------------------------


def test_the_time_server_lists_its_tools(time_tools: ToolRegistry) -> None:
    assert ["get_current_time", "convert_time"] == time_tools.names()
    spec = time_tools.spec("get_current_time")
    assert spec is not None
    assert ["timezone"] == spec.parameters["required"]


def test_a_time_call_succeeds_with_data(time_tools: ToolRegistry) -> None:
    response = _valid(time_tools.execute("get_current_time", {"timezone": "UTC"}))
    assert ToolStatus.SUCCESS is response.status
    assert "UTC" == response.data["timezone"]


async def test_a_time_call_succeeds_asynchronously(time_tools: ToolRegistry) -> None:
    response = _valid(await time_tools.aexecute("get_current_time", {"timezone": "Europe/Paris"}))
    assert "Europe/Paris" == response.data["timezone"]


def test_an_invalid_time_zone_is_a_coded_error_with_its_text(time_tools: ToolRegistry) -> None:
    response = _valid(time_tools.execute("get_current_time", {"timezone": "Mars/Olympus"}))
    assert ErrorCode.INVALID_PARAM is response.code
    assert "Mars/Olympus" in response.text
    assert response.error_info is not None
    assert True is (response.error_info.details or {})["inferred"]


def test_arguments_are_checked_against_the_remote_input_schema(time_tools: ToolRegistry) -> None:
    response = _valid(time_tools.execute("get_current_time", {}))
    assert ErrorCode.INVALID_PARAM is response.code
    assert response.error_info is not None
    assert "schema" == (response.error_info.details or {})["reason"]


def test_listeners_see_remote_calls(time_tools: ToolRegistry) -> None:
    events: list[ToolCallEvent] = []
    time_tools.add_listener(events.append)
    try:
        time_tools.execute("get_current_time", {"timezone": "UTC"})
    finally:
        time_tools.remove_listener(events.append)
    assert [("get_current_time", ToolStatus.SUCCESS)] == [(event.tool, event.status) for event in events]


# -- server-everything -------------------------------------------------------------------


def test_everything_lists_prefixed_tools(everything: ToolRegistry) -> None:
    assert {"e_echo", "e_get-sum", "e_get-tiny-image", "e_get-structured-content"} <= set(everything.names())


def test_everything_echo_succeeds(everything: ToolRegistry) -> None:
    response = _valid(everything.execute("e_echo", {"message": "hi"}))
    assert ToolStatus.SUCCESS is response.status
    assert "hi" in response.text


def test_everything_structured_content_is_the_data(everything: ToolRegistry) -> None:
    response = _valid(everything.execute("e_get-structured-content", {"location": "Chicago"}))
    assert {"temperature", "conditions", "humidity"} <= set(response.data)


def test_everything_image_block_is_kept(everything: ToolRegistry) -> None:
    response = _valid(everything.execute("e_get-tiny-image", {}))
    images = [block for block in response.data[CONTENT_MEMBER] if block["type"] == "image"]
    assert "image/png" == images[0]["mimeType"]
    assert images[0]["data"]


def test_everything_refuses_bad_arguments_before_sending(everything: ToolRegistry) -> None:
    response = _valid(everything.execute("e_get-sum", {"a": "one", "b": 2}))
    assert ErrorCode.INVALID_PARAM is response.code


# -- a server that dies or never answers -------------------------------------------------


def test_a_text_only_error_is_coded(sdk_server: tuple[ToolRegistry, McpConnection]) -> None:
    registry, _ = sdk_server
    response = _valid(registry.execute("read_missing", {"path": "/nowhere"}))
    assert ErrorCode.NOT_FOUND is response.code
    assert "ENOENT" in response.text


def test_a_server_killed_mid_call_is_a_network_error_and_the_next_call_reconnects(
    patient_sdk_server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, _ = patient_sdk_server
    response = _valid(registry.execute("die"))
    assert ErrorCode.NETWORK_ERROR is response.code
    assert response.is_retryable
    assert ToolStatus.SUCCESS is _valid(registry.execute("noop")).status


def test_a_server_that_never_answers_is_met_with_a_timeout(
    sdk_server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, _ = sdk_server
    response = _valid(registry.execute("hang"))
    assert ErrorCode.TIMEOUT is response.code
    assert ToolStatus.SUCCESS is _valid(registry.execute("noop")).status


async def test_a_server_that_never_answers_is_met_with_a_timeout_asynchronously(
    sdk_server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, _ = sdk_server
    assert ErrorCode.TIMEOUT is _valid(await registry.aexecute("hang")).code


def test_an_unknown_remote_tool_is_not_found(sdk_server: tuple[ToolRegistry, McpConnection]) -> None:
    _, connection = sdk_server
    assert ErrorCode.NOT_FOUND is _valid(connection.call("no_such_tool")).code


def test_after_close_a_call_says_the_connection_is_closed(
    sdk_server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, connection = sdk_server
    connection.close()
    response = _valid(registry.execute("noop"))
    assert ErrorCode.NETWORK_ERROR is response.code
    assert "closed" in response.text


def test_a_command_that_does_not_exist_cannot_be_attached() -> None:
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), ["/nonexistent/mcp-server"])
    assert ErrorCode.NETWORK_ERROR is caught.value.response.code


def test_a_refused_connection_cannot_be_attached() -> None:
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), "http://127.0.0.1:9/mcp", timeout_s=5)
    assert ErrorCode.NETWORK_ERROR is caught.value.response.code
