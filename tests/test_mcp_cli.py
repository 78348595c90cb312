"""``toolresponse mcp list|call|serve``: JSON on stdout, exit 0 for success and partial, 1 for an
error response (an unreachable server included), 2 for usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
