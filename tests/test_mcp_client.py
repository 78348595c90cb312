"""Our MCP client against servers others wrote: ``mcp-server-time`` (PyPI), the official
``@modelcontextprotocol/server-everything`` (npm), and a server written with the SDK's own
``MCPServer`` that dies mid-call or never answers. Each remote tool is a registry tool: sync
and async calls, parameter validation from the remote ``inputSchema``, listeners, the agent's
view; every answer validates."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_peers import (
    HANG_AT_START,
    HANG_ON_RESTART,
    NOISY_START,
    TIME_SERVER,
    process_gone,
    serve_http_in_background,
)

from toolresponse import (
    ErrorCode,
    McpConnectError,
    ToolCallEvent,
    ToolDefinitionError,
    ToolRegistry,
    ToolResponse,
    ToolStatus,
    validate,
)
from toolresponse.interop._mcp import CONTENT_MEMBER
from toolresponse.mcp import McpConnection, McpTool, aattach, attach

ROOT = Path(__file__).resolve().parent.parent
EVERYTHING = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
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
    """The server with a short call timeout, and time enough to start it on a busy machine."""
    registry = ToolRegistry()
    command = [sys.executable, str(SDK_SERVER)]
    with attach(registry, command, timeout_s=4.0, connect_timeout_s=60.0) as connection:
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


def test_a_result_that_asks_for_input_is_not_read_as_the_answer(
    sdk_server: tuple[ToolRegistry, McpConnection],
) -> None:
    """A result whose resultType is input_required is not the call's outcome: an API_ERROR that
    says so, never a success holding the server's question."""
    registry, _ = sdk_server
    response = registry.execute("ask", {})
    assert (response.status, response.code) == ("error", "API_ERROR")
    assert "input_required" in response.text


def test_an_unknown_remote_tool_is_not_found(sdk_server: tuple[ToolRegistry, McpConnection]) -> None:
    _, connection = sdk_server
    assert ErrorCode.NOT_FOUND is _valid(connection.execute("no_such_tool")).code


def test_the_names_of_1_0_warn_and_answer_as_execute(sdk_server: tuple[ToolRegistry, McpConnection]) -> None:
    """McpConnection.call and acall, deprecated, warn (naming the new method, from the caller's
    line) and answer as execute and aexecute do."""
    _, connection = sdk_server
    expected = _valid(connection.execute("echo", {"text": "hi"})).to_dict()
    assert "hi" == expected["text"]
    with pytest.warns(DeprecationWarning, match=r"McpConnection\.call .* use McpConnection\.execute") as sync:
        assert expected == _valid(connection.call("echo", {"text": "hi"})).to_dict()

    async def awaited() -> ToolResponse:
        return await connection.acall("echo", {"text": "hi"})

    with pytest.warns(DeprecationWarning, match=r"McpConnection\.acall .* McpConnection\.aexecute") as aio:
        assert expected == _valid(asyncio.run(awaited())).to_dict()
    assert [__file__, __file__] == [warning.filename for warning in [*sync, *aio]]


def test_after_close_a_call_says_the_connection_is_closed(
    sdk_server: tuple[ToolRegistry, McpConnection],
) -> None:
    registry, connection = sdk_server
    connection.close()
    for _ in range(2):  # it stays closed: no retry mends it
        response = _valid(registry.execute("noop"))
        assert (ErrorCode.NETWORK_ERROR, False) == (response.code, response.is_retryable)
        assert "is closed" in response.text


@pytest.mark.parametrize("command", ["/nonexistent/mcp-server", "no-such-mcp-server-command"])
def test_a_command_that_does_not_exist_is_not_found_naming_it(command: str) -> None:
    """No retry makes a missing command appear: NOT_FOUND, not retryable, naming the command."""
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), [command, "--flag"])
    response = _valid(caught.value.response)
    assert ErrorCode.NOT_FOUND is response.code
    assert not response.is_retryable
    assert f"The MCP server command {command!r} could not be started" in response.text
    assert command == response.to_dict()["error_info"]["details"]["command"]


