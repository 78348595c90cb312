"""Our MCP server, met by the official TypeScript SDK's client (``@modelcontextprotocol/sdk``,
pinned in package-lock.json), run by ``tests/mcp/ts_client.mjs`` over stdio and streamable HTTP:
it lists the tools and validates structured content against the output schemas itself; every
result it got carries a valid ToolResponse."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from mcp_peers import serve_http_in_background

from toolresponse import ErrorCode, ToolStatus, validate
from toolresponse.interop import from_mcp
from toolresponse.mcp import http_app
from toolresponse.tools import load_registry

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "mcp"
SCRIPT = HERE / "ts_client.mjs"
SDK = ROOT / "node_modules" / "@modelcontextprotocol" / "sdk"


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None or not SDK.exists():
        pytest.fail("the TypeScript SDK test needs Node and `make node-modules`")
    return found


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with serve_http_in_background(
        http_app(load_registry("registry:build_registry", app_dir=str(HERE)))
    ) as url:
        yield url


def _run(
    node: str, *arguments: str, calls: Mapping[str, Any] | None = None, read: bool = False
) -> dict[str, Any]:
    """What ``ts_client.mjs`` printed, making its own calls or ``calls`` ({label: [tool, arguments]});
    with ``read``, also each result as the TypeScript package reads it (``TS_CLIENT_READ``)."""
    env = {**os.environ}
    if calls is not None:
        env["TS_CLIENT_CALLS"] = json.dumps(calls)
    if read:
        env["TS_CLIENT_READ"] = "1"
    done = subprocess.run(
        [node, str(SCRIPT), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
        env=env,
    )
    assert 0 == done.returncode, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module", params=["stdio", "http"])
def answers(request: pytest.FixtureRequest, node: str) -> dict[str, Any]:
    if request.param == "stdio":
        serve = [sys.executable, "-m", "toolresponse", "mcp", "serve", "registry:build_registry"]
        return _run(node, "stdio", *serve, "--app-dir", str(HERE))
    return _run(node, "http", request.getfixturevalue("http_url"))


def test_the_typescript_client_lists_our_tools(answers: dict[str, Any]) -> None:
    assert ["calculator", "flaky", "slow", "lookup", "truncated"] == answers["tools"]


@pytest.mark.parametrize(
    ("label", "status", "code"),
    [
        ("success", ToolStatus.SUCCESS, None),
        ("partial", ToolStatus.PARTIAL, None),
        ("error", ToolStatus.ERROR, ErrorCode.EXECUTION_ERROR),
        ("invalid", ToolStatus.ERROR, ErrorCode.INVALID_PARAM),
        ("structured", ToolStatus.SUCCESS, None),
    ],
)
def test_each_result_the_typescript_client_got_carries_its_response(
    answers: dict[str, Any], label: str, status: ToolStatus, code: ErrorCode | None
) -> None:
    record = answers["results"][label]
    response = from_mcp(record)
    assert validate(response.to_dict()).valid
    assert (status, code) == (response.status, response.code)
    assert (status is ToolStatus.ERROR) == record.get("isError", False)


def test_structured_content_passed_the_typescript_clients_own_check(answers: dict[str, Any]) -> None:
    assert {"key": "abc", "value": 3} == answers["results"]["structured"]["structuredContent"]
