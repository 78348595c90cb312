"""``toolresponse mcp list|call|serve``: JSON on stdout, exit 0 for success and partial, 1 for an
error response (an unreachable server included), 2 for usage errors."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_peers import HANG_AT_START, NOISY_START, process_gone
from mcp_peers import TIME_SERVER as TIME_SERVER_PATH

from toolresponse import ToolResponse

HERE = Path(__file__).resolve().parent / "mcp"
SERVER = f"{sys.executable} -m toolresponse mcp serve registry:build_registry --app-dir {HERE}"


def _cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "toolresponse", "mcp", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_list_prints_each_tool() -> None:
    done = _cli("list", "--stdio", SERVER)
    assert 0 == done.returncode, done.stderr
    names = [json.loads(line)["name"] for line in done.stdout.splitlines()]
    assert ["calculator", "flaky", "slow", "lookup", "truncated"] == names


@pytest.mark.parametrize(
    ("tool", "arguments", "status", "exit_status"),
    [
        ("calculator", '{"expression": "1 + 2"}', "success", 0),
        ("truncated", "{}", "partial", 0),
        ("calculator", '{"expression": "1 / 0"}', "error", 1),
    ],
)
def test_call_prints_the_response_and_exits_by_its_status(
    tool: str, arguments: str, status: str, exit_status: int
) -> None:
    done = _cli("call", "--stdio", SERVER, tool, arguments)
    assert exit_status == done.returncode, done.stderr
    assert status == ToolResponse.from_json(done.stdout).status.value


def test_an_unreachable_server_is_a_network_error() -> None:
    done = _cli("call", "--url", "http://127.0.0.1:9/mcp", "x")
    assert 1 == done.returncode
    assert "NETWORK_ERROR" == ToolResponse.from_json(done.stdout).to_dict()["error_info"]["code"]


@pytest.mark.parametrize(
    "arguments",
    [
        ("call", "--stdio", "x", "tool", "[1]"),
        ("call", "--stdio", "x", "tool", "{bad"),
        ("call", "tool"),
        ("serve", "no_such_module:build", "--http"),
    ],
)
def test_usage_errors_exit_2(arguments: tuple[str, ...]) -> None:
    assert 2 == _cli(*arguments).returncode


def test_serving_a_public_host_without_a_token_is_refused() -> None:
    done = _cli(
        "serve", "toolresponse.demo.calculator:build_registry", "--http", "--host", "0.0.0.0", "--port", "0"
    )
    assert 2 == done.returncode
    assert "there is no token" in done.stderr
    assert "--insecure-no-token" in done.stderr


@pytest.mark.parametrize("verb", ["serve", "call"])
def test_a_bad_token_file_is_refused_as_serve_refuses_it(verb: str, tmp_path: Path) -> None:
    """The one token reader of every verb: a token under 16 characters exits 2, naming the file."""
    token_file = tmp_path / "token"
    token_file.write_text("short\n", encoding="utf-8")
    arguments: tuple[str, ...]
    if verb == "serve":
        arguments = ("serve", "toolresponse.demo.calculator:build_registry", "--http", "--port", "0")
    else:
        arguments = ("call", "--url", "http://127.0.0.1:9/mcp", "x")
    done = _cli(*arguments, "--token-file", str(token_file))
    assert 2 == done.returncode
    assert f"the token file {token_file} is 5 characters long, under 16" in done.stderr


TIME_SERVER = str(TIME_SERVER_PATH)
"""mcp-server-time, as a --stdio command line."""
UNUSUAL_ZONE = "Pacific/Chatham"
"""A time zone no machine here runs in: mcp-server-time names it only when TZ reaches it."""


def _cli_env(*arguments: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "toolresponse", "mcp", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=env)


@pytest.mark.parametrize(
    ("caller_tz", "options", "reaches"),
    [
        (UNUSUAL_ZONE, (), True),
        (None, ("--env", f"TZ={UNUSUAL_ZONE}"), True),
        (UNUSUAL_ZONE, ("--no-inherit-env",), False),
        (UNUSUAL_ZONE, ("--no-inherit-env", "--env", f"TZ={UNUSUAL_ZONE}"), True),
    ],
    ids=["inherited", "--env", "--no-inherit-env", "--no-inherit-env with --env"],
)
def test_the_callers_environment_reaches_a_stdio_server(
    caller_tz: str | None, options: tuple[str, ...], reaches: bool
) -> None:
    """A third-party server reads its setting (mcp-server-time's local zone, from TZ) from the
    environment this command runs in, and from --env; --no-inherit-env keeps the caller's out."""
    env = {name: value for name, value in os.environ.items() if name != "TZ"}
    if caller_tz is not None:
        env["TZ"] = caller_tz
    done = _cli_env("list", "--stdio", TIME_SERVER, *options, env=env)
    assert 0 == done.returncode, done.stderr
    assert reaches == (UNUSUAL_ZONE in done.stdout)


def test_a_bad_env_option_is_a_usage_error_that_does_not_show_its_value() -> None:
    done = _cli("list", "--stdio", TIME_SERVER, "--env", "API_KEY:opensesame")
    assert 2 == done.returncode
    assert "--env takes KEY=VALUE: --env number 1 has no '='" in done.stderr
    assert "opensesame" not in done.stderr


@pytest.mark.parametrize(
    "peer",
    [
        ("--stdio", "/nonexistent/mcp-server --api-key opensesame"),
        ("--url", "http://admin:opensesame@127.0.0.1:9/mcp"),
        ("--url", "http://127.0.0.1:9/mcp?access_token=opensesame"),
    ],
    ids=["api-key argument", "url password", "access_token query"],
)
def test_a_connection_failure_never_prints_a_credential(peer: tuple[str, str]) -> None:
    done = _cli("call", *peer, "tool", "--env", "SERVICE_TOKEN=envsecretvalue")
    assert 1 == done.returncode
    assert done.stdout
    assert "opensesame" not in done.stdout + done.stderr
    assert "envsecretvalue" not in done.stdout + done.stderr


def test_a_command_that_does_not_exist_is_not_found() -> None:
    done = _cli("list", "--stdio", "no-such-mcp-server --port 1")
    assert 1 == done.returncode
    error = ToolResponse.from_json(done.stdout)
    assert "NOT_FOUND" == error.to_dict()["error_info"]["code"]
    assert "'no-such-mcp-server'" in error.text
    assert not error.is_retryable


@pytest.fixture(scope="module")
def token_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``toolresponse mcp serve --http`` with a token file: its URL and the file."""
    token_file = tmp_path_factory.mktemp("token") / "token"
    token_file.write_text("Vb7-qP2x_Lm9sKt4Rw8nYz1Hc6Jd3Fg0\n", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "toolresponse",
        "mcp",
        "serve",
        "toolresponse.demo.calculator:build_registry",
        "--http",
        "--port",
        "0",
        "--token-file",
        str(token_file),
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as server:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        try:
            yield url, token_file
        finally:
            server.terminate()


def test_a_server_that_wants_a_token_is_access_denied(token_served: tuple[str, Path]) -> None:
    """Without the token: ACCESS_DENIED saying a token is needed, not a retryable NETWORK_ERROR."""
    url, token_file = token_served
    env = {name: value for name, value in os.environ.items() if name != "TOOLRESPONSE_TOKEN"}
    done = _cli_env("list", "--url", url, env=env)
    assert 1 == done.returncode
    error = ToolResponse.from_json(done.stdout)
    assert "ACCESS_DENIED" == error.to_dict()["error_info"]["code"]
    assert "needs a token" in error.text
    assert not error.is_retryable
    with_token = _cli_env(
        "call",
        "--url",
        url,
        "--token-file",
        str(token_file),
        "calculator",
        '{"expression": "2 + 2"}',
        env=env,
    )
    assert 0 == with_token.returncode, with_token.stdout


@pytest.mark.parametrize("verb", [("list",), ("call", "tool")])
def test_the_timeout_bounds_the_whole_command_and_the_server_is_stopped(
    verb: tuple[str, ...], tmp_path: Path
) -> None:
    """--timeout covers starting the server: TIMEOUT, and the server process is gone."""
    pid_file = tmp_path / "pid"
    command = shlex.join([sys.executable, "-c", HANG_AT_START, str(pid_file)])
    done = _cli(verb[0], "--stdio", command, "--timeout", "2", *verb[1:])
    assert 1 == done.returncode, done.stderr
    error = ToolResponse.from_json(done.stdout).to_dict()["error_info"]
    assert ("TIMEOUT", 2) == (error["code"], error["details"]["timeout_s"])
    assert process_gone(int(pid_file.read_text(encoding="utf-8")))


@pytest.mark.parametrize("verbose", [False, True])
def test_a_servers_stderr_is_shown_only_with_verbose(verbose: bool) -> None:
    command = shlex.join([sys.executable, "-c", NOISY_START, TIME_SERVER])
    options = ("--verbose",) if verbose else ()
    done = _cli("call", "--stdio", command, *options, "get_current_time", '{"timezone": "UTC"}')
    assert 0 == done.returncode, done.stderr
    assert verbose == ("old SDK warning 119" in done.stderr)
    if not verbose:
        assert "" == done.stderr


def test_a_server_that_prints_junk_on_stdout_costs_one_line_on_stderr_not_a_traceback() -> None:
    """The SDK logs a traceback quoting each line that is not JSON-RPC (a server's banner, its
    argv with a key): without --verbose, one masked line."""
    noisy = f"sh -c {shlex.quote('echo Starting with --api-key hunter2secret; exec ' + SERVER)}"
    done = _cli("call", "--stdio", noisy, "calculator", '{"expression": "1 + 2"}')
    assert 0 == done.returncode, done.stderr
    assert "success" == ToolResponse.from_json(done.stdout).status.value
    lines = done.stderr.splitlines()
    assert (1, False, False) == (len(lines), "Traceback" in done.stderr, "hunter2secret" in done.stderr)