def test_a_command_that_may_not_be_run_is_permission_denied(tmp_path: Path) -> None:
    script = tmp_path / "server"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o600)
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), [str(script)])
    response = _valid(caught.value.response)
    assert ErrorCode.PERMISSION_DENIED is response.code
    assert not response.is_retryable


def test_a_refused_connection_cannot_be_attached() -> None:
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), "http://127.0.0.1:9/mcp", timeout_s=5)
    assert ErrorCode.NETWORK_ERROR is caught.value.response.code


# -- failures that name their cause, with secrets masked ----------------------------------

SECRET = "opensesame"
"""A password or key that looks like a word, not a credential (masked for where it stands)."""


@pytest.mark.parametrize(
    "target",
    [
        f"http://alice:{SECRET}@127.0.0.1:9/mcp",
        f"http://127.0.0.1:9/mcp?access_token={SECRET}",
        ["/nonexistent/mcp-server", "--api-key", SECRET],
        [sys.executable, "-c", "raise SystemExit(3)", "--token", SECRET],
    ],
    ids=["url password", "access_token query", "api-key argument", "token argument"],
)
def test_a_connection_failure_never_repeats_a_credential_of_its_target(target: str | list[str]) -> None:
    """Text, message and details of the answer (and the exception's text) name the server with
    its credential masked."""
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), target, timeout_s=30)
    response = _valid(caught.value.response)
    assert SECRET not in response.to_json()
    assert SECRET not in str(caught.value)
    assert "***" in response.to_dict()["error_info"]["details"]["server"]


# -- attach: all tools or none --------------------------------------------------------------


def test_a_failed_attach_registers_nothing_and_a_second_attach_works() -> None:
    """A remote name that clashes with a local tool (the server's fifth) fails the attach before any
    remote tool is registered; the registry holds its own tools only, and attaching again with a
    prefix registers every remote tool, which answers."""
    registry = ToolRegistry()

    @registry.tool
    def hang() -> str:
        """A local tool whose name the server also has."""
        return "local"

    with pytest.raises(ToolDefinitionError, match=r"'hang'.*nothing was registered"):
        attach(registry, [sys.executable, str(SDK_SERVER)], timeout_s=60)
    assert ["hang"] == registry.names()
    with attach(registry, [sys.executable, str(SDK_SERVER)], prefix="remote_", timeout_s=60):
        assert {"hang", "remote_noop", "remote_echo", "remote_hang"} <= set(registry.names())
        assert ToolStatus.SUCCESS is _valid(registry.execute("remote_noop")).status
        assert "local" == registry.execute("hang").text


def test_an_attach_that_fails_midway_unregisters_what_it_registered() -> None:
    """A name taken by someone else between the attach's check and its registration (here just
    before the server's second tool) fails the attach, and the tool it had registered goes."""

    class Raced(ToolRegistry):
        def register(self, tool_or_function: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(tool_or_function, McpTool) and len(self) == 1:
                super().register(lambda: "theirs", name=tool_or_function.name)
            return super().register(tool_or_function, *args, **kwargs)

    registry = Raced()
    with pytest.raises(ToolDefinitionError, match="already registered"):
        attach(registry, [sys.executable, str(SDK_SERVER)], timeout_s=60)
    assert ["echo"] == registry.names()
    assert "theirs" == registry.execute("echo").text


async def test_a_failed_asynchronous_attach_registers_nothing() -> None:
    registry = ToolRegistry()
    registry.register(lambda: "local", name="echo")
    with pytest.raises(ToolDefinitionError):
        await aattach(registry, [sys.executable, str(SDK_SERVER)], timeout_s=60)
    assert ["echo"] == registry.names()


# -- a server that wants a token -------------------------------------------------------------

TOKEN = "Vb7-qP2x_Lm9sKt4Rw8nYz1Hc6Jd3Fg0"


@pytest.fixture(scope="module")
def token_server() -> Iterator[str]:
    """Our MCP face over streamable HTTP, behind the HTTP binding's access rules with a token."""
    from toolresponse.demo.calculator import build_registry
    from toolresponse.http import AccessRules
    from toolresponse.mcp import http_app

    with serve_http_in_background(http_app(build_registry(), access=AccessRules.of(token=TOKEN))) as url:
        yield url


@pytest.mark.parametrize(
    ("token", "reason"),
    [(None, "it needs a token"), ("Wrong-token-0123456789abcdef", "it does not accept the token sent")],
)
def test_a_server_that_wants_a_token_is_access_denied_not_a_network_error(
    token_server: str, token: str | None, reason: str
) -> None:
    """HTTP 401 is ACCESS_DENIED (not retryable: retrying without a token never succeeds)."""
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), token_server, token=token, timeout_s=30)
    response = _valid(caught.value.response)
    assert ErrorCode.ACCESS_DENIED is response.code
    assert not response.is_retryable
    assert reason in response.text
    assert 401 == response.to_dict()["error_info"]["details"]["http_status"]


def test_a_url_alone_in_a_list_is_the_url_not_a_command(token_server: str) -> None:
    """The README's list form with a URL in it: the URL's server, not a command named so."""
    registry = ToolRegistry()
    with attach(registry, [token_server], token=TOKEN, timeout_s=30) as connection:
        assert token_server == connection.target
        assert ToolStatus.SUCCESS is _valid(registry.execute("calculator", {"expression": "2+3"})).status


class _Quiet(http.server.BaseHTTPRequestHandler):
    """A test server's handler: no access log, and one way to answer with a whole body."""

    def reply(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def _served(handler: type[_Quiet]) -> Iterator[str]:
    """``handler`` served on loopback in threads; yields its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _EndlessNotFound(_Quiet):
    """Answers every POST 404 with a body of a gigabyte, counting the bytes it got to send."""

    sent = 0
    BODY = 1 << 30

    def do_POST(self) -> None:
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(self.BODY))
        self.end_headers()
        chunk = b" " * 65536
        try:
            for _ in range(self.BODY // len(chunk)):
                self.wfile.write(chunk)
                type(self).sent += len(chunk)
        except OSError:  # the client stopped reading and closed
            pass


def test_a_failed_answer_s_body_is_read_only_as_far_as_its_message() -> None:
    """A 404 whose body never ends is NOT_FOUND after reading the start of it: the client does not
    read (and hold) a gigabyte to find the server's message."""
    with _served(_EndlessNotFound) as url, pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), f"{url}/mcp", timeout_s=120)
    assert ErrorCode.NOT_FOUND is _valid(caught.value.response).code
    assert _EndlessNotFound.sent < 64 * 1024 * 1024  # the socket's buffers, not the gigabyte


class _Status(_Quiet):
    """Answers every POST with the status its path names (``/400``), saying why in a short body."""

    def do_POST(self) -> None:
        self.reply(int(self.path.strip("/")), "text/plain", b"the gateway says no")


@pytest.fixture(scope="module")
def status_server() -> Iterator[str]:
    with _served(_Status) as url:
        yield url


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (400, ErrorCode.API_ERROR, False),
        (410, ErrorCode.NOT_FOUND, False),
        (429, ErrorCode.RATE_LIMIT, True),
        (500, ErrorCode.API_ERROR, False),
        (501, ErrorCode.API_ERROR, False),
        (503, ErrorCode.NETWORK_ERROR, True),
    ],
)
def test_an_http_status_while_connecting_is_named_and_classified(
    status_server: str, status: int, code: ErrorCode, retryable: bool
) -> None:
    """Every failed answer while connecting says its status: gone is NOT_FOUND, too many requests
    RATE_LIMIT, a server or proxy down for now a retryable NETWORK_ERROR, the rest API_ERROR, which
    no retry mends (all were a retryable NETWORK_ERROR that did not say the status)."""
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), f"{status_server}/{status}", timeout_s=30)
    response = _valid(caught.value.response)
    assert (code, retryable) == (response.code, response.is_retryable)
    assert status == response.to_dict()["error_info"]["details"]["http_status"]
    assert f"HTTP {status}" in response.text


@pytest.mark.parametrize("path", ["/nope", "/mcp/x"])
def test_a_url_that_is_not_an_mcp_endpoint_is_not_found_naming_it(token_server: str, path: str) -> None:
    """HTTP 404 while connecting: a wrong path, which no retry mends (not NETWORK_ERROR)."""
    url = token_server.rsplit("/", 1)[0] + path
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), url, token=TOKEN, timeout_s=30)
    response = _valid(caught.value.response)
    assert (ErrorCode.NOT_FOUND, False) == (response.code, response.is_retryable)
    assert url in response.text
    assert 404 == response.to_dict()["error_info"]["details"]["http_status"]


def test_a_url_that_refuses_the_method_is_not_found() -> None:
    """HTTP 405: the HTTP binding's /tools takes no POST; it is no MCP endpoint."""
    from toolresponse.demo.calculator import build_registry
    from toolresponse.http import create_app, serve_in_background

    with serve_in_background(create_app(build_registry())) as base, pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), base + "/tools", timeout_s=30)
    response = _valid(caught.value.response)
    assert (ErrorCode.NOT_FOUND, 405) == (
        response.code,
        response.to_dict()["error_info"]["details"]["http_status"],
    )


def test_a_403_for_the_host_says_what_the_server_said_not_the_token() -> None:
    from toolresponse.demo.calculator import build_registry
    from toolresponse.http import AccessRules
    from toolresponse.mcp import http_app

    rules = AccessRules(hosts=frozenset({"example.test"}), origins=frozenset(), token=TOKEN)
    with (
        serve_http_in_background(http_app(build_registry(), access=rules)) as url,
        pytest.raises(McpConnectError) as caught,
    ):
        attach(ToolRegistry(), url, token=TOKEN, timeout_s=30)
    response = _valid(caught.value.response)
    assert (ErrorCode.ACCESS_DENIED, 403) == (
        response.code,
        response.to_dict()["error_info"]["details"]["http_status"],
    )
    assert "does not answer requests for Host" in response.text
    assert "token" not in response.text


def test_with_the_token_the_server_answers(token_server: str) -> None:
    registry = ToolRegistry()
    with attach(registry, token_server, token=TOKEN, timeout_s=30):
        assert 3 == registry.execute("calculator", {"expression": "1 + 2"}).data["result"]


# -- bounded, quiet -------------------------------------------------------------------------


def test_the_timeout_bounds_connecting_and_the_server_is_stopped(tmp_path: Path) -> None:
    """A server that never answers the handshake is TIMEOUT after the attach's timeout (not a
    retried NETWORK_ERROR after the SDK's own timeouts), and its process is gone."""
    pid_file = tmp_path / "pid"
    with pytest.raises(McpConnectError) as caught:
        attach(ToolRegistry(), [sys.executable, "-c", HANG_AT_START, str(pid_file)], timeout_s=2)
    response = _valid(caught.value.response)
    assert ErrorCode.TIMEOUT is response.code
    assert 2 == response.to_dict()["error_info"]["details"]["timeout_s"]
    assert process_gone(int(pid_file.read_text(encoding="utf-8")))


def test_a_call_that_must_reconnect_is_bounded_by_the_connect_timeout(tmp_path: Path) -> None:
    """A call after the server died starts it again within ``connect_timeout_s``: a server that
    never answers the handshake then is TIMEOUT after that timeout, not the call's."""
    registry = ToolRegistry()
    command = [sys.executable, "-c", HANG_ON_RESTART, str(tmp_path / "started"), str(SDK_SERVER)]
    with attach(registry, command, timeout_s=60.0, connect_timeout_s=10.0):
        assert ErrorCode.NETWORK_ERROR is _valid(registry.execute("die")).code
        response = _valid(registry.execute("noop"))
    assert ErrorCode.TIMEOUT is response.code
    assert 10 == response.to_dict()["error_info"]["details"]["timeout_s"]
    assert "did not answer the connection within 10 s" in response.text


def test_a_call_after_a_connect_timeout_is_bounded_by_the_connect_timeout_too(tmp_path: Path) -> None:
    """A call while the session a timed-out connect left is still ending waits for that end within
    its own ``connect_timeout_s`` (it does not cancel it again, which cut short the server's end):
    TIMEOUT again, never a call that hangs, and no server process outlives the connection."""
    pid_file = tmp_path / "pid"
    connection = McpConnection(
        [sys.executable, "-c", HANG_AT_START, str(pid_file)], call_timeout_s=60.0, connect_timeout_s=0.5
    )
    with connection:
        first = _valid(connection.execute("noop"))
        second = _valid(connection.execute("noop"))
    assert [ErrorCode.TIMEOUT, ErrorCode.TIMEOUT] == [first.code, second.code]
    assert 0.5 == second.to_dict()["error_info"]["details"]["timeout_s"]
    assert process_gone(int(pid_file.read_text(encoding="utf-8")))


def test_a_servers_stderr_goes_where_it_is_sent(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    registry = ToolRegistry()
    with (
        log.open("w", encoding="utf-8") as stderr,
        attach(registry, [sys.executable, "-c", NOISY_START, str(TIME_SERVER)], stderr=stderr),
    ):
        assert ToolStatus.SUCCESS is registry.execute("get_current_time", {"timezone": "UTC"}).status
    assert "old SDK warning 119" in log.read_text(encoding="utf-8")


def test_an_attached_tool_answers_with_the_callers_call_id_or_none() -> None:
    """The remote server's answer carries its request id as its call id; here the call's id is the
    caller's: none when the caller gave none (it was the remote request's number)."""
    from toolresponse.demo.calculator import build_registry
    from toolresponse.mcp import http_app

    with serve_http_in_background(http_app(build_registry())) as url:
        registry = ToolRegistry()
        connection = attach(registry, url, timeout_s=30)
        try:
            anonymous = _valid(registry.execute("calculator", {"expression": "1+2"}))
            named = _valid(registry.execute("calculator", {"expression": "1+2"}, call_id="mine"))
        finally:
            connection.close()
    assert anonymous.context is not None
    assert "call_id" not in anonymous.context
    assert named.context is not None
    assert "mine" == named.context["call_id"]


class _PlainPeer(_Quiet):
    """A stateless MCP server in plain HTTP (one tool, ``echo``) that answers each tools/call as
    ``call`` says; it counts the handshakes it answered."""

    handshakes = 0

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if message["method"] == "tools/call":
            self.call(message)
            return
        if "id" not in message:  # a notification
            self.reply(202, "application/json", b"")
            return
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if message["method"] == "initialize":
            type(self).handshakes += 1
            version, info = message["params"]["protocolVersion"], {"name": "plain", "version": "1"}
            answer["result"] = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
        elif message["method"] == "tools/list":
            answer["result"] = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
        else:  # as a server of a protocol version before server/discover
            answer["error"] = {"code": -32601, "message": f"no method {message['method']}"}
        self.reply(200, "application/json", json.dumps(answer).encode())

    def call(self, message: dict[str, Any]) -> None:
        raise NotImplementedError


class _CallRefused(_PlainPeer):
    """Answers every tools/call HTTP 400 with a JSON-RPC error in its body, as the protocol allows."""

    def call(self, message: dict[str, Any]) -> None:
        error = {"code": -32602, "message": "the argument x is refused"}
        self.reply(
            400,
            "application/json",
            json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode(),
        )


def test_a_call_refused_with_a_json_rpc_error_in_an_http_error_says_the_servers_error() -> None:
    """Once connected, a failed answer's body is the SDK's to read: the JSON-RPC error a server
    sends at HTTP 400 reaches the caller, not a stand-in."""
    registry = ToolRegistry()
    with _served(_CallRefused) as url, attach(registry, f"{url}/mcp", timeout_s=30):
        response = _valid(registry.execute("echo", {}))
    assert ErrorCode.INVALID_PARAM is response.code
    assert "the argument x is refused" in response.text


_SDK_LOST = "SSE stream ended without a response"
_SDK_GAVE_UP = "SSE stream ended and reconnection attempts were exhausted"


class _StreamEnds(_PlainPeer):
    """Answers a tools/call with an event stream (``text/event-stream``) that ends as its argument
    ``end`` says: ``empty`` (no event), ``cut`` (the body ends before the length it announced),
    ``forged`` (the server's own JSON-RPC error -32000 in the SDK's words for a lost answer),
    ``resume_lost`` and ``resume_forged`` (an event id to resume from, then the end: the stream
    resumed answers HTTP 500, or with the server's own -32000 in the SDK's words for giving up);
    ``result`` answers with a result."""

    def call(self, message: dict[str, Any]) -> None:
        end = message["params"]["arguments"]["end"]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        if end == "cut":
            self.send_header("Content-Length", "4096")
        self.end_headers()
        if end in ("forged", "result"):
            self.event(message["id"], _SDK_LOST if end == "forged" else None)
        elif end.startswith("resume"):
            self.wfile.write(f"id: {end}\nretry: 1\ndata: \n\n".encode())
        elif end == "cut":
            self.wfile.write(b": the answer follows\n\n")

    def event(self, ident: object, error: str | None) -> None:
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": ident}
        if error is None:
            answer["result"] = {"content": [{"type": "text", "text": "hello"}]}
        else:
            answer["error"] = {"code": -32000, "message": error}
        self.wfile.write(f"event: message\ndata: {json.dumps(answer)}\n\n".encode())

    def do_GET(self) -> None:
        """The stream resumed after an event id: answers 500 for ``resume_lost``."""
        if self.headers.get("Last-Event-ID") != "resume_forged":
            self.reply(500, "text/plain", b"nothing to resume")
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.event(0, _SDK_GAVE_UP)  # the SDK gives the answer the id of the request it resumes


@pytest.fixture(scope="module")
def stream_ends() -> Iterator[tuple[ToolRegistry, McpConnection]]:
    registry = ToolRegistry()
    with _served(_StreamEnds) as url, attach(registry, f"{url}/mcp", timeout_s=30) as connection:
        yield registry, connection


@pytest.mark.parametrize(
    ("end", "said"), [("empty", _SDK_LOST), ("cut", _SDK_LOST), ("resume_lost", _SDK_GAVE_UP)]
)
def test_an_answer_whose_event_stream_ends_without_it_is_lost_not_the_servers_error(
    stream_ends: tuple[ToolRegistry, McpConnection], end: str, said: str
) -> None:
    """The SDK answers -32000, the code a server may send as its own error, for a call whose event
    stream ended (or broke) without its answer, resumed or not: the answer was lost on the way, a
    retryable NETWORK_ERROR naming the server, and the session goes on (no new handshake)."""
    registry, connection = stream_ends
    handshakes = _StreamEnds.handshakes
    response = _valid(registry.execute("echo", {"end": end}))
    assert (ErrorCode.NETWORK_ERROR, True) == (response.code, response.is_retryable)
    assert connection.description in response.text
    details = response.to_dict()["error_info"]["details"]
    assert (connection.description, said) == (details["server"], details["message"])
    assert "hello" == _valid(registry.execute("echo", {"end": "result"})).text
    assert handshakes == _StreamEnds.handshakes


@pytest.mark.parametrize(("end", "said"), [("forged", _SDK_LOST), ("resume_forged", _SDK_GAVE_UP)])
def test_a_servers_own_error_in_the_sdks_words_for_a_lost_answer_is_still_its_error(
    stream_ends: tuple[ToolRegistry, McpConnection], end: str, said: str
) -> None:
    """A server's JSON-RPC error -32000 on the call's event stream (resumed or not) is its error,
    whatever it says: the client tells the SDK's own by the stream having ended, not by the text."""
    registry, _ = stream_ends
    response = _valid(registry.execute("echo", {"end": end}))
    assert (ErrorCode.EXECUTION_ERROR, False) == (response.code, response.is_retryable)
    assert said in response.text
    assert -32000 == response.to_dict()["error_info"]["details"]["jsonrpc_code"]
